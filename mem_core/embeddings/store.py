"""The embedding index: the vector of each text recall ranks, in the user
cache, so that a text is embedded once.

It is a cache, never a second truth: delete it and the next hybrid recall
embeds again.

* **Where**: ``<cache>/embeddings/<project key>.sqlite`` (``<cache>`` as for
  the recall index, :mod:`mem_core.files.usercache`; the key is a SHA-1
  prefix of the project's real path). Never under ``.bmad/memory/``.
* **Exact**: a row is ``(model key, SHA-1 of the text's UTF-8, vector)``. A
  vector is found by the hash of the text as it is now, so a changed
  section, a new journal line or a new memory embeds only itself, and an
  edited text is never served its old vector. A row of the wrong size is
  dropped and embedded again.
* **Damaged**: a file SQLite cannot read is deleted and built again.
* **Bounded**: texts are embedded :data:`mem_core.embeddings.model.BATCH` at
  a time and each chunk of :data:`CHUNK` is committed, so an interrupted
  first build keeps what it did; rows no recall asked for are pruned once
  they outnumber the texts asked for (:data:`SLACK`).
* **Progress**: a build of at least :data:`PROGRESS_FROM` texts counts on
  stderr when stderr is a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from mem_core.embeddings.model import Embedder

__all__ = ["DIRECTORY", "EmbeddingIndex", "index_path"]

DIRECTORY = "embeddings"
#: texts embedded and committed at a time
CHUNK = 64
#: a build this large says how far it got (on a terminal)
PROGRESS_FROM = 64
#: rows kept beyond those asked for before a prune
SLACK = 1000
#: how long a reader waits for another process's write (then it embeds in memory)
BUSY_SECONDS = 10.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors ("
    "model TEXT NOT NULL, hash BLOB NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID"
)


def index_path(cache_dir: str | None, project: str) -> str:
    """The embedding index of ``project`` (module doc)."""
    from mem_core.files.usercache import cache_base, root_key

    return os.path.join(cache_base(cache_dir), DIRECTORY, root_key(os.path.realpath(project)) + ".sqlite")


_hashes: dict[str, bytes] = {}


def text_hash(text: str) -> bytes:
    """The SHA-1 of ``text``, remembered: a long-lived process hashes the
    same texts at every recall (a text's ``str`` hash is kept by Python)."""
    found = _hashes.get(text)
    if found is None:
        import hashlib

        if len(_hashes) >= 200_000:
            _hashes.clear()
        found = _hashes[text] = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()
    return found


# vectors read from a file, kept between recalls of a long-lived process
# (mem mcp): path -> model key -> hash -> vector
_memory: dict[str, dict[str, dict[bytes, Any]]] = {}


# the last matrix served per index and model, with its texts' hashes: a
# long-lived process ranks the same texts prompt after prompt
_last: dict[tuple[str, str], tuple[list[bytes], Any]] = {}


def _stacked(path: str, model: str, hashes: list[bytes], known: dict[bytes, Any]) -> Any:
    """The vectors of ``hashes``, a row each, in order (read-only: shared
    between recalls)."""
    last = _last.get((path, model))
    if last is not None and last[0] == hashes:
        return last[1]
    numpy = _numpy()
    if hashes:
        out = numpy.stack([known[digest] for digest in hashes])
    else:
        out = numpy.empty((0, next(iter(known.values())).shape[0] if known else 0), dtype=numpy.float32)
    out.setflags(write=False)
    _last[(path, model)] = (hashes, out)
    return out


class EmbeddingIndex:
    """The vectors of one project's texts for one embedder."""

    def __init__(self, path: str, embedder: Embedder) -> None:
        self.path = path
        self.embedder = embedder
        #: texts embedded by the last :meth:`vectors` (for benchmarks and tests)
        self.embedded = 0

    def _connect(self) -> Any:
        import sqlite3

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
        try:
            conn.execute(_SCHEMA)
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _open(self) -> Any:
        """A connection to a readable index: a damaged file is replaced."""
        import sqlite3

        try:
            conn = self._connect()
            conn.execute("SELECT count(*) FROM vectors WHERE model = ''").fetchone()
            return conn
        except sqlite3.OperationalError:
            raise  # busy, locked, unwritable: not damage, never a reason to delete the file
        except sqlite3.DatabaseError:
            _memory.pop(self.path, None)
            for suffix in ("", "-journal", "-wal", "-shm"):
                try:
                    os.unlink(self.path + suffix)
                except FileNotFoundError:
                    pass
            return self._connect()

    def vectors(self, texts: Sequence[str]) -> Any:
        """The vector of each of ``texts`` (a float32 array, a row each, in
        order), embedding only those the index lacks."""
        import sqlite3

        numpy = _numpy()
        model = self.embedder.key
        width = self.embedder.dimensions
        size = width * 4
        hashes = [text_hash(text) for text in texts]
        known = _memory.setdefault(self.path, {}).setdefault(model, {})
        wanted = {digest for digest in hashes if digest not in known}
        self.embedded = 0
        if not wanted:  # a long-lived process's next recall: nothing to read or write
            return _stacked(self.path, model, hashes, known)
        try:
            conn = self._open()
        except (sqlite3.Error, OSError):
            conn = None  # an unwritable cache: embed in memory, keep nothing
        try:
            if wanted and conn is not None:
                try:
                    rows = conn.execute("SELECT hash, vector FROM vectors WHERE model = ?", (model,))
                    bad = []
                    for digest, blob in rows:
                        if len(blob) != size:
                            bad.append(digest)
                        elif digest in wanted:
                            known[digest] = numpy.frombuffer(blob, dtype=numpy.float32)
                    if bad:
                        conn.executemany("DELETE FROM vectors WHERE model = ? AND hash = ?", [(model, d) for d in bad])
                        conn.commit()
                except sqlite3.Error:  # busy past the timeout: embed in memory this time
                    conn.close()
                    conn = None
                wanted.difference_update(known)
            if wanted:
                with self._building():
                    if conn is not None:  # what another process built while this one waited
                        try:
                            self._read(conn, wanted, known)
                        except sqlite3.Error:
                            conn.close()
                            conn = None
                    if wanted:
                        self._build(conn, texts, hashes, wanted, known)
            if conn is not None:
                self._prune(conn, set(hashes))
        finally:
            if conn is not None:
                conn.close()
        return _stacked(self.path, model, hashes, known)

    def _read(self, conn: Any, wanted: set[bytes], known: dict) -> None:
        numpy = _numpy()
        size = self.embedder.dimensions * 4
        for digest, blob in conn.execute("SELECT hash, vector FROM vectors WHERE model = ?", (self.embedder.key,)):
            if digest in wanted and len(blob) == size:
                known[digest] = numpy.frombuffer(blob, dtype=numpy.float32)
                wanted.discard(digest)

    def lacking(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` (distinct) have no vector yet."""
        import sqlite3

        known = _memory.get(self.path, {}).get(self.embedder.key, {})
        wanted = {text_hash(text) for text in texts}.difference(known)
        if not wanted:
            return 0
        try:
            conn = self._open()
        except (sqlite3.Error, OSError):
            return len(wanted)
        try:
            found = {
                digest for (digest,) in conn.execute("SELECT hash FROM vectors WHERE model = ?", (self.embedder.key,))
            }
        finally:
            conn.close()
        return len(wanted - found)

    def building(self) -> bool:
        """Whether another process is embedding into this index now, or
        was started to (:meth:`started`: it takes the lock only once its
        model is loaded)."""
        import fcntl

        try:
            with open(self.path + ".builder", encoding="ascii") as handle:
                os.kill(int(handle.read().strip() or "0"), 0)
            return True
        except (OSError, ValueError):
            pass  # no builder started, or it is gone
        try:
            fd = os.open(self.path + ".build", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # closing drops a lock taken here
        return False

    def started(self, pid: int) -> None:
        """Note that process ``pid`` was started to build this index."""
        temporary = f"{self.path}.builder.{os.getpid()}"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "w", encoding="ascii") as handle:
                handle.write(str(pid))
            os.replace(temporary, self.path + ".builder")
        except OSError:
            pass

    def _building(self) -> Any:
        """Held while embedding: one process builds, the others wait and read."""
        import contextlib
        import fcntl

        @contextlib.contextmanager
        def held() -> Any:
            try:
                os.makedirs(os.path.dirname(self.path), exist_ok=True)
                fd = os.open(self.path + ".build", os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:  # an unwritable cache: nobody to share the work with
                yield
                return
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

        return held()

    def _build(self, conn: Any, texts: Sequence[str], hashes: list[bytes], wanted: set[bytes], known: dict) -> None:
        import sqlite3

        todo: dict[bytes, str] = {}
        for text, digest in zip(texts, hashes, strict=True):
            if digest in wanted:
                todo.setdefault(digest, text)
        items = list(todo.items())
        total = len(items)
        show = total >= PROGRESS_FROM and sys.stderr.isatty()
        for start in range(0, total, CHUNK):
            chunk = items[start : start + CHUNK]
            found = self.embedder.embed([text for _, text in chunk])
            for (digest, _), vector in zip(chunk, found, strict=True):
                known[digest] = vector
            self.embedded += len(chunk)
            if conn is not None:
                try:
                    conn.executemany(
                        "INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)",
                        [
                            (self.embedder.key, digest, vector.tobytes())
                            for (digest, _), vector in zip(chunk, found, strict=True)
                        ],
                    )
                    conn.commit()
                except sqlite3.Error:
                    conn = None  # a full or read-only disk: keep embedding in memory
            if show:
                sys.stderr.write(f"\rmem: embedding texts for hybrid recall: {self.embedded}/{total}")
                sys.stderr.flush()
        if show:
            sys.stderr.write("\n")

    def _prune(self, conn: Any, kept: set[bytes]) -> None:
        import sqlite3

        try:
            (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
            if count <= len(kept) + SLACK:
                return
            stale = [(digest,) for (digest,) in conn.execute("SELECT hash FROM vectors") if digest not in kept]
            conn.executemany("DELETE FROM vectors WHERE hash = ?", stale)
            conn.commit()
        except sqlite3.Error:
            return
        memory = _memory.get(self.path, {})
        for vectors in memory.values():
            for (digest,) in stale:
                vectors.pop(digest, None)


def _numpy() -> Any:
    import numpy

    return numpy
