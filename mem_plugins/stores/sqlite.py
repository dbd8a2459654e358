"""Memory store ``sqlite`` (the default): one SQLite database file per store.

* **One file**, ``memories.sqlite3``, in the store's directory (the project's
  ``.bmad/memory/`` or the user-level data directory), in WAL mode so that
  readers never wait for a writer.
* **Concurrent processes**: every write runs in ``BEGIN IMMEDIATE`` (one
  writer at a time, the others wait up to :data:`BUSY_TIMEOUT_SECONDS`), and a
  read-then-write (store by key, verify, forget) happens inside it.
* **Full-text search**: an FTS5 index over key, content and tags, an
  external-content table kept in step by triggers in the same transaction.
  A second FTS5 index holds each memory's recall terms (docs/contract.md §1 tokens)
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

This module is imported when the store plugins load: ``sqlite3`` is imported
only when a store is opened.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mem_core.plugin import (
    HISTORY_ACTIONS,
    M_MEMORY_COLUMNS,
    MEMORY_CATEGORIES,
    MEMORY_COLUMNS,
    MEMORY_PRIORITIES,
    MEMORY_SOURCES,
    SIGNATURE_COLUMNS,
    SQLITE_FILE,
    SYMLINK,
    MemError,
    SqlStore,
    TryAgain,
    sql_in,
    sql_priority_rank,
    sqlite_store_at,
)

if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from mem_core.plugin import MemoryFilter

__all__ = ["SqliteStore", "FILE", "MIGRATIONS", "SCHEMA_VERSION"]

#: the database file in the store's directory
FILE = SQLITE_FILE
BUSY_TIMEOUT_SECONDS = 30.0

_ORDER = f"{sql_priority_rank('m.priority')}, m.updated_at DESC, m.category, m.key, m.mind_id"
#: the same order as index columns (:func:`_migrate_6`; SQLite matches the expressions)
_ORDER_KEY = f"({sql_priority_rank('priority')}), updated_at DESC, category, key"

_V1 = (
    f"""
    CREATE TABLE memories (
        n INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        mind_id TEXT NOT NULL,
        category TEXT NOT NULL CHECK (category IN
            {sql_in(MEMORY_CATEGORIES)}),
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        tags TEXT NOT NULL,
        priority TEXT NOT NULL CHECK (priority IN {sql_in(MEMORY_PRIORITIES[::-1])}),
        source TEXT NOT NULL CHECK (source IN {sql_in(MEMORY_SOURCES)}),
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
    for row in conn.execute(f"SELECT n, {MEMORY_COLUMNS} FROM memories").fetchall():
        _write_terms(conn, row[0], SqliteStore.record(row[1:]))


def _migrate_3(conn: sqlite3.Connection) -> None:
    """The history also records ``restore`` (``mem memories restore``): the
    table is rebuilt with every row, seq and order kept, append-only again."""
    for statement in (
        "DROP TRIGGER memory_history_no_update",
        "DROP TRIGGER memory_history_no_delete",
        "ALTER TABLE memory_history RENAME TO memory_history_old",
        f"""
        CREATE TABLE memory_history (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN {sql_in(HISTORY_ACTIONS)}),
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
    from mem_core.plugin import terminal_signature

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
    for row in conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE verified = 1").fetchall():
        record = SqliteStore.record(row)
        _insert_signature(conn, terminal_signature(record, record["updated_at"]))


def _insert_signature(conn: sqlite3.Connection, signature: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO signatures (memory_id, by, fingerprint, verified_at, signature) VALUES (?, ?, ?, ?, ?)",
        tuple(str(signature[name]) for name in SIGNATURE_COLUMNS),
    )


def _signatures_before_step_5(store: SqliteStore, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What a reader of a database from before the signatures table reads:
    the terminal rows :func:`_migrate_5` will write (a verified memory was
    confirmed at a terminal then), computed, nothing written."""
    from mem_core.plugin import terminal_signature

    wanted = set(memory_ids)
    with store._errors():
        rows = store._connection().execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE verified = 1").fetchall()
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        record = SqliteStore.record(row)
        if record["id"] in wanted:
            found[record["id"]] = [terminal_signature(record, record["updated_at"])]
    return found


def _migrate_6(conn: sqlite3.Connection) -> None:
    """An index in the listing's order within a mind (:data:`_ORDER`), with
    ``expires_at``: ``mem context`` and ``mem memories --limit`` read their
    first rows in order without sorting the store; and one on (mind,
    expiry) to count within a mind."""
    conn.execute(f"CREATE INDEX IF NOT EXISTS memories_order ON memories (mind_id, {_ORDER_KEY}, expires_at)")
    # and a narrow one to count a mind's memories, and its expired ones, from the index alone
    conn.execute("CREATE INDEX IF NOT EXISTS memories_mind_expiry ON memories (mind_id, expires_at)")


#: ordered schema steps; ``PRAGMA user_version`` = how many are applied
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migrate_1,
    _migrate_2,
    _migrate_3,
    _migrate_4,
    _migrate_5,
    _migrate_6,
)
SCHEMA_VERSION = len(MIGRATIONS)


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
    from mem_core.plugin import recall_terms

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


class SqliteStore(SqlStore):
    """The embedded default: one SQLite file, WAL, FTS5, append-only history."""

    name = "sqlite"
    help = "one SQLite file (WAL, FTS5) in the store's directory"

    ORDER = _ORDER
    TAG_CLAUSE = "EXISTS (SELECT 1 FROM memory_tags t WHERE t.tag = ? AND t.memory = m.n)"

    @staticmethod
    def _verified_value(verified: bool) -> int:
        return int(verified)

    @staticmethod
    def _tags(value: Any) -> list[str]:
        tags: list[str] = json.loads(value)  # a JSON array of text
        return tags

    def __init__(self, path: str, conn: sqlite3.Connection) -> None:
        self._path = path
        self._conn = conn
        #: the schema version of the open database
        self._version = SCHEMA_VERSION

    # -- opening ---------------------------------------------------------

    @classmethod
    def exists(cls, directory: str) -> bool:
        return sqlite_store_at(directory)

    @classmethod
    def open(cls, directory: str, *, create: bool) -> SqliteStore:
        import sqlite3

        path = os.path.join(directory, FILE)
        found = _examine(directory)
        if found is None:
            if not create:
                raise MemError(f"No memory store at {path}.")
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as exc:
                raise MemError(f"Cannot create the memory store directory {directory}: {exc.strerror}.") from None
        else:  # refused before anything is opened for writing
            _check(_probe(path, *found)[0], path, create=create)
        try:
            conn = sqlite3.connect(
                _uri(path, mode="rw" if found else "rwc"), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, uri=True
            )
        except sqlite3.Error as exc:
            raise _error(exc, path) from None
        store = cls(path, conn)
        try:
            with store._errors():
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
                # only a database that is mem's own (or holds nothing) is
                # switched to WAL and migrated
                _check(_identify(conn), path, create=create)
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":  # pragma: no cover - e.g. a read-only medium
                    raise MemError(f"Memory store {path} cannot use WAL mode (journal mode {mode}).")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
                store._migrate(create)
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    def open_read_only(cls, directory: str) -> SqliteStore:
        """See :meth:`MemoryStore.open_read_only`. The file is examined
        before SQLite opens it (a non-regular file, an empty file, a file
        that is not SQLite, a ``user_version`` of 0 are refused without
        touching anything); its tables are then read through a connection
        that cannot write (``mode=ro``; ``immutable=1`` when no ``-wal``
        file exists, so that a refused database does not even get SQLite's
        ``-wal``/``-shm`` files), and the memories through ``mode=ro``.

        ``immutable=1`` for the memories themselves only when ``mode=ro``
        cannot open them (a read-only directory where the ``-wal``/``-shm``
        files cannot be made) and no ``-wal`` file exists: SQLite then reads
        the main file without locks, which is safe because no writer can
        work on a WAL database in a directory where its ``-wal`` file cannot
        be created, and with no ``-wal`` file every commit is in the main
        file. (A directory that is read-only for this user but writable for
        another one who writes at the same moment could give one read a
        torn view; it changes nothing on disk.)"""
        import sqlite3

        path = os.path.join(directory, FILE)
        found = _examine(directory)
        if found is None:
            raise MemError(f"No memory store at {path}.")
        kind, wal = found
        identity, conn = _probe(path, kind, wal, keep=True)
        _check(identity, path, create=False)
        try:
            if conn is None:
                conn = _reader(path, immutable=False)
        except sqlite3.Error as exc:
            if wal is not None or "unable to open" not in str(exc):
                raise _error(exc, path) from None
            try:  # a read-only directory: see the docstring
                conn = _reader(path, immutable=True)
            except sqlite3.Error as again:
                raise _error(again, path) from None
        store = cls(path, conn)
        store._read_only = True
        store._version = identity[1]
        return store

    def _migrate(self, create: bool) -> None:
        conn = self._connection()
        version = self._user_version()
        if version == SCHEMA_VERSION:
            self._version = version
            return
        with self.transaction():
            # another process may have changed it meanwhile
            _check(_identify(conn), self._path, create=create)
            version = self._user_version()
            for step in MIGRATIONS[version:]:
                step(conn)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._version = SCHEMA_VERSION

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
        conn = self._starting_transaction()
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

    # -- reads -----------------------------------------------------------

    def _rows(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        with self._errors():
            return self._connection().execute(sql, params).fetchall()

    def count(self, where: MemoryFilter) -> int:
        if (
            where.mind_id is not None
            and not where.include_expired
            and where.expires_before is None
            and where.category is None
            and where.tag is None
            and where.source is None
            and where.verified is None
            and where.priority is None
        ):  # a mind's unexpired memories (mem context): all of them less the expired, both counted in the index
            sql = (
                "SELECT (SELECT count(*) FROM memories WHERE mind_id = ?) - (SELECT count(*) FROM memories "
                "WHERE mind_id = ? AND expires_at IS NOT NULL AND expires_at <= ?)"
            )
            with self._errors():
                return int(self._connection().execute(sql, (where.mind_id, where.mind_id, where.now)).fetchone()[0])
        return super().count(where)

    def iter_query(self, where: MemoryFilter) -> Iterator[dict[str, Any]]:
        sql, params = self._query_sql(where)
        from mem_core.plugin import fetched_rows

        with self._errors():
            cursor = self._connection().execute(sql, params)
        try:
            for row in fetched_rows(cursor, self._errors):
                yield self.record(row)
        finally:
            cursor.close()

    def signed(self, where: MemoryFilter) -> list[dict[str, Any]]:
        if self._version < 5:  # read-only, not yet migrated: the signatures are elsewhere
            return super().signed(where)
        conditions, params = self._where(where)
        # driven by the signatures (usually few), not by the memories
        sql = (
            f"SELECT {M_MEMORY_COLUMNS} FROM (SELECT DISTINCT memory_id FROM signatures) s "
            "CROSS JOIN memories m ON m.id = s.memory_id"
        )
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        sql += f" ORDER BY {_ORDER}"
        return [self.record(row) for row in self._rows(sql, params)]

    def search_count(self, words: list[str], where: MemoryFilter) -> int:
        sql, params = self._search_sql(words, where, "count(*)")
        if not sql:
            return 0
        with self._errors():
            return int(self._connection().execute(sql, params).fetchone()[0])

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A read transaction: in WAL mode, one snapshot for every read in it."""
        conn = self._connection()
        if self._in_transaction or conn.in_transaction:
            yield
            return
        with self._errors():
            conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def _search_sql(self, words: list[str], where: MemoryFilter, columns: str) -> tuple[str, list[Any]]:
        """The full-text query of ``words`` selecting ``columns`` (``""``: no
        word to look for); ordered and cut unless it counts."""
        from mem_core.plugin import search_words

        wanted = search_words(words)
        if not wanted:
            return "", []
        conditions, params = self._where(where)
        sql = (
            # CROSS JOIN: the full-text index drives (to count, SQLite would probe it once per memory of the mind)
            f"SELECT {columns} FROM memories_fts CROSS JOIN memories m ON m.n = memories_fts.rowid "
            "WHERE memories_fts MATCH ?"
        )
        # any of the words; bm25() ranks those matching more, and rarer, words first
        params.insert(0, " OR ".join(_fts_match(phrase) for phrase in wanted))
        if conditions:
            sql += " AND " + " AND ".join(conditions)
        if columns != "count(*)":
            # key and tags weigh twice as much as content
            sql += f" ORDER BY bm25(memories_fts, 2.0, 1.0, 2.0), {_ORDER} LIMIT ?"
            params.append(-1 if where.limit is None else where.limit)
        return sql, params

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        sql, params = self._search_sql(words, where, M_MEMORY_COLUMNS)
        if not sql:
            return []
        return [self.record(row) for row in self._rows(sql, params)]

    def _matching(self, tokens: list[str], now: str) -> list[dict[str, Any]]:
        if self._version < 2:  # read-only, not yet migrated: no terms index, every memory
            from mem_core.plugin import MemoryFilter

            return self.query(MemoryFilter(now=now))
        sql = (
            f"SELECT {M_MEMORY_COLUMNS} FROM memory_terms JOIN memories m ON m.n = memory_terms.rowid "
            "WHERE memory_terms MATCH ? AND (m.expires_at IS NULL OR m.expires_at > ?) "
            f"ORDER BY {_ORDER}"
        )
        match = " OR ".join(_fts_phrase(token) for token in tokens)
        return [self.record(row) for row in self._rows(sql, (match, now))]

    def signatures_of(self, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        if self._version < 5:  # read-only, not yet migrated: the rows step 5 will write
            return _signatures_before_step_5(self, memory_ids)
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
        return self._signatures_by_memory(rows)

    # -- health ------------------------------------------------------------

    def doctor(self, fix: bool) -> list[dict[str, str]]:
        """``schema`` (the version against this mem's), ``integrity``
        (``PRAGMA integrity_check``), ``search index`` (the FTS5 index
        against the memories: FTS5's ``integrity-check``), ``recall terms``
        (one terms row per memory). With ``fix``, a damaged search index is
        rebuilt and missing or stray recall terms rewritten, in one write
        transaction (exclusive across processes); a read-only store opens a
        writing connection for it. Damage ``integrity_check`` reports is
        never "fixed": it needs a person (and a backup)."""
        import sqlite3

        checks: list[dict[str, str]] = []
        conn = self._connection()
        version = self._user_version()
        if version == SCHEMA_VERSION:
            checks.append(_check_result("schema", "ok", f"version {version}"))
        else:
            checks.append(
                _check_result("schema", "warn", f"version {version}; the next write upgrades it to {SCHEMA_VERSION}")
            )
        try:
            problems = [str(row[0]) for row in conn.execute("PRAGMA integrity_check").fetchall()]
        except sqlite3.Error as exc:
            problems = [str(exc)]
        if problems == ["ok"]:
            checks.append(_check_result("integrity", "ok", "integrity_check: ok"))
        else:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            checks.append(_check_result("integrity", "error", f"integrity_check: {problems[0]}{more}"))
        index_ok, terms_bad = self._indexes_ok()
        if index_ok is None:
            checks.append(_check_result("search index", "warn", "not checked: the database cannot be written here"))
        repair = fix and (index_ok is False or bool(terms_bad))
        if repair:
            writer = self if not self._read_only else SqliteStore.open(os.path.dirname(self._path), create=False)
            try:
                with writer.transaction():
                    wconn = writer._writing()
                    with writer._errors():
                        if index_ok is False:
                            wconn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
                        if terms_bad and writer._version >= 2:
                            wconn.execute("DELETE FROM memory_terms")
                            for row in wconn.execute(f"SELECT n, {MEMORY_COLUMNS} FROM memories").fetchall():
                                _write_terms(wconn, row[0], SqliteStore.record(row[1:]))
            finally:
                if writer is not self:
                    writer.close()
        if index_ok is not None:
            if index_ok:
                checks.append(_check_result("search index", "ok", "the full-text index matches the memories"))
            elif repair:
                checks.append(_check_result("search index", "fixed", "the full-text index was rebuilt"))
            else:
                checks.append(
                    _check_result(
                        "search index", "error", "the full-text index does not match the memories (--fix rebuilds it)"
                    )
                )
        if self._version >= 2:
            if not terms_bad:
                checks.append(_check_result("recall terms", "ok", "one recall-terms row per memory"))
            elif repair:
                checks.append(_check_result("recall terms", "fixed", f"{terms_bad} recall-terms rows rewritten"))
            else:
                checks.append(
                    _check_result(
                        "recall terms",
                        "error",
                        f"{terms_bad} memories without their recall terms, or stray rows (--fix rewrites them)",
                    )
                )
        return checks

    def _indexes_ok(self) -> tuple[bool | None, int]:
        """(whether the FTS5 index matches its content table, ``None`` if
        it could not be checked; how many memories miss their recall terms
        plus how many terms rows have no memory)."""
        import sqlite3

        conn = self._connection()
        terms_bad = 0
        if self._version >= 2:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM memories m WHERE NOT EXISTS "
                "(SELECT 1 FROM memory_terms t WHERE t.rowid = m.n)) + (SELECT count(*) FROM memory_terms t "
                "WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.n = t.rowid))"
            ).fetchone()
            terms_bad = int(row[0])
        # FTS5's integrity-check is an INSERT: run it on a writable connection, rolled back
        try:
            checker = sqlite3.connect(
                _uri(self._path, mode="rw"), isolation_level=None, uri=True, timeout=BUSY_TIMEOUT_SECONDS
            )
        except sqlite3.Error:
            return None, terms_bad
        try:
            checker.execute("BEGIN")
            try:
                checker.execute("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)")
            except sqlite3.DatabaseError as exc:
                if "malformed" in str(exc) or "corrupt" in str(exc):
                    return False, terms_bad
                if "readonly" in str(exc) or "read-only" in str(exc) or "unable to open" in str(exc):
                    return None, terms_bad
                raise _error(exc, self._path) from None
            return True, terms_bad
        except sqlite3.Error:
            return None, terms_bad
        finally:
            if checker.in_transaction:
                checker.execute("ROLLBACK")
            checker.close()

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
        from mem_core.plugin import json_dumps

        conn.execute(
            "INSERT INTO memory_history (memory_id, action, at, record) VALUES (?, ?, ?, ?)",
            (record["id"], action, at, json_dumps(record)),
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
        n = conn.execute(
            f"INSERT INTO memories ({MEMORY_COLUMNS}) VALUES ({', '.join('?' * 13)})", _row(record)
        ).lastrowid
        assert n is not None
        self._write_tags(conn, n, record["tags"])
        _write_terms(conn, n, record)

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        from mem_core.plugin import json_dumps

        conn = self._writing()
        with self._errors():
            if not forgotten:
                self._add_row(conn, record)
            conn.executemany(
                "INSERT INTO memory_history (memory_id, action, at, record) VALUES (?, ?, ?, ?)",
                [(record["id"], e["action"], e["at"], json_dumps(e["memory"])) for e in history],
            )

    def delete(self, memory_id: str, *, at: str) -> None:
        conn = self._writing()
        with self._errors():
            row = conn.execute(f"SELECT n, {MEMORY_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                raise MemError(f"No memory {memory_id} to delete.")
            n, record = row[0], SqliteStore.record(row[1:])
            conn.execute("DELETE FROM memory_tags WHERE memory = ?", (n,))
            conn.execute("DELETE FROM memory_terms WHERE rowid = ?", (n,))
            conn.execute("DELETE FROM memories WHERE n = ?", (n,))
            conn.execute("DELETE FROM signatures WHERE memory_id = ?", (memory_id,))
            self._log(conn, record, "delete", at)


def _check_result(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


# -- what is at the path ---------------------------------------------------

_MAGIC = b"SQLite format 3\x00"
NOT_A_FILE = "Memory store {path} is not a regular file; mem reads and writes only a regular SQLite file there."
EMPTY = "Memory store {path} is an empty file, not a mem database; mem leaves it as it is: restore or remove it."
FOREIGN = (
    "Memory store {path} is a SQLite database of another schema (not mem's); mem leaves it as it is: "
    "move it away or select another store."
)
NEWER = "Memory store {path} has schema version {version}; this mem knows up to {known}. Upgrade mem to use it."
#: the tables each schema version adds (how mem recognises its own database)
_TABLES: dict[int, frozenset[str]] = {
    1: frozenset({"memories", "memory_tags", "memories_fts", "memory_history"}),
    2: frozenset({"memory_terms"}),
    5: frozenset({"signatures"}),
}


def _uri(path: str, *, mode: str, immutable: bool = False) -> str:
    """A SQLite URI of ``path`` (``?`` ``#`` ``%`` escaped)."""
    escaped = os.path.abspath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return f"file:{escaped}?mode={mode}" + ("&immutable=1" if immutable else "")


def _regular(path: str) -> os.stat_result | None:
    """The status of ``path`` if it is a regular file, ``None`` if there is
    nothing there; anything else (a directory, FIFO, socket, symbolic
    link) is refused."""
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemError(f"Memory store {path}: {exc.strerror}.") from None
    if stat.S_ISLNK(st.st_mode):
        raise MemError(SYMLINK)
    if not stat.S_ISREG(st.st_mode):
        raise MemError(NOT_A_FILE.format(path=path))
    return st


def _examine(directory: str) -> tuple[str, int | None] | None:
    """What is at the store's path, before SQLite opens it: ``None``
    (nothing), or ``(kind, wal size or None)`` with ``kind`` ``"blank"``
    (an empty file with no ``-wal``: it holds nothing) or ``"sqlite"``
    (a SQLite file, to be identified by :func:`_identify`). A non-regular
    file at the path or beside it (``-wal``, ``-shm``, ``-journal``), a
    symbolic link, a file that is not SQLite, or one whose header says
    ``user_version`` 0 with no ``-wal`` to say otherwise (not mem's) are
    refused with a one-line ``MemError``; nothing is opened for writing."""
    path = os.path.join(directory, FILE)
    sides = {name: _regular(path + name) for name in ("-wal", "-shm", "-journal")}
    st = _regular(path)
    if st is None:
        return None
    wal_st = sides["-wal"]
    wal = wal_st.st_size if wal_st is not None else None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise MemError(f"Memory store {path}: {exc.strerror}.") from None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the lstat
            raise MemError(NOT_A_FILE.format(path=path))
        header = os.read(fd, 100)
    finally:
        os.close(fd)
    if not header and not wal:
        return "blank", wal
    if header and not header.startswith(_MAGIC):
        raise MemError(f"Memory store {path} is not a SQLite database or is damaged; inspect it before using it.")
    if len(header) == 100 and not wal and int.from_bytes(header[60:64], "big") == 0:
        return "blank" if _blank(header) else "foreign", wal
    return "sqlite", wal


def _reader(path: str, *, immutable: bool) -> sqlite3.Connection:
    """A connection that cannot write, checked by one read (SQLite opens
    lazily: a ``-shm`` that cannot be made fails only at the first read)."""
    import sqlite3

    conn = sqlite3.connect(
        _uri(path, mode="ro", immutable=immutable), isolation_level=None, uri=True, timeout=BUSY_TIMEOUT_SECONDS
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def _probe(path: str, kind: str, wal: int | None, *, keep: bool = False) -> tuple[tuple[str, int], Any]:
    """The identity (:func:`_identify`) of the database :func:`_examine`
    found, read through a connection that cannot write; with no ``-wal``
    file, ``immutable=1``, so that SQLite does not even create its
    ``-wal``/``-shm`` files beside a database it then refuses. With
    ``keep``, a ``mode=ro`` connection of a database that is mem's own is
    returned too, for reading (the schema is then parsed once); otherwise
    ``None``."""
    if kind != "sqlite":
        return (kind, 0), None
    if wal is None:  # immutable: valid only if no writer touched the file meanwhile
        identity = _identify_unlocked(path)
        if identity is not None:
            return identity, None
        # a writer was at work (a checkpoint, a new -wal): ask SQLite with its locks
    probe = _connect_ro(path)
    kept = False
    try:
        with _errors_of(path):
            identity = _identify(probe)
        kept = keep and identity[0] == "own"
        return identity, probe if kept else None
    finally:
        if not kept:
            probe.close()


#: how long a file must have been left alone before an unlocked read that
#: refuses it is believed: file times move in clock ticks (a few ms), so a
#: writer's checkpoint that began and ended within one tick leaves the same
#: state behind, and the torn read it met would pass for a foreign file
_QUIET_NS = 50_000_000


def _identify_unlocked(path: str) -> tuple[str, int] | None:
    """:func:`_identify_at` with ``immutable=1``, when no writer can have been
    at work meanwhile: no ``-wal``, the same state before and after, and —
    for an answer that refuses the file — the file quiet for
    :data:`_QUIET_NS` (waited for, a few times, else ``None``)."""
    import time

    for _ in range(4):
        before = _state(path)
        try:
            identity: tuple[str, int] | None = _identify_at(path, immutable=True)
        except MemError:
            identity = None
        if identity is None or before != _state(path) or not before or before[-1]:
            return None
        if identity[0] == "own" or time.time_ns() - before[2] > _QUIET_NS:  # type: ignore[operator]
            return identity
        time.sleep(_QUIET_NS / 1e9)
    return None


def _state(path: str) -> tuple[object, ...]:
    """What a writer's work changes: the file's identity, size and mtime,
    and whether a ``-wal`` exists."""
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return st.st_ino, st.st_size, st.st_mtime_ns, os.path.lexists(path + "-wal")


def _connect_ro(path: str, *, immutable: bool = False) -> sqlite3.Connection:
    import sqlite3

    try:
        conn = sqlite3.connect(
            _uri(path, mode="ro", immutable=immutable), isolation_level=None, uri=True, timeout=BUSY_TIMEOUT_SECONDS
        )
        if not immutable:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    except sqlite3.Error as exc:
        raise _error(exc, path) from None
    return conn


def _identify_at(path: str, *, immutable: bool) -> tuple[str, int]:
    conn = _connect_ro(path, immutable=immutable)
    try:
        with _errors_of(path):
            return _identify(conn)
    finally:
        conn.close()


def _blank(header: bytes) -> bool:
    """Whether a database header with ``user_version`` 0 is of a database
    that holds no table (schema cookie 0: nothing was ever created)."""
    return int.from_bytes(header[40:44], "big") == 0


def _identify(conn: sqlite3.Connection) -> tuple[str, int]:
    """``("own"|"blank"|"foreign"|"newer", user_version)`` of an open
    database, by its schema: mem's tables for its ``user_version``.

    The three reads are one read transaction (unless the caller's own
    transaction holds them already): each statement on its own would see
    the database as it is at that statement, and a writer creating the
    store between them (its schema and ``user_version`` committed after the
    version was read as 0) would make a store being created pass for a
    foreign database."""
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    finally:
        if own and conn.in_transaction:
            conn.execute("COMMIT")
    if version == 0:
        return ("blank" if objects == 0 else "foreign"), version
    required = frozenset().union(*(tables for step, tables in _TABLES.items() if step <= version))
    if not required <= names:
        return "foreign", version
    return ("newer" if version > SCHEMA_VERSION else "own"), version


def _check(identity: tuple[str, int] | str, path: str, *, create: bool) -> None:
    """Refuse a database that is not mem's own (a blank one only to a
    writer that may create the store)."""
    kind, version = identity if isinstance(identity, tuple) else (identity, 0)
    if kind == "own" or (kind == "blank" and create):
        return
    if kind == "blank":
        raise MemError(EMPTY.format(path=path))
    if kind == "newer":
        raise MemError(NEWER.format(path=path, version=version, known=SCHEMA_VERSION))
    raise MemError(FOREIGN.format(path=path))


@contextmanager
def _errors_of(path: str) -> Iterator[None]:
    import sqlite3

    try:
        yield
    except sqlite3.Error as exc:
        raise _error(exc, path) from None


def _error(exc: Exception, path: str) -> MemError:
    """A one-line message for a SQLite failure."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return TryAgain(
            f"Memory store {path} stayed locked by another process for {BUSY_TIMEOUT_SECONDS:g} s; try again."
        )
    if "not a database" in text or "malformed" in text:
        return MemError(f"Memory store {path} is not a SQLite database or is damaged; inspect it before using it.")
    return MemError(f"Memory store {path}: {text.rstrip('.')}.")
