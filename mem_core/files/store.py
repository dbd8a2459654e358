"""Store primitives shared by every file `mem` touches (mem-cli.md §8).

* :func:`safe_file` — project-relative, normalized, inside the project, no
  symbolic link anywhere from the filesystem root down;
* :func:`read_text` — a regular file of at most 2 MiB of valid UTF-8;
* :func:`append_record` — one compact JSON line appended and fsynced, after the
  size and final-newline checks;
* :func:`write_json` — whole-file JSON written atomically (temp file, fsync,
  rename);
* :func:`writer_lock` — the ``.bmad/memory/writer.lock`` protocol that
  ``bmad-plus mem`` uses too, so the two tools exclude each other.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mem_core.errors import MemError
from mem_core.js import jsonfmt

__all__ = [
    "MEMORY_DIR",
    "LOCK",
    "MAX_BYTES",
    "LOCK_WAIT_SECONDS",
    "safe_file",
    "read_text",
    "append_record",
    "write_json",
    "writer_lock",
    "os_error_message",
]

MEMORY_DIR = ".bmad/memory"
LOCK = MEMORY_DIR + "/writer.lock"
MAX_BYTES = 2 * 1024 * 1024
LOCK_WAIT_SECONDS = 2.0
LOCK_RETRY_SECONDS = 0.01

NOT_NORMALIZED = "Memory path must be a normalized project-relative path."
ESCAPES = "Memory path escapes project."
SYMLINK = "Memory paths cannot follow symbolic links or junctions."
PARENT = "Memory parent is not a directory."
NOT_REGULAR = "Memory source must be a regular file of at most 2 MiB."
GREW = "Memory source exceeded 2 MiB while reading."
NOT_UTF8 = "Memory source must contain valid UTF-8."
FULL = "Memory store is full; archive it explicitly before adding records."
INCOMPLETE = "Memory store has an incomplete final line; inspect it before writing."
TOO_BIG = "Memory store exceeds 2 MiB."
LOCKED = "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock."

_held: set[str] = set()


def hostname() -> str:
    """This host's name, as Node's ``os.hostname()`` gives it."""
    return os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")


def _uuid4() -> str:
    import uuid

    return str(uuid.uuid4())


_ERRNO_TEXT = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTDIR: "not a directory",
    errno.EEXIST: "file already exists",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENOSPC: "no space left on device",
    errno.EROFS: "read-only file system",
    errno.EPERM: "operation not permitted",
}


def os_error_message(exc: OSError, syscall: str, path: str) -> str:
    """The message Node.js gives for a failed system call (``ENOENT: no such
    file or directory, stat '/p/x'``)."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    text = _ERRNO_TEXT.get(exc.errno or 0, (exc.strerror or "i/o error").lower())
    return f"{code}: {text}, {syscall} '{path}'"


def safe_file(root: str, relative: object) -> str:
    """The absolute path of ``relative`` inside the project ``root``, refusing
    anything that is not a normalized project-relative path or that would pass
    through a symbolic link."""
    root = os.path.abspath(root)
    if (
        not isinstance(relative, str)
        or not relative
        or ":" in relative
        or relative.startswith("/")
        or any(p in ("", ".", "..") for p in relative.replace("\\", "/").split("/"))
    ):
        raise MemError(NOT_NORMALIZED)
    target = os.path.normpath(os.path.join(root, relative))
    if not target.startswith(root.rstrip(os.sep) + os.sep):
        raise MemError(ESCAPES)
    current = os.sep
    for part in target.split(os.sep)[1:]:
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise MemError(os_error_message(exc, "lstat", current)) from None
        if stat.S_ISLNK(st.st_mode):
            raise MemError(SYMLINK)
        if current != target and not stat.S_ISDIR(st.st_mode):
            raise MemError(PARENT)
    return target


def read_text(root: str, relative: str, *, missing: bool = False) -> str | None:
    """Read a project file under the safety rules; ``None`` for a missing file
    when ``missing`` is true."""
    path = safe_file(root, relative)
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        if missing:
            return None
        raise MemError(os_error_message(exc, "stat", path)) from None
    except OSError as exc:
        raise MemError(os_error_message(exc, "stat", path)) from None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        raise MemError(NOT_REGULAR)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", path)) from None
    if len(data) > MAX_BYTES:
        raise MemError(GREW)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(NOT_UTF8) from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def append_record(root: str, relative: str, record: Any) -> Any:
    """Append ``record`` as one compact JSON line, under the writer lock."""
    with writer_lock(root):
        path = safe_file(root, relative)
        prior = read_text(root, relative, missing=True) or ""
        line = (jsonfmt.dumps(record) + "\n").encode("utf-8", "surrogatepass")
        if len(prior.encode("utf-8")) + len(line) > MAX_BYTES:
            raise MemError(FULL)
        if prior and not prior.endswith("\n"):
            raise MemError(INCOMPLETE)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise MemError(os_error_message(exc, "open", path)) from None
        try:
            _write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
    return record


def write_json(root: str, relative: str, value: Any) -> None:
    """Replace a JSON file atomically (``JSON.stringify(value, null, 2)`` plus a
    final newline): temp file in the same folder, fsync, rename."""
    with writer_lock(root):
        path = safe_file(root, relative)
        data = (jsonfmt.dumps(value, 2) + "\n").encode("utf-8", "surrogatepass")
        if len(data) > MAX_BYTES:
            raise MemError(TOO_BIG)
        temporary = safe_file(root, f"{relative}.{_uuid4()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        _fsync_dir(os.path.dirname(path))


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _stale_owner(lock_path: str) -> int | None:
    """The pid of a lock owner on this host that is no longer running."""
    try:
        with open(lock_path, "rb") as fh:
            owner = json.loads(fh.read(4096).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(owner, dict) or owner.get("hostname") != hostname():
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid
    except OSError:
        return None
    return None


@contextmanager
def writer_lock(root: str) -> Iterator[None]:
    """Hold ``.bmad/memory/writer.lock`` for the duration of the block.

    The file is created exclusively and holds ``{"pid","hostname","token"}``;
    on contention creation is retried for about two seconds. Only the owner
    removes it, and only while it still holds the owner's content. Re-entrant
    within one process.
    """
    root = os.path.abspath(root)
    if root in _held:
        yield
        return
    lock_path = safe_file(root, LOCK)
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    except OSError as exc:
        raise MemError(os_error_message(exc, "mkdir", os.path.dirname(lock_path))) from None
    owner = jsonfmt.dumps({"pid": os.getpid(), "hostname": hostname(), "token": _uuid4()})
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    checked_stale = False
    while True:
        try:
            fd = os.open(safe_file(root, LOCK), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            if not checked_stale:
                checked_stale = True
                pid = _stale_owner(lock_path)
                if pid is not None:
                    raise MemError(f"{LOCKED} (owner pid {pid} on this host is not running)") from None
            if time.monotonic() >= deadline:
                pid = _stale_owner(lock_path)
                suffix = f" (owner pid {pid} on this host is not running)" if pid is not None else ""
                raise MemError(LOCKED + suffix) from None
            time.sleep(LOCK_RETRY_SECONDS)
        except OSError as exc:
            raise MemError(os_error_message(exc, "open", lock_path)) from None
    try:
        try:
            _write_all(fd, owner.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        _held.add(root)
        yield
    finally:
        _held.discard(root)
        try:
            if read_text(root, LOCK, missing=True) == owner:
                os.unlink(lock_path)
        except (MemError, OSError):
            pass
