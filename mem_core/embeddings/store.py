"""The embedding index: the vector of each text recall ranks, kept so that
a text is embedded once.

It is a cache, never a second truth: delete it and the next hybrid recall
embeds again.

* **Where**: ``<cache>/embeddings/<project key>.sqlite`` (``<cache>`` as for
  the recall index, :mod:`mem_core.files.usercache`; the key is a SHA-1
  prefix of the project's real path). Never under ``.bmad/memory/``. A
  structured-memory store may keep the vectors of its own memories itself
  (:meth:`mem_core.memories.interfaces.MemoryStore.vector_table`: the
  ``postgres`` store's ``mem_vectors`` table), shared by every machine that
  uses the store; the project's other texts stay in the user cache.
* **One logic, two tables**: the rows are behind :class:`VectorTable`;
  :class:`SqliteVectors` and a store's table differ only in their SQL and
  connection. What is read, dropped, embedded, written and pruned is
  decided here, once.
* **Exact**: a row is ``(model key, SHA-1 of the text's UTF-8, vector)``. A
  vector is found by the hash of the text as it is now, so a changed
  section, a new journal line or a new memory embeds only itself, and an
  edited text is never served its old vector. A row of the wrong size is
  dropped and embedded again.
* **Damaged**: a file SQLite cannot read is deleted and built again. A
  store's table that cannot be used (unreachable, an older schema, a role
  that cannot write) is said once on stderr, and the user cache's file
  keeps every text's vector, as for a store that keeps none.
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
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from typing import Any

    from mem_core.embeddings.model import Embedder

__all__ = ["DIRECTORY", "EmbeddingIndex", "SqliteVectors", "VectorTable", "index_path"]

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


# vectors read from a table, kept between recalls of a long-lived process
# (mem mcp): table key -> model key -> hash -> vector
_memory: dict[str, dict[str, dict[bytes, Any]]] = {}


# the last matrix served per index and model, with its texts' hashes: a
# long-lived process ranks the same texts prompt after prompt
_last: dict[tuple[str, str], tuple[list[bytes], Any]] = {}


def _stacked(path: str, model: str, hashes: list[bytes], known: dict[bytes, Any], width: int) -> Any:
    """The vectors of ``hashes``, a row each, in order (read-only: shared
    between recalls)."""
    last = _last.get((path, model))
    if last is not None and last[0] == hashes:
        return last[1]
    numpy = _numpy()
    if hashes:
        out = numpy.stack([known[digest] for digest in hashes])
    else:
        out = numpy.empty((0, width), dtype=numpy.float32)
    out.setflags(write=False)
    _last[(path, model)] = (hashes, out)
    return out


class VectorTable(Protocol):
    """Where an :class:`EmbeddingIndex` keeps its rows: a model key, the
    SHA-1 of a text, its float32 vector as bytes. The index decides what to
    read, drop, write and prune; a table only runs the statements.

    :meth:`open` may raise one of :attr:`errors` or ``OSError``, every other
    method but :meth:`close` one of :attr:`errors`: the index then goes on
    without the table (in memory, or, for a store's table, in the user
    cache's file). Writes commit before they return."""

    #: names the rows in this process's memory: equal keys, the same rows
    key: str

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """What a failure of this table raises."""
        ...

    def open(self) -> None:
        """Connect (a missing table is created, a damaged one rebuilt)."""
        ...

    def read(self, model: str, wanted: set[bytes]) -> Iterable[tuple[bytes, bytes]]:
        """``(hash, vector)`` of the rows of ``model``: those of ``wanted``
        at least."""
        ...

    def hashes(self, model: str, wanted: set[bytes]) -> Iterable[bytes]:
        """The hashes of the rows of ``model``: those of ``wanted`` at least."""
        ...

    def drop(self, model: str, hashes: list[bytes]) -> None:
        """Delete the rows of ``model`` of these hashes."""
        ...

    def write(self, model: str, rows: list[tuple[bytes, bytes]]) -> None:
        """Add or replace these ``(hash, vector)`` rows of ``model``; a row
        another process wrote meanwhile is no error."""
        ...

    def count(self) -> int:
        """How many rows, of every model."""
        ...

    def every_hash(self) -> Iterable[bytes]:
        """The hash of every row, of every model."""
        ...

    def prune(self, hashes: list[bytes]) -> None:
        """Delete the rows of these hashes, of every model."""
        ...

    def close(self) -> None:
        """Release the connection (never raises)."""
        ...


class SqliteVectors:
    """The rows in an SQLite file of the user cache (:func:`index_path`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.key = path
        self._conn: Any = None

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        import sqlite3

        return (sqlite3.Error,)

    def _connect(self) -> Any:
        import sqlite3

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
        try:
            conn.execute(_SCHEMA)
            conn.commit()
            conn.execute("SELECT count(*) FROM vectors WHERE model = ''").fetchone()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def open(self) -> None:
        """A readable file: a damaged one is replaced."""
        import sqlite3

        try:
            self._conn = self._connect()
        except sqlite3.OperationalError:
            raise  # busy, locked, unwritable: not damage, never a reason to delete the file
        except sqlite3.DatabaseError:
            _memory.pop(self.key, None)
            for suffix in ("", "-journal", "-wal", "-shm"):
                try:
                    os.unlink(self.path + suffix)
                except FileNotFoundError:
                    pass
            self._conn = self._connect()

    def read(self, model: str, wanted: set[bytes]) -> Iterable[tuple[bytes, bytes]]:
        # every row of the model: one scan costs less than a long IN list
        return self._conn.execute("SELECT hash, vector FROM vectors WHERE model = ?", (model,))  # type: ignore[no-any-return]

    def hashes(self, model: str, wanted: set[bytes]) -> Iterable[bytes]:
        return [digest for (digest,) in self._conn.execute("SELECT hash FROM vectors WHERE model = ?", (model,))]

    def drop(self, model: str, hashes: list[bytes]) -> None:
        self._conn.executemany("DELETE FROM vectors WHERE model = ? AND hash = ?", [(model, d) for d in hashes])
        self._conn.commit()

    def write(self, model: str, rows: list[tuple[bytes, bytes]]) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)",
            [(model, digest, vector) for digest, vector in rows],
        )
        self._conn.commit()

    def count(self) -> int:
        (count,) = self._conn.execute("SELECT count(*) FROM vectors").fetchone()
        return int(count)

    def every_hash(self) -> Iterable[bytes]:
        return [digest for (digest,) in self._conn.execute("SELECT hash FROM vectors")]

    def prune(self, hashes: list[bytes]) -> None:
        self._conn.executemany("DELETE FROM vectors WHERE hash = ?", [(digest,) for digest in hashes])
        self._conn.commit()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# tables whose failure was said on stderr (once a process each)
_reported: set[str] = set()


class EmbeddingIndex:
    """The vectors of one project's texts for one embedder: in the SQLite
    file ``path`` of the user cache, and, for the texts a structured-memory
    store keeps (``stored`` in :meth:`vectors`), in the store's ``table``
    when it has one. The build lock is beside ``path`` either way."""

    def __init__(self, path: str, embedder: Embedder, table: VectorTable | None = None) -> None:
        self.path = path
        self.embedder = embedder
        self.table = table
        #: texts embedded by the last :meth:`vectors` (for benchmarks and tests)
        self.embedded = 0

    def _parts(
        self, texts: Sequence[str], hashes: list[bytes], stored: Sequence[bool] | None
    ) -> list[tuple[VectorTable, Sequence[str], list[bytes]]]:
        """Each table with its texts and their hashes: the store's first."""
        cache = SqliteVectors(self.path)
        if self.table is None or stored is None or not any(stored):
            return [(cache, texts, hashes)]
        parts: list[tuple[VectorTable, Sequence[str], list[bytes]]] = []
        for table, side in ((self.table, True), (cache, False)):
            chosen = [n for n, flag in enumerate(stored) if bool(flag) is side]
            parts.append((table, [texts[n] for n in chosen], [hashes[n] for n in chosen]))
        return parts

    def _open(self, table: VectorTable) -> VectorTable | None:
        """``table``, connected; ``None`` when it cannot be used (the user
        cache's file: embed in memory, keep nothing; the store's table is
        said once on stderr, and the user cache keeps its texts' vectors)."""
        failures: tuple[type[Exception], ...] = (*table.errors, OSError)
        try:
            table.open()
            return table
        except failures as exc:
            if table is self.table and table.key not in _reported:
                _reported.add(table.key)
                message = getattr(exc, "message", None) or str(exc)
                sys.stderr.write(f"mem: {message}; the memories' vectors are kept in the user cache\n")
            return None

    def vectors(self, texts: Sequence[str], stored: Sequence[bool] | None = None) -> Any:
        """The vector of each of ``texts`` (a float32 array, a row each, in
        order), embedding only those the index lacks; ``stored``: which of
        them the store's table keeps (the others: the user cache)."""
        model = self.embedder.key
        hashes = [text_hash(text) for text in texts]
        self.embedded = 0
        parts = self._parts(texts, hashes, stored)
        if len(parts) == 2:
            table, some, digests = parts[0]
            known = self._filled(table, some, digests)
            if known is not None:
                found = {digest: known[digest] for digest in digests}
                cache, some, digests = parts[1]
                known = self._filled(cache, some, digests)
                assert known is not None  # the user cache's file is never given up
                found.update((digest, known[digest]) for digest in digests)
                return _stacked(self.path, model, hashes, found, self.embedder.dimensions)
            parts = [(SqliteVectors(self.path), texts, hashes)]  # as if the store kept none
        known = self._filled(*parts[0])
        assert known is not None
        return _stacked(self.path, model, hashes, known, self.embedder.dimensions)

    def _filled(self, table: VectorTable, texts: Sequence[str], hashes: list[bytes]) -> dict[bytes, Any] | None:
        """The vectors ``table`` holds in this process's memory, with one
        for each of ``hashes`` (read from the table, or embedded); ``None``:
        it is the store's table, and it cannot be used."""
        model = self.embedder.key
        known = _memory.setdefault(table.key, {}).setdefault(model, {})
        wanted = {digest for digest in hashes if digest not in known}
        if not wanted:  # a long-lived process's next recall: nothing to read or write
            return known
        opened = self._open(table)
        if opened is None and table is self.table:
            return None
        try:
            if opened is not None:
                try:
                    bad = self._read(opened, wanted, known)
                    if bad:
                        opened.drop(model, bad)
                except opened.errors:  # busy past the timeout: embed in memory this time
                    opened.close()
                    opened = None
            if wanted:
                with self._building():
                    if opened is not None:  # what another process built while this one waited
                        try:
                            self._read(opened, wanted, known)
                        except opened.errors:
                            opened.close()
                            opened = None
                    if wanted:
                        self._build(opened, texts, hashes, wanted, known)
            if opened is not None:
                self._prune(opened, set(hashes))
        finally:
            if opened is not None:
                opened.close()
        return known

    def _read(self, table: VectorTable, wanted: set[bytes], known: dict) -> list[bytes]:
        """Move the vectors of ``wanted`` that ``table`` holds into
        ``known``; the hashes of its rows of the wrong size (to drop)."""
        numpy = _numpy()
        size = self.embedder.dimensions * 4
        bad = []
        for digest, blob in table.read(self.embedder.key, wanted):
            if len(blob) != size:
                bad.append(digest)
            elif digest in wanted:
                known[digest] = numpy.frombuffer(blob, dtype=numpy.float32)
                wanted.discard(digest)
        return bad

    def lacking(self, texts: Sequence[str], stored: Sequence[bool] | None = None) -> int:
        """How many of ``texts`` (distinct in each table) have no vector yet."""
        model = self.embedder.key
        hashes = [text_hash(text) for text in texts]
        parts = self._parts(texts, hashes, stored)
        total = 0
        while parts:
            table, _, some = parts.pop(0)
            wanted = set(some).difference(_memory.get(table.key, {}).get(model, {}))
            if not wanted:
                continue
            opened = self._open(table)
            if opened is None and table is self.table:  # the user cache keeps them all
                return self.lacking(texts)
            if opened is None:
                total += len(wanted)
                continue
            try:
                wanted.difference_update(opened.hashes(model, wanted))
            except opened.errors:
                pass  # busy: counted as lacking
            finally:
                opened.close()
            total += len(wanted)
        return total

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

    def _build(
        self, table: VectorTable | None, texts: Sequence[str], hashes: list[bytes], wanted: set[bytes], known: dict
    ) -> None:
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
            if table is not None:
                try:
                    table.write(
                        self.embedder.key,
                        [(digest, vector.tobytes()) for (digest, _), vector in zip(chunk, found, strict=True)],
                    )
                except table.errors:
                    table = None  # a full or read-only disk: keep embedding in memory
            if show:
                sys.stderr.write(f"\rmem: embedding texts for hybrid recall: {self.embedded}/{total}")
                sys.stderr.flush()
        if show:
            sys.stderr.write("\n")

    def _prune(self, table: VectorTable, kept: set[bytes]) -> None:
        try:
            if table.count() <= len(kept) + SLACK:
                return
            stale = [digest for digest in table.every_hash() if digest not in kept]
            table.prune(stale)
        except table.errors:
            return
        memory = _memory.get(table.key, {})
        for vectors in memory.values():
            for digest in stale:
                vectors.pop(digest, None)


def _numpy() -> Any:
    import numpy

    return numpy
