"""A kernel's cache of what was built from project files, never stale.

A long-lived process (``mem mcp``) answers many recalls from one kernel;
re-reading and re-parsing a 2 MiB journal for each of them costs far more
than the answer. :class:`FileCache` keeps, per file and per builder, what
``build(text)`` made of the file the last time, and serves it again as long
as the file is provably the same:

* every call applies the store's safety rules again (no symbolic link on the
  way, a regular file of at most 2 MiB of UTF-8), exactly as
  :func:`mem_core.files.read_text` does, with the same errors;
* the file's identity — device, inode, size, ``mtime_ns`` and ``ctime_ns`` —
  must be what it was when the file was read. ``ctime`` cannot be set by a
  program: any write, rename over, ``chmod`` or ``utime`` moves it, so a
  rewrite of the same size with a faked ``mtime`` is seen;
* file timestamps are coarse (a clock tick of 1-10 ms on Linux, 1-2 s on
  some file systems), so a file changed twice within one tick could keep its
  identity. An entry whose file changed less than a *racy window* before it
  was read is *racy* (git's "racily clean" index entries): it keeps the
  file's bytes, and each use re-reads the file and compares them, until the
  file has been quiet long enough. Only a settled entry is served without
  reading. The window is ``racy_seconds`` (2 s), or ``fine_racy_seconds``
  (0.1 s, ten Linux clock ticks) when both timestamps show a fraction of a
  second — a file system that keeps whole seconds only never does. (A
  system clock stepped backwards by more than the window could fool it;
  nothing else can.)

Memory is bounded: entries are dropped least recently used first once the
file bytes they stand for (the file's size, plus the bytes a racy entry
keeps) exceed ``max_bytes``. A file larger than that is built and not kept.
Thread-safe: the table is guarded by one lock, held only to look up and
store; building happens outside it (two threads missing at once may both
build, and the later one is kept — each value matches the identity it was
stored with).

What is cached is shared by every caller: a builder returns values that
nobody changes afterwards (read-only by contract).
"""

from __future__ import annotations

import _thread  # threading's locks without importing threading (start-up)
import os
import stat
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.io import GREW, MAX_BYTES, NOT_REGULAR, NOT_UTF8, open_regular
from mem_core.files.paths import os_error_message, safe_file

__all__ = ["FileCache", "DEFAULT_CACHE_BYTES", "RACY_SECONDS", "FINE_RACY_SECONDS", "identity"]

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

#: default bound of a kernel's cache, in file bytes (8 full journals)
DEFAULT_CACHE_BYTES = 16 * 1024 * 1024
#: how long after its last change a file is trusted by its identity alone
RACY_SECONDS = 2.0
#: the same, on a file system whose timestamps have sub-second precision
FINE_RACY_SECONDS = 0.1


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What must not change for a cached value to stay valid."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class _Entry:
    __slots__ = ("identity", "value", "data", "cost")

    def __init__(self, ident: tuple[int, ...], value: Any, data: bytes | None) -> None:
        self.identity = ident
        self.value = value
        #: the file's bytes while the entry is racy, else None
        self.data = data
        self.cost = ident[2] + (len(data) if data is not None else 0)


class FileCache:
    """What builders made of project files, per file identity (see the module).

    ``clock`` returns the wall-clock time in nanoseconds (the clock file
    timestamps come from); tests may pass their own.
    """

    def __init__(
        self,
        max_bytes: int = DEFAULT_CACHE_BYTES,
        *,
        racy_seconds: float = RACY_SECONDS,
        fine_racy_seconds: float = FINE_RACY_SECONDS,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self.max_bytes = max_bytes
        self._racy_ns = int(racy_seconds * 1_000_000_000)
        self._fine_racy_ns = int(fine_racy_seconds * 1_000_000_000)
        self._clock = clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = _thread.allocate_lock()
        #: counters, for tests and benchmarks: hits without reading, racy
        #: re-reads that found the same bytes, builds
        self.hits = 0
        self.verified = 0
        self.builds = 0

    @property
    def size(self) -> int:
        """The file bytes the cache holds entries for."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def load(self, root: str, relative: str, build: Callable[..., T], *args: Hashable) -> T | None:
        """What ``build(text, *args)`` makes of the text of ``root/relative``
        — from the cache when the file is unchanged; ``None`` when the file
        does not exist. Unsafe files raise ``MemError`` with the messages of
        :func:`mem_core.files.read_text`. ``build`` should be a module-level
        function or class (it is part of the key) and ``args`` hashable."""
        path = safe_file(root, relative)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise MemError(os_error_message(exc, "stat", path)) from None
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            raise MemError(NOT_REGULAR)
        key = (path, build, args)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                if entry.data is None and entry.identity == identity(st):
                    self.hits += 1
                    return entry.value  # type: ignore[no-any-return]
        started = self._clock()
        try:
            with os.fdopen(open_regular(path), "rb") as fh:  # a FIFO swapped in never blocks
                ident = identity(os.fstat(fh.fileno()))
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise MemError(os_error_message(exc, "open", path)) from None
        if len(data) > MAX_BYTES:
            raise MemError(GREW)
        if entry is not None and entry.data is not None and entry.identity == ident and entry.data == data:
            value = entry.value
            with self._lock:
                self.verified += 1
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise MemError(NOT_UTF8) from None
            value = build(text, *args)
            with self._lock:
                self.builds += 1
        settled = max(ident[3], ident[4]) < started - self._window(ident[3], ident[4])
        self._store(key, _Entry(ident, value, None if settled else data))
        return value

    def _window(self, mtime_ns: int, ctime_ns: int) -> int:
        """The racy window for a file with these timestamps."""
        if mtime_ns % 1_000_000_000 and ctime_ns % 1_000_000_000:
            return self._fine_racy_ns
        return self._racy_ns

    def _store(self, key: Hashable, entry: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.cost
            if entry.cost > self.max_bytes:
                return
            self._entries[key] = entry
            self._bytes += entry.cost
            while self._bytes > self.max_bytes:
                _key, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.cost
