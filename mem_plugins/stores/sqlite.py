"""Memory store ``sqlite`` (the default): one SQLite database file per store.

* **One file**, ``memories.sqlite3``, in the store's directory (the project's
  ``.bmad/memory/`` or the user-level data directory), in WAL mode so that
  readers never wait for a writer.
* **Concurrent processes**: every write runs in ``BEGIN IMMEDIATE`` (one
  writer at a time, the others wait up to :data:`BUSY_TIMEOUT_SECONDS`), and a
  read-then-write (store by key, verify, forget) happens inside it.
* **Full-text search**: an FTS5 index over key, content and tags, an
  external-content table kept in step by triggers in the same transaction.
  A second FTS5 index holds each memory's recall terms (mem-cli.md §1 tokens)
  so that ``mem recall`` reads only the memories that can match.
* **Signatures**: ``signatures`` keeps humans' signature rows (see
  :mod:`mem_core.memories.trust`); the ``verified`` and ``source`` columns
  are what was claimed when stored, never what a read believes.
* **History**: ``memory_history`` gets every version (create, update, verify,
  restore, delete tombstone) in the same transaction as the change; triggers make it
  append-only.
* **Schema versions**: ``PRAGMA user_version`` is the number of
  :data:`MIGRATIONS` applied; opening a store applies the missing ones, in
  order, in one transaction. A store from a newer ``mem`` is refused.

This module is imported when the plugins load, on every command: ``sqlite3``
is imported only when a store is opened.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from mem_core import hookimpl
from mem_core.errors import MemError
from mem_core.files import SYMLINK
from mem_core.plugin import MemoryStore

if TYPE_CHECKING:
    import sqlite3

    from mem_core.memories.records import MemoryFilter

__all__ = ["SqliteStore", "FILE", "MIGRATIONS", "SCHEMA_VERSION"]

#: the database file in the store's directory
FILE = "memories.sqlite3"
BUSY_TIMEOUT_SECONDS = 30.0

_COLUMNS = (
    "id, category, key, content, tags, priority, source, verified, confidence, "
    "expires_at, mind_id, created_at, updated_at"
)
_M_COLUMNS = ", ".join("m." + c.strip() for c in _COLUMNS.split(","))
_ORDER = (
    "CASE m.priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'normal' THEN 2 ELSE 3 END, "
    "m.updated_at DESC, m.category, m.key, m.mind_id"
)

_V1 = (
    """
    CREATE TABLE memories (
        n INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        mind_id TEXT NOT NULL,
        category TEXT NOT NULL CHECK (category IN
            ('identity', 'preference', 'fact', 'project', 'skill', 'mistake', 'context', 'note')),
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        tags TEXT NOT NULL,
        priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'critical')),
        source TEXT NOT NULL CHECK (source IN ('user', 'agent')),
        verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        expires_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (mind_id, category, key)
    )
    """,
    "CREATE INDEX memories_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL",
    """
    CREATE TABLE memory_tags (
        memory INTEGER NOT NULL REFERENCES memories (n) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, memory)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX memory_tags_memory ON memory_tags (memory)",
    """
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        key, content, tags,
        content = 'memories', content_rowid = 'n',
        tokenize = 'unicode61 remove_diacritics 2'
    )
    """,
    """
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, key, content, tags) VALUES (new.n, new.key, new.content, new.tags);
    END
    """,
    """
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, key, content, tags)
            VALUES ('delete', old.n, old.key, old.content, old.tags);
    END
    """,
    """
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF key, content, tags ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, key, content, tags)
            VALUES ('delete', old.n, old.key, old.content, old.tags);
        INSERT INTO memories_fts (rowid, key, content, tags) VALUES (new.n, new.key, new.content, new.tags);
    END
    """,
    """
    CREATE TABLE memory_history (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('create', 'update', 'verify', 'delete')),
        at TEXT NOT NULL,
        record TEXT NOT NULL
    )
    """,
    "CREATE INDEX memory_history_memory ON memory_history (memory_id, seq)",
    """
    CREATE TRIGGER memory_history_no_update BEFORE UPDATE ON memory_history BEGIN
        SELECT RAISE(ABORT, 'memory_history is append-only');
    END
    """,
    """
    CREATE TRIGGER memory_history_no_delete BEFORE DELETE ON memory_history BEGIN
        SELECT RAISE(ABORT, 'memory_history is append-only');
    END
    """,
)


def _migrate_1(conn: sqlite3.Connection) -> None:
    """Memories, their tags, the full-text index, the append-only history."""
    for statement in _V1:
        conn.execute(statement)


def _migrate_2(conn: sqlite3.Connection) -> None:
    """The recall-terms index (``memory_terms``, rowid = ``memories.n``),
    filled from the memories already stored."""
    conn.execute(
        "CREATE VIRTUAL TABLE memory_terms USING fts5 "
        "(terms, tokenize = \"unicode61 remove_diacritics 0 tokenchars '-_'\")"
    )
    for row in conn.execute(f"SELECT n, {_COLUMNS} FROM memories").fetchall():
        _write_terms(conn, row[0], _record(row[1:]))


def _migrate_3(conn: sqlite3.Connection) -> None:
    """The history also records ``restore`` (``mem memories restore``): the
    table is rebuilt with every row, seq and order kept, append-only again."""
    for statement in (
        "DROP TRIGGER memory_history_no_update",
        "DROP TRIGGER memory_history_no_delete",
        "ALTER TABLE memory_history RENAME TO memory_history_old",
        """
        CREATE TABLE memory_history (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('create', 'update', 'verify', 'restore', 'delete')),
            at TEXT NOT NULL,
            record TEXT NOT NULL
        )
        """,
        "INSERT INTO memory_history (seq, memory_id, action, at, record) "
        "SELECT seq, memory_id, action, at, record FROM memory_history_old ORDER BY seq",
        "DROP TABLE memory_history_old",
        *_V1[-3:],
    ):
        conn.execute(statement)


def _migrate_4(conn: sqlite3.Connection) -> None:
    """The full-text index rebuilt for searches that find what people type:
    English stems (``porter``: ``caching`` finds ``cache``) over the same
    accent-free words, and prefix indexes of 2 and 3 characters for prefix
    queries (``config`` finds ``configuration``). The triggers of step 1 keep
    it in step, by name."""
    conn.execute("DROP TABLE memories_fts")
    conn.execute(
        """
        CREATE VIRTUAL TABLE memories_fts USING fts5 (
            key, content, tags,
            content = 'memories', content_rowid = 'n',
            tokenize = 'porter unicode61 remove_diacritics 2',
            prefix = '2 3'
        )
        """
    )
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")


def _migrate_5(conn: sqlite3.Connection) -> None:
    """Humans' signatures (``signatures``, structured-memory.md, Trust); a
    memory verified before keeps that as a terminal confirmation (the only
    way to verify then) at its ``updated_at``."""
    from mem_core.memories.trust import terminal_signature

    conn.execute(
        """
        CREATE TABLE signatures (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL,
            by TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            verified_at TEXT NOT NULL,
            signature TEXT NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX signatures_memory ON signatures (memory_id, seq)")
    for row in conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE verified = 1").fetchall():
        record = _record(row)
        _insert_signature(conn, terminal_signature(record, record["updated_at"]))


def _insert_signature(conn: sqlite3.Connection, signature: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO signatures (memory_id, by, fingerprint, verified_at, signature) VALUES (?, ?, ?, ?, ?)",
        tuple(str(signature[name]) for name in _SIGNATURE_FIELDS),
    )


_SIGNATURE_FIELDS = ("memory_id", "by", "fingerprint", "verified_at", "signature")

#: ordered schema steps; ``PRAGMA user_version`` = how many are applied
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migrate_1,
    _migrate_2,
    _migrate_3,
    _migrate_4,
    _migrate_5,
)
SCHEMA_VERSION = len(MIGRATIONS)


def _record(row: tuple[Any, ...]) -> dict[str, Any]:
    (memory_id, category, key, content, tags, priority, source, verified, confidence, expires_at, mind_id,
     created_at, updated_at) = row  # fmt: skip
    return {
        "id": memory_id,
        "category": category,
        "key": key,
        "content": content,
        "tags": json.loads(tags),
        "priority": priority,
        "source": source,
        "verified": bool(verified),
        "confidence": float(confidence),
        "expires_at": expires_at,
        "mind_id": mind_id,
        "created_at": created_at,
        "updated_at": updated_at,
    }


def _row(record: dict[str, Any]) -> tuple[Any, ...]:
    return (
        record["id"],
        record["category"],
        record["key"],
        record["content"],
        json.dumps(record["tags"], ensure_ascii=False, separators=(",", ":")),
        record["priority"],
        record["source"],
        1 if record["verified"] else 0,
        float(record["confidence"]),
        record["expires_at"],
        record["mind_id"],
        record["created_at"],
        record["updated_at"],
    )


def _write_terms(conn: sqlite3.Connection, n: int, record: dict[str, Any]) -> None:
    from mem_core.memories.records import recall_terms

    conn.execute("DELETE FROM memory_terms WHERE rowid = ?", (n,))
    conn.execute("INSERT INTO memory_terms (rowid, terms) VALUES (?, ?)", (n, " ".join(recall_terms(record))))


def _fts_phrase(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _fts_match(phrase: tuple[str, ...]) -> str:
    """One word (from three letters also the start of longer words: ``co``
    would match half the store), or a phrase of several."""
    if len(phrase) > 1:
        return _fts_phrase(" ".join(phrase))
    return _fts_phrase(phrase[0]) + ("*" if len(phrase[0]) >= 3 else "")


class SqliteStore(MemoryStore):
    """The embedded default: one SQLite file, WAL, FTS5, append-only history."""

    name = "sqlite"
    help = "one SQLite file (WAL, FTS5) in the store's directory"

    def __init__(self, path: str, conn: sqlite3.Connection) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = conn
        self._in_transaction = False

    # -- opening ---------------------------------------------------------

    @classmethod
    def exists(cls, directory: str) -> bool:
        return os.path.isfile(os.path.join(directory, FILE))

    @classmethod
    def open(cls, directory: str, *, create: bool) -> SqliteStore:
        import sqlite3

        path = os.path.join(directory, FILE)
        for name in (FILE, FILE + "-wal", FILE + "-shm", FILE + "-journal"):
            if os.path.islink(os.path.join(directory, name)):
                raise MemError(SYMLINK)
        if not os.path.isfile(path):
            if not create:
                raise MemError(f"No memory store at {path}.")
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as exc:
                raise MemError(f"Cannot create the memory store directory {directory}: {exc.strerror}.") from None
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise _error(exc, path) from None
        store = cls(path, conn)
        try:
            with store._errors():
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only medium
                    raise MemError(f"Memory store {path} cannot use WAL mode (journal mode {mode}).")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
                store._migrate()
        except BaseException:
            conn.close()
            raise
        return store

    def _migrate(self) -> None:
        conn = self._connection()
        if self._user_version() == SCHEMA_VERSION:
            return
        with self.transaction():
            version = self._user_version()  # another process may have migrated meanwhile
            if version > SCHEMA_VERSION:
                raise MemError(
                    f"Memory store {self._path} has schema version {version}; this mem knows up to "
                    f"{SCHEMA_VERSION}. Upgrade mem to use it."
                )
            for step in MIGRATIONS[version:]:
                step(conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _user_version(self) -> int:
        return int(self._connection().execute("PRAGMA user_version").fetchone()[0])

    @property
    def location(self) -> str:
        return self._path

    @property
    def schema_version(self) -> int:
        """The schema version of the open database (``PRAGMA user_version``)."""
        with self._errors():
            return self._user_version()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the memory store is closed")
        return self._conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import sqlite3

        try:
            yield
        except sqlite3.Error as exc:
            raise _error(exc, self._path) from None

    # -- transactions ----------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_transaction:
            raise RuntimeError("a memory store transaction is already open")
        conn = self._connection()
        with self._errors():
            conn.execute("BEGIN IMMEDIATE")
        self._in_transaction = True
        try:
            yield
        except BaseException:
            self._in_transaction = False
            if conn.in_transaction:  # SQLite may already have rolled it back
                conn.execute("ROLLBACK")
            raise
        self._in_transaction = False
        try:
            with self._errors():
                conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _writing(self) -> sqlite3.Connection:
        if not self._in_transaction:
            raise RuntimeError("memory store writes must happen inside store.transaction()")
        return self._connection()

    # -- reads -----------------------------------------------------------

    def get(self, memory_id: str) -> dict[str, Any] | None:
        with self._errors():
            row = self._connection().execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return _record(row) if row else None

    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:
        with self._errors():
            row = (
                self._connection()
                .execute(
                    f"SELECT {_COLUMNS} FROM memories WHERE mind_id = ? AND category = ? AND key = ?",
                    (mind_id, category, key),
                )
                .fetchone()
            )
        return _record(row) if row else None

    def id_known(self, memory_id: str) -> bool:
        with self._errors():
            row = (
                self._connection()
                .execute(
                    "SELECT 1 FROM memories WHERE id = ? UNION ALL SELECT 1 FROM memory_history WHERE memory_id = ? LIMIT 1",
                    (memory_id, memory_id),
                )
                .fetchone()
            )
        return row is not None

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    "SELECT seq, memory_id, action, at, record FROM memory_history WHERE memory_id = ? ORDER BY seq",
                    (memory_id,),
                )
                .fetchall()
            )
        entries = []
        for seq, mid, action, at, record in rows:
            memory = json.loads(record)
            memory["confidence"] = float(memory["confidence"])  # JSON writes 1.0 as 1
            entries.append({"seq": seq, "memory_id": mid, "action": action, "at": at, "memory": memory})
        return entries

    def minds(self) -> list[tuple[str, int]]:
        with self._errors():
            rows = (
                self._connection()
                .execute("SELECT mind_id, count(*) FROM memories GROUP BY mind_id ORDER BY mind_id")
                .fetchall()
            )
        return [(mind, int(count)) for mind, count in rows]

    def known_ids(self) -> list[str]:
        with self._errors():
            rows = (
                self._connection()
                .execute("SELECT memory_id FROM memory_history GROUP BY memory_id ORDER BY min(seq)")
                .fetchall()
            )
        return [row[0] for row in rows]

    def _where(self, where: MemoryFilter) -> tuple[list[str], list[Any]]:
        from mem_core.memories.records import sql_conditions

        return sql_conditions(
            where,
            "?",
            tag_clause="EXISTS (SELECT 1 FROM memory_tags t WHERE t.tag = ? AND t.memory = m.n)",
            tag_value=str,
            verified_value=int,
        )

    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:
        conditions, params = self._where(where)
        sql = f"SELECT {_M_COLUMNS} FROM memories m"
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        order = ("m.expires_at, " if where.expires_before is not None else "") + _ORDER
        sql += f" ORDER BY {order} LIMIT ?"
        params.append(-1 if where.limit is None else where.limit)
        with self._errors():
            rows = self._connection().execute(sql, params).fetchall()
        return [_record(row) for row in rows]

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        from mem_core.plugin import search_words

        wanted = search_words(words)
        if not wanted:
            return []
        conditions, params = self._where(where)
        sql = (
            f"SELECT {_M_COLUMNS} FROM memories_fts JOIN memories m ON m.n = memories_fts.rowid "
            "WHERE memories_fts MATCH ?"
        )
        # any of the words; bm25() ranks those matching more, and rarer, words first
        params.insert(0, " OR ".join(_fts_match(phrase) for phrase in wanted))
        if conditions:
            sql += " AND " + " AND ".join(conditions)
        # key and tags weigh twice as much as content
        sql += f" ORDER BY bm25(memories_fts, 2.0, 1.0, 2.0), {_ORDER} LIMIT ?"
        params.append(-1 if where.limit is None else where.limit)
        with self._errors():
            rows = self._connection().execute(sql, params).fetchall()
        return [_record(row) for row in rows]

    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:
        if tokens is None:
            from mem_core.memories.records import MemoryFilter

            return self.query(MemoryFilter(now=now))
        if not tokens:
            return []
        sql = (
            f"SELECT {_M_COLUMNS} FROM memory_terms JOIN memories m ON m.n = memory_terms.rowid "
            "WHERE memory_terms MATCH ? AND (m.expires_at IS NULL OR m.expires_at > ?) "
            f"ORDER BY {_ORDER}"
        )
        match = " OR ".join(_fts_phrase(token) for token in tokens)
        with self._errors():
            rows = self._connection().execute(sql, (match, now)).fetchall()
        return [_record(row) for row in rows]

    def signatures(self, memory_id: str) -> list[dict[str, Any]]:
        return self.signatures_of([memory_id]).get(memory_id, [])

    def signatures_of(self, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        conn = self._connection()
        with self._errors():
            if len(memory_ids) > 200:  # one pass over the table beats a huge IN list
                wanted = set(memory_ids)
                rows = conn.execute(
                    "SELECT memory_id, by, fingerprint, verified_at, signature FROM signatures ORDER BY seq"
                ).fetchall()
                rows = [row for row in rows if row[0] in wanted]
            else:
                marks = ", ".join("?" * len(memory_ids))
                rows = conn.execute(
                    "SELECT memory_id, by, fingerprint, verified_at, signature FROM signatures "
                    f"WHERE memory_id IN ({marks}) ORDER BY seq",
                    memory_ids,
                ).fetchall()
        for row in rows:
            found.setdefault(row[0], []).append(dict(zip(_SIGNATURE_FIELDS, row, strict=True)))
        return found

    # -- writes ----------------------------------------------------------

    def add_signature(self, signature: dict[str, Any]) -> None:
        conn = self._writing()
        with self._errors():
            _insert_signature(conn, signature)

    def drop_signatures(self, memory_id: str) -> None:
        conn = self._writing()
        with self._errors():
            conn.execute("DELETE FROM signatures WHERE memory_id = ?", (memory_id,))

    def _log(self, conn: sqlite3.Connection, record: dict[str, Any], action: str, at: str) -> None:
        from mem_core.js.jsonfmt import dumps

        conn.execute(
            "INSERT INTO memory_history (memory_id, action, at, record) VALUES (?, ?, ?, ?)",
            (record["id"], action, at, dumps(record)),
        )

    def _write_tags(self, conn: sqlite3.Connection, n: int, tags: list[str]) -> None:
        conn.execute("DELETE FROM memory_tags WHERE memory = ?", (n,))
        conn.executemany("INSERT INTO memory_tags (memory, tag) VALUES (?, ?)", [(n, tag) for tag in tags])

    def insert(self, record: dict[str, Any], *, at: str, action: str = "create") -> None:
        conn = self._writing()
        with self._errors():
            self._add_row(conn, record)
            self._log(conn, record, action, at)

    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:
        conn = self._writing()
        with self._errors():
            found = conn.execute(
                "SELECT n FROM memories WHERE id = ? AND mind_id = ? AND category = ? AND key = ?",
                (record["id"], record["mind_id"], record["category"], record["key"]),
            ).fetchone()
            if found is None:
                raise MemError(f"No memory {record['id']} to update.")
            n = found[0]
            conn.execute(
                "UPDATE memories SET content = ?, tags = ?, priority = ?, source = ?, verified = ?, confidence = ?, "
                "expires_at = ?, created_at = ?, updated_at = ? WHERE n = ?",
                (*_row(record)[3:10], record["created_at"], record["updated_at"], n),
            )
            self._write_tags(conn, n, record["tags"])
            _write_terms(conn, n, record)
            self._log(conn, record, action, at)

    def _add_row(self, conn: sqlite3.Connection, record: dict[str, Any]) -> None:
        n = conn.execute(f"INSERT INTO memories ({_COLUMNS}) VALUES ({', '.join('?' * 13)})", _row(record)).lastrowid
        assert n is not None
        self._write_tags(conn, n, record["tags"])
        _write_terms(conn, n, record)

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        from mem_core.js.jsonfmt import dumps

        conn = self._writing()
        with self._errors():
            if not forgotten:
                self._add_row(conn, record)
            conn.executemany(
                "INSERT INTO memory_history (memory_id, action, at, record) VALUES (?, ?, ?, ?)",
                [(record["id"], e["action"], e["at"], dumps(e["memory"])) for e in history],
            )

    def delete(self, memory_id: str, *, at: str) -> None:
        conn = self._writing()
        with self._errors():
            row = conn.execute(f"SELECT n, {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                raise MemError(f"No memory {memory_id} to delete.")
            n, record = row[0], _record(row[1:])
            conn.execute("DELETE FROM memory_tags WHERE memory = ?", (n,))
            conn.execute("DELETE FROM memory_terms WHERE rowid = ?", (n,))
            conn.execute("DELETE FROM memories WHERE n = ?", (n,))
            conn.execute("DELETE FROM signatures WHERE memory_id = ?", (memory_id,))
            self._log(conn, record, "delete", at)


def _error(exc: Exception, path: str) -> MemError:
    """A one-line message for a SQLite failure."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return MemError(
            f"Memory store {path} stayed locked by another process for {BUSY_TIMEOUT_SECONDS:g} s; try again."
        )
    if "not a database" in text or "malformed" in text:
        return MemError(f"Memory store {path} is not a SQLite database or is damaged; inspect it before using it.")
    return MemError(f"Memory store {path}: {text.rstrip('.')}.")


@hookimpl
def mem_register_stores() -> list[type[MemoryStore]]:
    return [SqliteStore]
