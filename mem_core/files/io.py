"""Bounded reads, fsynced appends and atomic replaces of project files
(docs/contract.md §8). Appends and replaces hold the writer lock
(:func:`mem_core.files.lock.writer_lock`, re-entrant, so a caller that holds
it already keeps it)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.paths import DISK_FULL, os_error_message, os_failure, safe_file
from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_BYTES",
    "NOT_REGULAR",
    "GREW",
    "NOT_UTF8",
    "FULL",
    "INCOMPLETE",
    "TOO_BIG",
    "DISK_FULL",
    "os_failure",
    "open_regular",
    "read_bytes",
    "check_appendable",
    "orphans",
    "old_files",
    "fsync_dir",
    "atomic_write",
    "remove_orphans",
    "read_text",
    "append_record",
    "write_json",
    "replace_bytes",
]

#: the size limit of every file of the store (2 MiB)
MAX_BYTES = 2 * 1024 * 1024

NOT_REGULAR = "Memory source must be a regular file of at most 2 MiB."
GREW = "Memory source exceeded 2 MiB while reading."
NOT_UTF8 = "Memory source must contain valid UTF-8."
FULL = "Memory store is full; archive it explicitly before adding records."
INCOMPLETE = "Memory store has an incomplete final line; inspect it before writing."
TOO_BIG = "Memory store exceeds 2 MiB."


_NOT_A_FILE = {errno.ENXIO, errno.EISDIR, errno.ELOOP, errno.EOPNOTSUPP, errno.ENODEV, errno.ETXTBSY}
#: an atomic write's temporary file: ``<name>.<uuid 4>.tmp``
_TEMPORARY = lazy(r"(.+)\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp")


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """Open ``path`` without ever blocking, and only if it is a regular file:
    a FIFO, socket, device or directory is refused with :data:`NOT_REGULAR`
    (``O_NONBLOCK``, then ``fstat``). Missing files raise ``FileNotFoundError``."""
    extra = os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno in _NOT_A_FILE:
            raise MemError(NOT_REGULAR) from None
        raise MemError(os_failure(exc, "open", path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise MemError(NOT_REGULAR)
        if flags & (os.O_WRONLY | os.O_RDWR) == 0:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: str, limit: int = MAX_BYTES) -> bytes | None:
    """The bytes of the regular file ``path`` (at most ``limit``: else
    :data:`NOT_REGULAR`, or :data:`GREW` when it grew while read); ``None``
    when there is no file. Never blocks on a FIFO."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    try:
        if os.fstat(fd).st_size > limit:
            raise MemError(NOT_REGULAR)
        chunks = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, limit + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise MemError(os_failure(exc, "read", path)) from None
    finally:
        os.close(fd)
    if total > limit:
        raise MemError(GREW)
    return b"".join(chunks)


def read_text(root: str, relative: str, *, missing: bool = False) -> str | None:
    """Read a project file under the safety rules; ``None`` for a missing file
    when ``missing`` is true."""
    data = read_file_bytes(root, relative, missing=missing)
    return None if data is None else decode_text(data)


def read_file_bytes(root: str, relative: str, *, missing: bool = False) -> bytes | None:
    """:func:`read_text`'s bytes, not decoded (see :func:`decode_text`)."""
    path = safe_file(root, relative)
    data = read_bytes(path)
    if data is None and not missing:
        raise MemError(os_error_message(FileNotFoundError(errno.ENOENT, "no such file"), "stat", path))
    return data


def decode_text(data: bytes) -> str:
    """A store file's text: strict UTF-8, else :data:`NOT_UTF8`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(NOT_UTF8) from None


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def check_appendable(root: str, relative: str, size: int) -> None:
    """Refuse, as :func:`append_record` would, an append of ``size`` bytes to
    ``relative``: not a regular file, not UTF-8, full, or an incomplete final
    line — so a caller can check before it changes anything else."""
    prior = read_text(root, relative, missing=True) or ""
    if len(prior.encode("utf-8", "surrogatepass")) + size > MAX_BYTES:
        raise MemError(FULL)
    if prior and not prior.endswith("\n"):
        raise MemError(INCOMPLETE)


def append_record(root: str, relative: str, record: Any) -> Any:
    """Append ``record`` as one compact JSON line, under the writer lock. An
    append that cannot be written whole (a full disk) is cut back to the
    file's previous length: never a torn line."""
    from mem_core.files.lock import writer_lock  # (reading imports neither the lock nor json)
    from mem_core.js import jsonfmt

    with writer_lock(root):
        path = safe_file(root, relative)
        line = (jsonfmt.dumps(record) + "\n").encode("utf-8", "surrogatepass")
        check_appendable(root, relative, len(line))
        try:
            fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except FileNotFoundError as exc:  # a parent vanished meanwhile
            raise MemError(os_error_message(exc, "open", path)) from None
        try:
            size = os.fstat(fd).st_size
            try:
                write_all(fd, line)
                os.fsync(fd)
            except OSError as exc:
                _cut_back(fd, size)
                raise MemError(os_failure(exc, "write", path)) from None
            except BaseException:
                _cut_back(fd, size)
                raise
        finally:
            os.close(fd)
    return record


def _cut_back(fd: int, size: int) -> None:
    """Undo a partial append: the file back to ``size`` bytes."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def write_json(root: str, relative: str, value: Any) -> bytes:
    """Replace a JSON file atomically (``JSON.stringify(value, null, 2)`` plus a
    final newline), under the writer lock; temporary files that killed
    writers left beside it are removed first. Returns the bytes written."""
    from mem_core.files.lock import writer_lock
    from mem_core.js import jsonfmt

    with writer_lock(root):
        safe_file(root, relative)  # an unsafe path is refused before the size is
        data = (jsonfmt.dumps(value, 2) + "\n").encode("utf-8", "surrogatepass")
        write_file(root, relative, data)
        return data


def write_file(root: str, relative: str, data: bytes | Sequence[bytes]) -> None:
    """Replace a project file atomically with ``data`` (bytes, or pieces
    written one after the other) as :func:`write_json` does: under the
    writer lock, refused over :data:`MAX_BYTES`, leftover temporary files
    removed first."""
    from mem_core.files.lock import writer_lock

    with writer_lock(root):
        path = safe_file(root, relative)
        if (len(data) if isinstance(data, bytes) else sum(map(len, data))) > MAX_BYTES:
            raise MemError(TOO_BIG)
        remove_orphans(os.path.dirname(path), os.path.basename(path))
        try:
            replace_bytes(root, relative, data)
        except OSError as exc:
            raise MemError(os_failure(exc, "write", path)) from None


def orphans(directory: str, name: str | None = None, *, older_than: float = 0.0) -> list[str]:
    """The temporary files of atomic writes in ``directory`` (of the file
    ``name`` only, when given), last changed more than ``older_than`` seconds ago."""

    def wanted(entry: str) -> bool:
        match = _TEMPORARY.fullmatch(entry)
        return match is not None and (name is None or match.group(1) == name)

    return old_files(directory, wanted, older_than=older_than)


def old_files(directory: str, wanted: Callable[[str], bool], *, older_than: float = 0.0) -> list[str]:
    """The regular files of ``directory`` whose names ``wanted`` accepts, last
    changed more than ``older_than`` seconds ago, sorted (none when the
    directory cannot be listed)."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    import time

    now = time.time()
    found = []
    for entry in entries:
        if not wanted(entry):
            continue
        path = os.path.join(directory, entry)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= older_than:
            found.append(path)
    return sorted(found)


def remove_orphans(directory: str, name: str | None = None, *, older_than: float = 0.0) -> list[str]:
    """Remove :func:`orphans` (the caller holds the writer lock); the paths removed."""
    removed = []
    for path in orphans(directory, name, older_than=older_than):
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def replace_bytes(root: str, relative: str, data: bytes | Sequence[bytes]) -> None:
    """Replace a project file atomically with ``data`` (bytes, or pieces
    written one after the other): a temporary file in the
    same folder, fsync, rename, fsync of the folder; the temporary file is
    removed when anything fails (an ``OSError`` is raised as it comes). A
    target that is not a regular file is refused (:data:`NOT_REGULAR`)."""
    from mem_core.files.lock import new_token

    path = safe_file(root, relative)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            raise MemError(NOT_REGULAR)
    _replace_via(safe_file(root, f"{relative}.{new_token()}.tmp"), path, [data] if isinstance(data, bytes) else data)


def atomic_write(path: str, data: bytes, *, mode: int | None = None) -> None:
    """``data`` into ``path`` (any path, e.g. an export file or an
    assistant's config), atomically: a temporary file beside it, fsynced,
    renamed over it, the directory fsynced; on failure the temporary file is
    removed and ``OSError`` raised. ``mode``: the file's permission bits
    (default: those of the file it replaces, else 0o644)."""
    directory = os.path.dirname(os.path.abspath(path))
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    _replace_via(temporary, path, [data], mode)


def _replace_via(temporary: str, path: str, pieces: Sequence[bytes], mode: int | None = None) -> None:
    """The one atomic replace: ``pieces`` written to the new file
    ``temporary`` (with permission bits ``mode``, else 0o666 less the umask),
    fsynced, renamed over ``path``, the directory fsynced; on failure the
    temporary file is removed and the error raised as it came."""
    fd = os.open(
        temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666 if mode is None else mode
    )
    try:
        try:
            for piece in pieces:
                write_all(fd, piece)
            if mode is not None:
                os.fchmod(fd, mode)  # what the umask took away
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
    fsync_dir(os.path.dirname(os.path.abspath(path)))


def fsync_dir(directory: str) -> None:
    """Make a rename or link in ``directory`` durable (best effort: a
    platform without directory descriptors is left as it is)."""
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
