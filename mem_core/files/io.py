"""Bounded reads, fsynced appends and atomic replaces of project files
(mem-cli.md §8). Appends and replaces hold the writer lock
(:func:`mem_core.files.lock.writer_lock`, re-entrant, so a caller that holds
it already keeps it)."""

from __future__ import annotations

import os
import stat
from typing import Any

from mem_core.errors import MemError
from mem_core.files.lock import new_token, writer_lock
from mem_core.files.paths import os_error_message, safe_file
from mem_core.js import jsonfmt

__all__ = [
    "MAX_BYTES",
    "NOT_REGULAR",
    "GREW",
    "NOT_UTF8",
    "FULL",
    "INCOMPLETE",
    "TOO_BIG",
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


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
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
            write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
    return record


def write_json(root: str, relative: str, value: Any) -> None:
    """Replace a JSON file atomically (``JSON.stringify(value, null, 2)`` plus a
    final newline), under the writer lock."""
    with writer_lock(root):
        safe_file(root, relative)  # an unsafe path is refused before the size is
        data = (jsonfmt.dumps(value, 2) + "\n").encode("utf-8", "surrogatepass")
        if len(data) > MAX_BYTES:
            raise MemError(TOO_BIG)
        replace_bytes(root, relative, data)


def replace_bytes(root: str, relative: str, data: bytes) -> None:
    """Replace a project file atomically with ``data``: a temporary file in the
    same folder, fsync, rename, fsync of the folder; the temporary file is
    removed when anything fails (an ``OSError`` is raised as it comes)."""
    path = safe_file(root, relative)
    temporary = safe_file(root, f"{relative}.{new_token()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            write_all(fd, data)
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
