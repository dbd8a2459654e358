"""The ``.bmad/memory`` file protocol (docs/contract.md §8), shared with ``bmad-plus mem``:

* :mod:`~mem_core.files.layout` — where each file lives;
* :mod:`~mem_core.files.paths` — :func:`safe_file` (normalized, inside the
  project, no symbolic link) and Node's wording of a failed system call;
* :mod:`~mem_core.files.io` — bounded reads, fsynced appends, atomic replaces;
* :mod:`~mem_core.files.lock` — :func:`writer_lock`, exclusive across
  processes and threads, re-entrant per thread.

Every public name is re-exported here: ``from mem_core.files import read_text``.
The modules import nothing heavy, and the lock module (with :mod:`json`
and :mod:`contextlib`) is imported when one of its names is first asked
for: reading needs no lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.files.io import (
    DISK_FULL,
    FULL,
    GREW,
    INCOMPLETE,
    MAX_BYTES,
    NOT_REGULAR,
    NOT_UTF8,
    TOO_BIG,
    append_record,
    open_regular,
    read_text,
    write_json,
)
from mem_core.files.layout import (
    AGENTS_MEMORY_DIR,
    JOURNAL,
    LOCK,
    MEMORY_DIR,
    OUTCOMES,
    PATTERN_SCORES,
    PROMOTIONS,
)
from mem_core.files.paths import (
    ESCAPES,
    NOT_NORMALIZED,
    PARENT,
    SYMLINK,
    check_components,
    is_normalized_relative,
    os_error_message,
    safe_file,
)

if TYPE_CHECKING:
    from typing import Any

    from mem_core.files.lock import (
        LOCK_RETRY_SECONDS,
        LOCK_WAIT_SECONDS,
        LOCKED,
        hostname,
        new_token,
        writer_lock,
    )

__all__ = [
    # layout
    "MEMORY_DIR",
    "AGENTS_MEMORY_DIR",
    "JOURNAL",
    "PATTERN_SCORES",
    "PROMOTIONS",
    "OUTCOMES",
    "LOCK",
    # paths
    "safe_file",
    "is_normalized_relative",
    "check_components",
    "os_error_message",
    "NOT_NORMALIZED",
    "ESCAPES",
    "SYMLINK",
    "PARENT",
    # io
    "MAX_BYTES",
    "read_text",
    "open_regular",
    "DISK_FULL",
    "append_record",
    "write_json",
    "NOT_REGULAR",
    "GREW",
    "NOT_UTF8",
    "FULL",
    "INCOMPLETE",
    "TOO_BIG",
    # lock
    "writer_lock",
    "hostname",
    "new_token",
    "LOCKED",
    "LOCK_WAIT_SECONDS",
    "LOCK_RETRY_SECONDS",
]

#: the names of :mod:`mem_core.files.lock`, imported on first use
_LOCK_NAMES = frozenset({"writer_lock", "hostname", "new_token", "LOCKED", "LOCK_WAIT_SECONDS", "LOCK_RETRY_SECONDS"})


def __getattr__(name: str) -> Any:
    if name in _LOCK_NAMES:
        from mem_core.files import lock

        return getattr(lock, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
