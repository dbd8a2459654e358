"""One pattern's score changed in ``pattern-scores.json`` without decoding
and encoding the other 10 000, so that ``reinforce`` costs the same
whatever the number of patterns.

``reinforce`` writes ``JSON.stringify(scores, null, 2)`` plus a newline. When
the file on disk is, byte for byte, text that ``mem`` wrote itself, reading it
back and writing it again changes nothing but the one pattern's entry: that
entry can be replaced (or, for a new pattern, appended) in the text itself.
Whether the bytes are mem's own is what a *certificate* in the user cache
directory says — the SHA-256 of the bytes ``mem`` last wrote for the project.
It is never stale: any other writer (the Node tool, an editor, ``git
checkout``) changes the bytes, the digest no longer matches, and the whole
file is read, checked and written in full. Deleting the cache loses
nothing; an unwritable cache only costs the fast path.

In the canonical text every top-level key opens a line with exactly two
spaces (deeper lines have four or more, strings hold no raw newline), so
``\\n  "<key>": `` finds the entry and ``,\\n  "`` ends it. A pattern that
JavaScript orders or stores differently (an array index, a member of
``Object.prototype``) takes the whole-file path.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mem_core.js.jsonfmt import JSONError, dumps, is_array_index, loads

if TYPE_CHECKING:
    from typing import Any

__all__ = ["Certificate", "Entry", "find_entry"]

#: a file ``mem`` wrote: it opens with the first key's line and ends so
_HEAD = b'{\n  "'
_TAIL = b"\n}\n"
_NEXT = b',\n  "'


class Certificate:
    """The digest of the scores bytes ``mem`` last wrote for one project,
    kept in ``<cache>/scores/<project key>.sha256`` (:mod:`mem_core.files.usercache`)."""

    def __init__(self, path: str | None) -> None:
        self.path = path

    @classmethod
    def for_project(cls, root: str, cache_dir: str | None) -> Certificate:
        from mem_core.files.usercache import cache_base, root_key

        try:
            key = root_key(os.path.realpath(root))
            return cls(os.path.join(cache_base(cache_dir), "scores", key + ".sha256"))
        except Exception:  # no usable cache directory: the whole-file path
            return cls(None)

    def holds(self, data: bytes) -> bool:
        """Whether ``data`` are the bytes this certificate was written for."""
        if self.path is None:
            return False
        try:
            with open(self.path, "rb") as fh:
                stored = fh.read(128)
        except OSError:
            return False
        return stored == _digest(data)

    def record(self, data: bytes | list[bytes]) -> None:
        """Say that ``data`` (the bytes, or the pieces written one after
        the other) are mem's own bytes (best effort: a cache that cannot be
        written just keeps the next run on the whole-file path)."""
        if self.path is None:
            return
        directory = os.path.dirname(self.path)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            with open(temporary, "wb") as fh:
                fh.write(_digest(data))
            os.replace(temporary, self.path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass

    def drop(self) -> None:
        """Forget the certificate (before bytes it does not describe are written)."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass


def _digest(data: bytes | list[bytes]) -> bytes:
    import hashlib

    digest = hashlib.sha256()
    for piece in [data] if isinstance(data, bytes) else data:
        digest.update(piece)
    return digest.hexdigest().encode("ascii")


class Entry:
    """One pattern's place in the bytes of a canonical score file: ``stored``
    is ``{pattern: value}`` as the file holds it, or ``{}`` when it holds none."""

    __slots__ = ("_data", "_key", "_begin", "_end", "_present", "stored")

    def __init__(self, data: bytes, key: bytes, begin: int, end: int, stored: dict[str, Any]) -> None:
        self._data = data
        self._key = key
        self._begin = begin
        self._end = end
        self._present = bool(stored)
        self.stored = stored

    def pieces(self, value: Any) -> list[bytes]:
        """The file with the pattern's entry set to ``value`` — what writing
        the whole store again would give — as pieces to write one after the
        other (views of the old bytes: nothing of 2 MiB is copied)."""
        data, entry = memoryview(self._data), _entry(value)
        if not self._present:
            return [data[: -len(_TAIL)], b",\n  " + self._key + b": " + entry + _TAIL]  # type: ignore[list-item]
        return [data[: self._begin], entry, data[self._end :]]  # type: ignore[list-item]

    def replaced(self, value: Any) -> bytes:
        """:meth:`pieces`, joined."""
        return b"".join(self.pieces(value))


def find_entry(data: bytes, pattern: str, apart: frozenset[str]) -> Entry | None:
    """The entry of ``pattern`` in the bytes of a canonical score file;
    ``None`` when they are not of the shape this needs, or for a pattern
    JavaScript stores or orders apart (``apart``, an absent array index):
    the caller then reads and writes the whole file. UTF-8 never puts a
    byte of ``\\n``, a space or ``"`` inside another character, so the
    search in bytes finds what a search in the text would."""
    if not data.startswith(_HEAD) or not data.endswith(_TAIL) or pattern in apart:
        return None
    key = dumps(pattern).encode("utf-8", "surrogatepass")
    needle = b"\n  " + key + b": "
    start = data.find(needle)
    if start < 0:
        if is_array_index(pattern):  # V8 orders index keys first, not last
            return None
        return Entry(data, key, 0, 0, {})
    begin = start + len(needle)
    end = data.find(_NEXT, begin)
    if end < 0:
        end = len(data) - len(_TAIL)
    try:
        stored = loads(data[begin:end].decode("utf-8"))
    except (UnicodeDecodeError, JSONError):  # not mem's own after all: the whole-file path says why
        return None
    return Entry(data, key, begin, end, {pattern: stored})


def _entry(value: Any) -> bytes:
    """``value`` as ``JSON.stringify`` writes it one level deep at indent 2."""
    return dumps(value, 2).replace("\n", "\n  ").encode("utf-8", "surrogatepass")
