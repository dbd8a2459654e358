"""Safe project paths (docs/contract.md §8): normalized, project-relative, inside the
project, and through no symbolic link; and Node's wording of a failed system call.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from typing import TypeGuard

__all__ = [
    "NOT_NORMALIZED",
    "ESCAPES",
    "SYMLINK",
    "PARENT",
    "safe_file",
    "is_normalized_relative",
    "check_components",
    "os_error_message",
    "os_failure",
    "DISK_FULL",
]

NOT_NORMALIZED = "Memory path must be a normalized project-relative path."
ESCAPES = "Memory path escapes project."
SYMLINK = "Memory paths cannot follow symbolic links or junctions."
PARENT = "Memory parent is not a directory."

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


DISK_FULL = "Memory store could not be written: the disk is full or over quota; nothing was changed."
_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def os_failure(exc: OSError, syscall: str, path: str) -> str:
    """The one-line message of a failed system call: :data:`DISK_FULL` for a
    full disk or quota, else Node's wording (``EACCES: permission denied, …``)."""
    if exc.errno in _FULL_ERRNOS:
        return DISK_FULL
    return os_error_message(exc, syscall, path)


def os_error_message(exc: OSError, syscall: str, path: str) -> str:
    """The message Node.js gives for a failed system call (``ENOENT: no such
    file or directory, stat '/p/x'``)."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    text = _ERRNO_TEXT.get(exc.errno or 0, (exc.strerror or "i/o error").lower())
    return f"{code}: {text}, {syscall} '{path}'"


def is_normalized_relative(relative: object) -> TypeGuard[str]:
    """Whether ``relative`` is a non-empty relative path with no ``:`` and no
    empty, ``.`` or ``..`` segment (split on ``/`` and ``\\``)."""
    return (
        isinstance(relative, str)
        and bool(relative)
        and ":" not in relative
        and not relative.startswith("/")
        and not any(p in ("", ".", "..") for p in relative.replace("\\", "/").split("/"))
    )


def check_components(
    target: str, symlink: str, parent: str, not_regular: str | None = None, *, below: str | None = None
) -> None:
    """Refuse an absolute ``target`` if any existing component of it, from the
    filesystem root down (or only those below the directory ``below``), is a
    symbolic link (``symlink``; ``below`` itself included), or an existing parent is not a directory
    (``parent``) — or, when ``not_regular`` is given, an existing target is
    not a regular file. Each message may name the component with ``{path}``;
    a failed ``lstat`` gets Node's message."""
    current = os.sep
    parts = target.split(os.sep)[1:]
    if below is not None:
        below = below.rstrip(os.sep) or os.sep
        try:
            st = os.lstat(below)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise MemError(os_error_message(exc, "lstat", below)) from None
        if stat.S_ISLNK(st.st_mode):  # the project directory itself is checked too
            raise MemError(symlink.replace("{path}", below))
        if not stat.S_ISDIR(st.st_mode):
            raise MemError(parent.replace("{path}", below))
        current = below
        parts = parts[len(below.split(os.sep)) - 1 :] if below != os.sep else parts
    for part in parts:
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return  # nothing below a missing component exists either
        except OSError as exc:
            raise MemError(os_error_message(exc, "lstat", current)) from None
        if stat.S_ISLNK(st.st_mode):
            raise MemError(symlink.replace("{path}", current))
        if current == target:
            if not_regular is not None and not stat.S_ISREG(st.st_mode):
                raise MemError(not_regular.replace("{path}", current))
        elif not stat.S_ISDIR(st.st_mode):
            raise MemError(parent.replace("{path}", current))


def safe_file(root: str, relative: object) -> str:
    """The absolute path of ``relative`` inside the project ``root``, refusing
    anything that is not a normalized project-relative path or that would pass
    through a symbolic link."""
    root = os.path.abspath(root)
    if not is_normalized_relative(relative):
        raise MemError(NOT_NORMALIZED)
    target = os.path.normpath(os.path.join(root, relative))
    if not target.startswith(root.rstrip(os.sep) + os.sep):
        raise MemError(ESCAPES)
    # (improve, v0.2) from the project directory down: the folders above it
    # are the user's choice and may be links (macOS /tmp, a linked home)
    check_components(target, SYMLINK, PARENT, below=root)
    return target
