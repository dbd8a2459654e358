"""Memory store ``postgres``: structured memories in a PostgreSQL database.

For teams and portfolios that outgrow one machine: every project's store is
a *namespace* in one shared database. Select it with ``store = "postgres"``
in the project's ``.bmad/memory/mem.toml`` (or ``MEM_STORE=postgres``) and
put the database's DSN (a libpq connection string or URL) in the environment
variable the ``postgres_dsn_env`` setting names, ``MEM_POSTGRES_DSN`` by
default — never in a config file. Its password is never shown:
:attr:`PostgresStore.location` is the URL without secrets. Needs the ``psycopg`` driver (``pip install
'mem-agent-memory[postgres]'``), imported only when a store is opened, so
``mem plugins`` and ``mem recall`` stay fast and work without it.

* **Directory → namespace.** A store's directory (the project's
  ``.bmad/memory/`` or the user-level data directory) holds a small marker,
  ``memories.postgres.json``, naming the store's namespace on the server: the
  directory's absolute path when the store was created. :meth:`exists` reads
  only the marker (no driver, no connection: recall asks it on every run).
  A moved project keeps its memories, and a marker committed with the project
  lets every clone share one store.
* **Tables** (``mem_`` prefix, in the connection's schema): ``mem_stores``
  (one row per namespace), ``mem_memories`` (one row per memory, keyed by
  store and unique on (store, mind, category, key)), ``mem_history``.
  Identifiers, keys and timestamps are ``COLLATE "C"``: they order by code
  point, as :func:`mem_core.memories.records.sort_records` does, whatever the
  database's collation.
* **Transactions** are exclusive per namespace across processes and machines:
  each takes ``pg_advisory_xact_lock`` on its store first and runs in READ
  COMMITTED, so a read after the lock sees every earlier commit (under
  REPEATABLE READ or SERIALIZABLE the snapshot would predate the wait). A
  writer waits up to :data:`LOCK_TIMEOUT_SECONDS`.
* **Full-text search**: a ``tsvector`` column with a GIN index (without
  ``fastupdate``: a write lands in the index at once, and a search never
  scans a pending list), written in the same statement as the memory and its
  history row; key and tags weigh ``A``, content ``B``
  (twice less); results ranked by ``ts_rank`` (length-normalized), ties in
  the :meth:`query` order. ``mem`` itself splits and folds the words (case,
  accents; letters and digits, everything else separates) and hands
  PostgreSQL the lexemes, so every backend agrees on what a word is:
  PostgreSQL's own parser would keep ``Europe/Berlin`` or ``v1.5.0`` as one
  token and fold case by the server's locale. A word longer than 2046 bytes
  (PostgreSQL's limit) is not indexed.
* **Recall** preselects by an indexed ``text[]`` of each memory's recall
  terms (``&&`` overlap with the query tokens, GIN).
* **History**: ``mem_history`` gets every version (create, update, verify,
  restore, delete tombstone) in the same transaction; a trigger refuses UPDATE,
  DELETE and TRUNCATE on it.
* **Embedding vectors**: ``mem_vectors`` holds, per store, the vectors the
  ``hybrid`` ranking computed for its memories (model key, SHA-1 of the
  text, float32 bytes), so that each memory is embedded once for everyone
  who recalls the store (:class:`PostgresVectors`; docs/recall.md).
* **Schema versions**: ``mem_schema_migrations`` lists the applied steps of
  :data:`MIGRATIONS`; opening a store applies the missing ones in order, in
  one transaction, under a database-wide advisory lock. A database from a
  newer ``mem`` is refused, untouched. Needs PostgreSQL 12 or later.

Opening a store whose schema is current takes one query after connecting;
storing a memory takes the lock, the reads of :mod:`mem_core.api.memories` and
one statement.
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
    POSTGRES_MARKER,
    SIGNATURE_COLUMNS,
    SYMLINK,
    MemError,
    SqlStore,
    TryAgain,
    postgres_store_at,
    sql_in,
    sql_priority_rank,
)

if TYPE_CHECKING:
    from typing import Any, ClassVar

    import psycopg

    from mem_core.plugin import MemoryFilter, Settings

__all__ = ["PostgresStore", "PostgresVectors", "DSN_ENV", "MARKER", "MIGRATIONS", "SCHEMA_VERSION", "search_words"]

#: the default variable that holds the connection string or URL of the database
#: (the ``postgres_dsn_env`` setting names another)
DSN_ENV = "MEM_POSTGRES_DSN"
#: the file in a store's directory that names its namespace on the server
MARKER = POSTGRES_MARKER
#: ``psycopg.pq.TransactionStatus.IDLE``: no transaction open (psycopg is imported only to connect)
_IDLE = 0
MARKER_MAX_BYTES = 64 * 1024
LOCK_TIMEOUT_SECONDS = 30
CONNECT_TIMEOUT_SECONDS = 10
#: first key of every advisory lock ``mem`` takes ('mem\\0'); the second is
#: the store's id, or 0 for schema migrations
LOCK_CLASS = 0x6D656D00
INSTALL_HINT = "pip install 'mem-agent-memory[postgres]'"
#: PostgreSQL refuses a lexeme of 2047 bytes or more
LEXEME_MAX_BYTES = 2046
#: weights of ts_rank for labels D, C, B, A: key and tags (A) twice content (B)
RANK_WEIGHTS = "{0, 0, 0.5, 1.0}"

_ORDER = "m.priority_rank, m.updated_at DESC, m.category, m.key, m.mind_id"
_TIMESTAMP = r"'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'"

_V1 = (
    """
    CREATE TABLE mem_stores (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        namespace text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
    )
    """,
    f"""
    CREATE TABLE mem_memories (
        n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        store integer NOT NULL REFERENCES mem_stores (id),
        id text COLLATE "C" NOT NULL,
        mind_id text COLLATE "C" NOT NULL,
        category text COLLATE "C" NOT NULL CHECK (category IN
            {sql_in(MEMORY_CATEGORIES)}),
        key text COLLATE "C" NOT NULL,
        content text NOT NULL,
        tags text[] COLLATE "C" NOT NULL,
        priority text NOT NULL CHECK (priority IN {sql_in(MEMORY_PRIORITIES[::-1])}),
        priority_rank smallint GENERATED ALWAYS AS (
            {sql_priority_rank("priority")}
        ) STORED,
        source text NOT NULL CHECK (source IN {sql_in(MEMORY_SOURCES)}),
        verified boolean NOT NULL,
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        expires_at text COLLATE "C" CHECK (expires_at ~ {_TIMESTAMP}),
        created_at text COLLATE "C" NOT NULL CHECK (created_at ~ {_TIMESTAMP}),
        updated_at text COLLATE "C" NOT NULL CHECK (updated_at ~ {_TIMESTAMP}),
        search tsvector NOT NULL,
        terms text[] COLLATE "C" NOT NULL,
        UNIQUE (store, id),
        UNIQUE (store, mind_id, category, key)
    )
    """,
    "CREATE INDEX mem_memories_order ON mem_memories (store, priority_rank, updated_at DESC, category, key, mind_id)",
    "CREATE INDEX mem_memories_expiry ON mem_memories (store, expires_at) WHERE expires_at IS NOT NULL",
    "CREATE INDEX mem_memories_search ON mem_memories USING gin (search) WITH (fastupdate = off)",
    "CREATE INDEX mem_memories_terms ON mem_memories USING gin (terms) WITH (fastupdate = off)",
    "CREATE INDEX mem_memories_tags ON mem_memories USING gin (tags) WITH (fastupdate = off)",
    """
    CREATE TABLE mem_history (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        store integer NOT NULL REFERENCES mem_stores (id),
        memory_id text COLLATE "C" NOT NULL,
        action text NOT NULL CHECK (action IN ('create', 'update', 'verify', 'delete')),
        at text NOT NULL,
        record json NOT NULL
    )
    """,
    "CREATE INDEX mem_history_memory ON mem_history (store, memory_id, seq)",
    """
    CREATE FUNCTION mem_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'mem_history is append-only';
    END
    $$
    """,
    "CREATE TRIGGER mem_history_no_change BEFORE UPDATE OR DELETE ON mem_history "
    "FOR EACH ROW EXECUTE FUNCTION mem_history_append_only()",
    "CREATE TRIGGER mem_history_no_truncate BEFORE TRUNCATE ON mem_history "
    "FOR EACH STATEMENT EXECUTE FUNCTION mem_history_append_only()",
)


def _migrate_1(conn: psycopg.Connection[Any]) -> None:
    """Stores, memories (with their search vector and recall terms), the
    append-only history."""
    for statement in _V1:
        conn.execute(statement)


def _migrate_2(conn: psycopg.Connection[Any]) -> None:
    """The history also records restore (mem memories restore)."""
    conn.execute("ALTER TABLE mem_history DROP CONSTRAINT mem_history_action_check")
    conn.execute(
        f"ALTER TABLE mem_history ADD CONSTRAINT mem_history_action_check CHECK (action IN {sql_in(HISTORY_ACTIONS)})"
    )


def _migrate_3(conn: psycopg.Connection[Any]) -> None:
    """Search vectors rebuilt from English stems, for searches that find
    what people type (caching finds cache)."""
    rows = conn.execute("SELECT id, key, content, tags FROM mem_memories").fetchall()
    for row_id, key, content, tags in rows:
        vector = _tsvector({"key": key, "content": content, "tags": list(tags)})
        conn.execute("UPDATE mem_memories SET search = %s::tsvector WHERE id = %s", (vector, row_id))


def _migrate_4(conn: psycopg.Connection[Any]) -> None:
    """Humans' signatures (structured-memory.md, Trust); a memory verified
    before keeps that as a terminal confirmation at its updated_at."""
    from mem_core.plugin import terminal_signature

    conn.execute(
        """
        CREATE TABLE mem_signatures (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            store integer NOT NULL REFERENCES mem_stores (id),
            memory_id text COLLATE "C" NOT NULL,
            by text NOT NULL,
            fingerprint text COLLATE "C" NOT NULL,
            verified_at text COLLATE "C" NOT NULL,
            signature text COLLATE "C" NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX mem_signatures_memory ON mem_signatures (store, memory_id, seq)")
    rows = conn.execute(f"SELECT store, {MEMORY_COLUMNS} FROM mem_memories WHERE verified").fetchall()
    for row in rows:
        record = PostgresStore.record(row[1:])
        _insert_signature(conn, row[0], terminal_signature(record, record["updated_at"]))


def _migrate_5(conn: psycopg.Connection[Any]) -> None:
    """Search vectors rebuilt with the Snowball stemmer that replaced the
    home-made one (a query's stems must be those the vectors hold)."""
    _migrate_3(conn)


def _migrate_6(conn: psycopg.Connection[Any]) -> None:
    """Embedding vectors of each store's memories for the hybrid ranking,
    shared by every machine that recalls the store (docs/recall.md)."""
    conn.execute(
        """
        CREATE TABLE mem_vectors (
            store integer NOT NULL REFERENCES mem_stores (id),
            model text COLLATE "C" NOT NULL,
            hash bytea NOT NULL,
            vector bytea NOT NULL,
            PRIMARY KEY (store, model, hash)
        )
        """
    )


def _insert_signature(conn: psycopg.Connection[Any], store: int, signature: dict[str, Any]) -> None:
    values = [str(signature[name]) for name in SIGNATURE_COLUMNS]
    if any("\x00" in value for value in values):
        raise MemError("The postgres memory store cannot hold a NUL character (U+0000) in a signature.")
    conn.execute(
        "INSERT INTO mem_signatures (store, memory_id, by, fingerprint, verified_at, signature) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
        (store, *values),
    )


#: ordered schema steps; ``mem_schema_migrations`` holds one row per applied step
MIGRATIONS: tuple[Callable[[psycopg.Connection[Any]], None], ...] = (
    _migrate_1,
    _migrate_2,
    _migrate_3,
    _migrate_4,
    _migrate_5,
    _migrate_6,
)
SCHEMA_VERSION = len(MIGRATIONS)
#: the first schema version with ``mem_vectors``
VECTORS_VERSION = 6

_VERSION_TABLE = """
    CREATE TABLE IF NOT EXISTS mem_schema_migrations (
        version integer PRIMARY KEY,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
    )
"""


# -- words, lexemes, records --------------------------------------------------


def search_words(text: str) -> list[str]:
    """The words full-text search indexes and matches: runs of letters and
    digits of ``text`` case-folded, with accents removed (``München`` →
    ``munchen``)."""
    import re
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.findall(r"[^\W_]+", folded)


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsvector(record: dict[str, Any]) -> str:
    """The record's search vector, as ``tsvector`` input: the English stems
    (``mem_core.retrieval.analysis.stem``) of its words, key and tags at
    weight A, content at B; positions in that order (capped at 16383, as
    PostgreSQL does)."""
    from mem_core.plugin import search_stem

    positions: dict[str, list[str]] = {}
    position = 0
    for text, label in ((record["key"], "A"), (" ".join(record["tags"]), "A"), (record["content"], "B")):
        for word in map(search_stem, search_words(text)):
            position += 1
            if len(word.encode("utf-8")) > LEXEME_MAX_BYTES:
                continue
            found = positions.setdefault(word, [])
            if len(found) < 256:  # PostgreSQL keeps at most 256 positions per lexeme
                found.append(f"{min(position, 16383)}{label}")
    return " ".join(f"{_quote(word)}:{','.join(dict.fromkeys(places))}" for word, places in positions.items())


def _tsquery(words: list[str]) -> str | None:
    """Any of the words (``mem_core.plugin.search_words``: common question
    words left out), each as its stem and, from three letters, as the start
    of longer stems; a word that folds to several is a phrase. ``None`` when
    no word has a letter or digit."""
    from mem_core.plugin import search_stem
    from mem_core.plugin import search_words as wanted_words

    parts = []
    for phrase in wanted_words(words):
        lexemes = [search_stem(word) for word in phrase if len(search_stem(word).encode("utf-8")) <= LEXEME_MAX_BYTES]
        if len(phrase) > 1 and lexemes:  # a word of several (a-b) is a phrase
            parts.append("(" + " <-> ".join(_quote(lexeme) for lexeme in lexemes) + ")")
        elif lexemes:
            parts.append(_quote(lexemes[0]) + (":*" if len(phrase[0]) >= 3 else ""))
    return " | ".join(dict.fromkeys(parts)) if parts else None


def _check_text(record: dict[str, Any]) -> None:
    for name in ("id", "category", "key", "content", "mind_id"):
        if "\x00" in record[name]:
            raise MemError(f"The postgres memory store cannot hold a NUL character (U+0000) in {name}.")
    if any("\x00" in tag for tag in record["tags"]):
        raise MemError("The postgres memory store cannot hold a NUL character (U+0000) in tags.")


def _values(record: dict[str, Any]) -> dict[str, Any]:
    """The statement parameters of a record: its fields, its history JSON,
    its search vector and its recall terms."""
    from mem_core.plugin import json_dumps, recall_terms

    _check_text(record)
    return {
        **record,
        "tags": list(record["tags"]),
        "verified": bool(record["verified"]),
        "confidence": float(record["confidence"]),
        "record": json_dumps(record),
        "search": _tsvector(record),
        "terms": recall_terms(record),
    }


#: appends the row written by the statement's ``added`` CTE to the history
_LOG_ADDED = (
    "INSERT INTO mem_history (store, memory_id, action, at, record) "
    "SELECT %(store)s, id, %(action)s, %(at)s, %(record)s::json FROM added"
)


# -- connection strings -------------------------------------------------------


def _redact(text: str, dsn: str) -> str:
    """``text`` without the DSN's password, wherever it shows."""
    import re
    from urllib.parse import unquote, urlsplit

    secrets = set()
    try:
        password = urlsplit(dsn).password
    except ValueError:
        password = None
    if password:
        secrets.update({password, unquote(password)})
    for match in re.finditer(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn):
        value = match.group(1)
        secrets.update({value, value.strip("'")})
    for secret in sorted(secrets - {""}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _url(params: dict[str, Any]) -> str:
    """A ``postgresql://`` URL of the connection parameters, without password."""
    from urllib.parse import quote

    user = str(params.get("user") or "")
    host = str(params.get("host") or params.get("hostaddr") or "")
    port = str(params.get("port") or "")
    dbname = str(params.get("dbname") or "")
    query = []
    if host.startswith("/") or host.startswith("@") or "," in host:
        query.append("host=" + quote(host, safe=""))
        host = ""
    netloc = (quote(user, safe="") + "@" if user else "") + (f"[{host}]" if ":" in host else host)
    if port and not query:
        netloc += ":" + port
    elif port:
        query.append("port=" + quote(port, safe=""))
    return f"postgresql://{netloc}/{quote(dbname, safe='')}" + ("?" + "&".join(query) if query else "")


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip()).rstrip(".")


# -- the store ----------------------------------------------------------------


class PostgresStore(SqlStore):
    """A namespace in a PostgreSQL database (the DSN in ``$MEM_POSTGRES_DSN``
    or the variable the ``postgres_dsn_env`` setting names)."""

    name = "postgres"
    help = f"a namespace in a PostgreSQL database (${DSN_ENV}; needs psycopg)"

    MARK = "%s"
    MEMORIES = "mem_memories"
    HISTORY = "mem_history"
    HISTORY_RECORD = "record::text"  # a json column
    ORDER = _ORDER
    NO_LIMIT = None
    TAG_CLAUSE = "m.tags @> %s::text[]"

    @staticmethod
    def _tag_value(tag: str) -> list[str]:
        return [tag]

    def _scope(self) -> tuple[list[str], list[Any]]:
        # one database holds many stores, each a namespace
        return ["m.store = %s"], [self._store_id]

    #: the connection string; ``None``: read it from the settings (see :meth:`bind`)
    dsn: ClassVar[str | None] = None
    #: the variable the DSN came from, for messages
    dsn_env: ClassVar[str] = DSN_ENV

    def __init__(self, conn: psycopg.Connection[Any], store_id: int, namespace: str, url: str) -> None:
        self._conn = conn
        self._store_id = store_id
        self._namespace = namespace
        self._url = url
        #: the schema version a reader found (a writer migrates to SCHEMA_VERSION)
        self._version = SCHEMA_VERSION

    @classmethod
    def bind(cls, dsn: str, *, variable: str | None = None) -> type[PostgresStore]:
        """This backend with ``dsn`` instead of the settings' (for programs
        and tests that hold their own connection string); ``variable``: the
        environment variable it came from, named in messages."""
        namespace = {"dsn": dsn, "dsn_env": variable or cls.dsn_env, "__module__": cls.__module__}
        return type(cls.__name__, (cls,), namespace)

    @classmethod
    def configure(cls, settings: Settings) -> type[PostgresStore]:
        """Bound to the DSN in the variable ``settings.postgres_dsn_env`` names
        (read now, never kept in a config file); a bound class stays as it is."""
        if cls.dsn is not None:
            return cls
        return cls.bind(settings.postgres_dsn(), variable=settings.postgres_dsn_env)

    # -- opening ---------------------------------------------------------

    @classmethod
    def exists(cls, directory: str) -> bool:
        return postgres_store_at(directory)

    @classmethod
    def open(cls, directory: str, *, create: bool) -> PostgresStore:
        marker = os.path.join(directory, MARKER)
        if os.path.islink(marker):
            raise MemError(SYMLINK)
        namespace = _read_marker(marker)
        if namespace is None and not create:
            raise MemError(f"No memory store at {marker}.")
        if cls.dsn is None:  # not configured: the settings of the working directory
            from mem_core.plugin import load_settings

            return cls.configure(load_settings()).open(directory, create=create)
        dsn = cls.dsn
        if not dsn.strip():
            raise MemError(
                f"The postgres memory store needs {cls.dsn_env}: a libpq connection string or URL of its database."
            )
        conn, url = _connect(dsn, cls.dsn_env)
        try:
            new_namespace = namespace is None
            if namespace is None:
                namespace = os.path.abspath(directory)
            with _errors(url, dsn):
                version, store_id = _probe(conn, namespace)  # one round trip when all is in place
                if version != SCHEMA_VERSION:
                    _migrate(conn, url)
                if store_id is None:
                    store_id = _store_id(conn, namespace, create=create)
            if store_id is None:
                raise MemError(f"No memory store {namespace} in {url} (named by {marker}).")
            if new_namespace:
                _write_marker(directory, marker, namespace)
        except BaseException:
            conn.close()
            raise
        return cls(conn, store_id, namespace, url)

    @classmethod
    def open_read_only(cls, directory: str) -> PostgresStore:
        """See :meth:`MemoryStore.open_read_only`: the session's transactions
        are read-only (``default_transaction_read_only``), nothing is
        migrated, and neither the schema nor the namespace nor the marker is
        ever created; a database without ``mem``'s tables, of a newer
        schema, or without the marker's namespace is refused."""
        marker = os.path.join(directory, MARKER)
        if os.path.islink(marker):
            raise MemError(SYMLINK)
        namespace = _read_marker(marker)
        if namespace is None:
            raise MemError(f"No memory store at {marker}.")
        if cls.dsn is None:
            from mem_core.plugin import load_settings

            return cls.configure(load_settings()).open_read_only(directory)
        dsn = cls.dsn
        if not dsn.strip():
            raise MemError(
                f"The postgres memory store needs {cls.dsn_env}: a libpq connection string or URL of its database."
            )
        conn, url = _connect(dsn, cls.dsn_env, read_only=True)
        try:
            with _errors(url, dsn):
                version, store_id = _probe(conn, namespace)
            if version == 0:
                raise MemError(
                    f"Memory store database {url} has no mem tables (no memory store {namespace}, named by {marker})."
                )
            if version > SCHEMA_VERSION:
                raise MemError(
                    f"Memory store database {url} has schema version {version}; this mem knows up to "
                    f"{SCHEMA_VERSION}. Upgrade mem to use it."
                )
            if store_id is None:
                raise MemError(f"No memory store {namespace} in {url} (named by {marker}).")
        except BaseException:
            conn.close()
            raise
        store = cls(conn, store_id, namespace, url)
        store._read_only = True
        store._version = version
        return store

    @classmethod
    def vector_table(cls, directory: str) -> PostgresVectors | None:
        """The store's rows of ``mem_vectors`` (:class:`PostgresVectors`):
        its memories' embedding vectors, in the database rather than each
        user's cache. Reads only the marker; ``None`` without one or without
        a DSN."""
        if cls.dsn is None:
            from mem_core.plugin import load_settings

            return cls.configure(load_settings()).vector_table(directory)
        marker = os.path.join(directory, MARKER)
        if os.path.islink(marker):
            raise MemError(SYMLINK)
        namespace = _read_marker(marker)
        if namespace is None or not cls.dsn.strip():
            return None
        return PostgresVectors(cls.dsn, cls.dsn_env, namespace)

    @property
    def location(self) -> str:
        from urllib.parse import quote

        return f"{self._url}#{quote(self._namespace, safe='/')}"

    @property
    def namespace(self) -> str:
        """The store's namespace on the server (see the module's docstring)."""
        return self._namespace

    @property
    def schema_version(self) -> int:
        """How many of :data:`MIGRATIONS` the database has applied."""
        with self._errors():
            return _version(self._connection())

    def doctor(self, fix: bool) -> list[dict[str, str]]:
        """``schema``: the database's schema version against this mem's
        (nothing to repair: PostgreSQL keeps its indexes consistent);
        ``embedding vectors``: how many the store keeps for the ``hybrid``
        ranking (the user cache's index does not hold them)."""
        version = self.schema_version
        if version == SCHEMA_VERSION:
            (count,) = self._rows("SELECT count(*) FROM mem_vectors WHERE store = %s", (self._store_id,))[0]
            return [
                {"name": "schema", "status": "ok", "detail": f"version {version}"},
                {
                    "name": "embedding vectors",
                    "status": "ok",
                    "detail": f"{count} in mem_vectors, for the hybrid ranking of this store's memories",
                },
            ]
        status = "warn" if version < SCHEMA_VERSION else "error"
        detail = (
            f"version {version}; the next write upgrades it to {SCHEMA_VERSION}"
            if version < SCHEMA_VERSION
            else f"version {version}; this mem knows up to {SCHEMA_VERSION}"
        )
        return [{"name": "schema", "status": status, "detail": detail}]

    def _errors(self) -> Any:
        return _errors(self.location)

    # -- transactions ----------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self._starting_transaction()
        self._in_transaction = True
        try:
            with self._errors(), conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, self._store_id))
                yield
        finally:
            self._in_transaction = False

    # -- reads -----------------------------------------------------------

    def _rows(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        conn = self._connection()
        with self._errors():
            return conn.execute(sql, params).fetchall()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read-only ``REPEATABLE READ`` transaction: the count, the
        signed memories and the rows of ``mem context`` see one snapshot,
        and :meth:`iter_query` streams through a cursor on the server.
        Inside a transaction already (a writer's), that one serves."""
        conn = self._connection()
        if self._in_transaction or conn.info.transaction_status != _IDLE:
            yield
            return
        with self._errors(), conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def iter_query(self, where: MemoryFilter) -> Iterator[dict[str, Any]]:
        """:meth:`query`'s rows, 64 at a time from a cursor on the server
        when a transaction is open (:meth:`reading`): a reader that stops
        early (``mem context`` within its budget) never has the others sent,
        and memory stays bounded whatever the mind holds. Outside a
        transaction (a cursor on the server needs one), :meth:`query`'s list."""
        conn = self._connection()
        if conn.info.transaction_status == _IDLE:
            yield from self.query(where)
            return
        from mem_core.plugin import fetched_rows

        sql, params = self._query_sql(where)
        cursor = conn.cursor(name=f"mem_rows_{os.urandom(6).hex()}")
        try:
            with self._errors():
                cursor.execute(sql, params)
            for row in fetched_rows(cursor, self._errors):
                yield PostgresStore.record(row)
        finally:
            with self._errors():
                cursor.close()

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        query = _tsquery(words)
        if query is None:
            return []
        conditions, params = self._where(where)
        sql = (
            f"SELECT {M_MEMORY_COLUMNS} FROM mem_memories m, CAST(%s AS tsquery) q "
            f"WHERE m.search @@ q AND {' AND '.join(conditions)} "
            f"ORDER BY ts_rank(%s, m.search, q, 1) DESC, {_ORDER} LIMIT %s"
        )
        return [PostgresStore.record(row) for row in self._rows(sql, [query, *params, RANK_WEIGHTS, where.limit])]

    def search_count(self, words: list[str], where: MemoryFilter) -> int:
        query = _tsquery(words)
        if query is None:
            return 0
        conditions, params = self._where(where)
        sql = (
            "SELECT count(*) FROM mem_memories m, CAST(%s AS tsquery) q "
            f"WHERE m.search @@ q AND {' AND '.join(conditions)}"
        )
        return int(self._rows(sql, [query, *params])[0][0])

    def signed(self, where: MemoryFilter) -> list[dict[str, Any]]:
        if self._version < 4:  # read-only, not yet migrated: the signatures are computed
            return super().signed(where)
        conditions, params = self._where(where)
        sql = (
            f"SELECT {M_MEMORY_COLUMNS} FROM mem_memories m WHERE {' AND '.join(conditions)} AND EXISTS "
            "(SELECT 1 FROM mem_signatures s WHERE s.store = m.store AND s.memory_id = m.id) "
            f"ORDER BY {_ORDER}"
        )
        return [PostgresStore.record(row) for row in self._rows(sql, params)]

    def _matching(self, tokens: list[str], now: str) -> list[dict[str, Any]]:
        sql = (
            f"SELECT {M_MEMORY_COLUMNS} FROM mem_memories m WHERE m.store = %s AND m.terms && %s::text[] "
            f"AND (m.expires_at IS NULL OR m.expires_at > %s) ORDER BY {_ORDER}"
        )
        return [PostgresStore.record(row) for row in self._rows(sql, (self._store_id, list(tokens), now))]

    def signatures_of(self, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        if self._version < 4:  # read-only, not yet migrated: the rows step 4 will write, computed
            from mem_core.plugin import terminal_signature

            verified = self._rows(
                f"SELECT {MEMORY_COLUMNS} FROM mem_memories WHERE store = %s AND verified AND id = ANY(%s::text[])",
                (self._store_id, list(memory_ids)),
            )
            return {r["id"]: [terminal_signature(r, r["updated_at"])] for r in map(PostgresStore.record, verified)}
        rows = self._rows(
            "SELECT memory_id, by, fingerprint, verified_at, signature FROM mem_signatures "
            "WHERE store = %s AND memory_id = ANY(%s::text[]) ORDER BY seq",
            (self._store_id, list(memory_ids)),
        )
        return self._signatures_by_memory(rows)

    # -- writes ----------------------------------------------------------

    def add_signature(self, signature: dict[str, Any]) -> None:
        conn = self._writing()
        with self._errors():
            _insert_signature(conn, self._store_id, signature)

    def drop_signatures(self, memory_id: str) -> None:
        conn = self._writing()
        with self._errors():
            conn.execute("DELETE FROM mem_signatures WHERE store = %s AND memory_id = %s", (self._store_id, memory_id))

    def _log(self, conn: psycopg.Connection[Any], record: dict[str, Any], action: str, at: str) -> None:
        from mem_core.plugin import json_dumps

        conn.execute(
            "INSERT INTO mem_history (store, memory_id, action, at, record) VALUES (%s, %s, %s, %s, %s::json)",
            (self._store_id, record["id"], action, at, json_dumps(record)),
        )

    def insert(self, record: dict[str, Any], *, at: str, action: str = "create") -> None:
        conn = self._writing()
        values = {**_values(record), "store": self._store_id}
        with self._errors():
            conn.execute(
                "WITH added AS (INSERT INTO mem_memories (store, id, mind_id, category, key, content, tags, "
                "priority, source, verified, confidence, expires_at, created_at, updated_at, search, terms) VALUES "
                "(%(store)s, %(id)s, %(mind_id)s, %(category)s, %(key)s, %(content)s, %(tags)s::text[], "
                "%(priority)s, %(source)s, %(verified)s, %(confidence)s, %(expires_at)s, %(created_at)s, "
                "%(updated_at)s, %(search)s::tsvector, %(terms)s::text[]) RETURNING id) " + _LOG_ADDED,
                {**values, "action": action, "at": at},
            )

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        from mem_core.plugin import json_dumps

        conn = self._writing()
        with self._errors():
            if not forgotten:
                values = {**_values(record), "store": self._store_id}
                conn.execute(
                    "INSERT INTO mem_memories (store, id, mind_id, category, key, content, tags, priority, source, "
                    "verified, confidence, expires_at, created_at, updated_at, search, terms) VALUES "
                    "(%(store)s, %(id)s, %(mind_id)s, %(category)s, %(key)s, %(content)s, %(tags)s::text[], "
                    "%(priority)s, %(source)s, %(verified)s, %(confidence)s, %(expires_at)s, %(created_at)s, "
                    "%(updated_at)s, %(search)s::tsvector, %(terms)s::text[])",
                    values,
                )
            rows = []
            for entry in history:
                _check_text(entry["memory"])
                rows.append((self._store_id, record["id"], entry["action"], entry["at"], json_dumps(entry["memory"])))
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO mem_history (store, memory_id, action, at, record) VALUES (%s, %s, %s, %s, %s::json)",
                    rows,
                )

    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:
        conn = self._writing()
        values = {**_values(record), "store": self._store_id}
        with self._errors():
            changed = conn.execute(
                "WITH added AS (UPDATE mem_memories SET content = %(content)s, tags = %(tags)s::text[], "
                "priority = %(priority)s, source = %(source)s, verified = %(verified)s, "
                "confidence = %(confidence)s, expires_at = %(expires_at)s, created_at = %(created_at)s, "
                "updated_at = %(updated_at)s, search = %(search)s::tsvector, terms = %(terms)s::text[] "
                "WHERE store = %(store)s AND id = %(id)s AND mind_id = %(mind_id)s AND category = %(category)s "
                "AND key = %(key)s RETURNING id) " + _LOG_ADDED,
                {**values, "action": action, "at": at},
            ).rowcount
            if changed != 1:
                raise MemError(f"No memory {record['id']} to update.")

    def delete(self, memory_id: str, *, at: str) -> None:
        conn = self._writing()
        with self._errors():
            rows = conn.execute(
                f"DELETE FROM mem_memories WHERE store = %s AND id = %s RETURNING {MEMORY_COLUMNS}",
                (self._store_id, memory_id),
            ).fetchall()
            if not rows:
                raise MemError(f"No memory {memory_id} to delete.")
            conn.execute("DELETE FROM mem_signatures WHERE store = %s AND memory_id = %s", (self._store_id, memory_id))
            self._log(conn, PostgresStore.record(rows[0]), "delete", at)


#: what opening :class:`PostgresVectors` learns in one round trip: the schema
#: version, the store's id, and whether this session can write the table
_VECTORS_PROBE = (
    "SELECT (SELECT max(version) FROM mem_schema_migrations), (SELECT id FROM mem_stores WHERE namespace = %s), "
    "CASE WHEN to_regclass('mem_vectors') IS NULL THEN false ELSE "
    "has_table_privilege('mem_vectors', 'INSERT') AND has_table_privilege('mem_vectors', 'UPDATE') "
    "AND has_table_privilege('mem_vectors', 'DELETE') END "
    "AND current_setting('transaction_read_only') = 'off'"
)


class PostgresVectors:
    """One store's rows of ``mem_vectors``: the embedding vectors of its
    memories' recall texts (a :class:`mem_core.plugin.VectorTable`; the
    embedding index decides what to read, write and prune). Every process on
    every machine that recalls the store reads and adds to the same rows;
    concurrent writers of one row both succeed (``ON CONFLICT``), and each
    writes its rows in hash order, so that two never wait for each other.

    Opening refuses, with a one-line ``MemError`` (the index then keeps
    these vectors in the user cache), a database of an older schema (a
    reader never migrates: any command that writes a memory does), of a
    newer one, without the store's namespace, or where the session cannot
    write the table (a read-only role or a standby)."""

    def __init__(self, dsn: str, variable: str, namespace: str) -> None:
        import hashlib

        self._dsn = dsn
        self._variable = variable
        self._namespace = namespace
        #: one key per database and namespace (the DSN hashed: this key is held in memory)
        self.key = f"postgres:{hashlib.sha1(dsn.encode('utf-8', 'surrogatepass')).hexdigest()}:{namespace}"
        self._conn: psycopg.Connection[Any] | None = None
        self._store_id = 0
        self._url = ""

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        return (MemError,)  # every failure is turned into one line (_errors)

    def open(self) -> None:
        conn, url = _connect(self._dsn, self._variable)
        try:
            with _errors(url, self._dsn):
                row = conn.execute(_VECTORS_PROBE, (self._namespace,)).fetchone()
            assert row is not None
            version, store_id, writable = int(row[0] or 0), row[1], row[2]
            if version < VECTORS_VERSION:
                raise MemError(
                    f"Memory store database {url} has schema version {version}, before its embedding "
                    f"vectors (version {VECTORS_VERSION}; a mem command that writes a memory migrates it)"
                )
            if version > SCHEMA_VERSION:
                raise MemError(
                    f"Memory store database {url} has schema version {version}; this mem knows up to {SCHEMA_VERSION}"
                )
            if store_id is None:
                raise MemError(f"No memory store {self._namespace} in {url}")
            if not writable:
                raise MemError(f"Memory store database {url}: this session cannot write mem_vectors")
        except BaseException:
            conn.close()
            raise
        self._conn, self._store_id, self._url = conn, store_id, url

    def _rows(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        assert self._conn is not None
        with _errors(self._url, self._dsn):
            return self._conn.execute(sql, params).fetchall()

    def _change(self, sql: str, params: Any) -> None:
        assert self._conn is not None
        with _errors(self._url, self._dsn):
            self._conn.execute(sql, params)

    def read(self, model: str, wanted: set[bytes]) -> list[tuple[bytes, bytes]]:
        return self._rows(  # type: ignore[return-value]
            "SELECT hash, vector FROM mem_vectors WHERE store = %s AND model = %s AND hash = ANY(%s)",
            (self._store_id, model, list(wanted)),
        )

    def hashes(self, model: str, wanted: set[bytes]) -> list[bytes]:
        rows = self._rows(
            "SELECT hash FROM mem_vectors WHERE store = %s AND model = %s AND hash = ANY(%s)",
            (self._store_id, model, list(wanted)),
        )
        return [digest for (digest,) in rows]

    def drop(self, model: str, hashes: list[bytes]) -> None:
        self._change(
            "DELETE FROM mem_vectors WHERE store = %s AND model = %s AND hash = ANY(%s)",
            (self._store_id, model, hashes),
        )

    def write(self, model: str, rows: list[tuple[bytes, bytes]]) -> None:
        conn = self._conn
        assert conn is not None
        with _errors(self._url, self._dsn), conn.transaction(), conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO mem_vectors (store, model, hash, vector) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (store, model, hash) DO UPDATE SET vector = EXCLUDED.vector",
                [(self._store_id, model, digest, vector) for digest, vector in sorted(rows)],
            )

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM mem_vectors WHERE store = %s", (self._store_id,))[0][0])

    def every_hash(self) -> list[bytes]:
        return [digest for (digest,) in self._rows("SELECT hash FROM mem_vectors WHERE store = %s", (self._store_id,))]

    def prune(self, hashes: list[bytes]) -> None:
        self._change("DELETE FROM mem_vectors WHERE store = %s AND hash = ANY(%s)", (self._store_id, hashes))

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # a connection already gone: nothing to release
                pass


# -- opening, in steps ---------------------------------------------------------


def _read_marker(marker: str) -> str | None:
    """The namespace a store's marker names; ``None`` when there is no marker."""
    try:
        fd = os.open(marker, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemError(f"Cannot read the memory store marker {marker}: {exc.strerror}.") from None
    try:
        data = os.read(fd, MARKER_MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        value = json.loads(data.decode("utf-8")) if len(data) <= MARKER_MAX_BYTES else None
    except (UnicodeDecodeError, ValueError):
        value = None
    namespace = value.get("namespace") if isinstance(value, dict) else None
    if not isinstance(namespace, str) or not namespace or "\x00" in namespace:
        raise MemError(f"{marker} does not name a postgres memory store namespace; inspect it.")
    return namespace


def _write_marker(directory: str, marker: str, namespace: str) -> None:
    """Write the marker atomically (temp file, fsync, rename); concurrent
    creators write the same bytes."""
    from mem_core.plugin import json_dumps

    data = (json_dumps({"backend": "postgres", "namespace": namespace}, 2) + "\n").encode("utf-8")
    temporary = f"{marker}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        os.makedirs(directory, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, marker)
    except OSError as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise MemError(f"Cannot write the memory store marker {marker}: {exc.strerror}.") from None


def _connect(dsn: str, variable: str, *, read_only: bool = False) -> tuple[psycopg.Connection[Any], str]:
    """A connection in autocommit mode (transactions are explicit), and the
    server's URL without secrets; with ``read_only``, every transaction of
    the session is read-only (set at connection time: no extra round trip)."""
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo
    except ImportError:
        raise MemError(f"The postgres memory store needs the psycopg driver: {INSTALL_HINT}.") from None
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        raise MemError(
            f"{variable} is not a valid libpq connection string or URL: {_redact(_one_line(str(exc)), dsn)}."
        ) from None
    url = _url(params)
    options = str(params.get("options") or "")
    read_only_option = " -c default_transaction_read_only=on" if read_only else ""
    params["options"] = f"{options} -c lock_timeout={LOCK_TIMEOUT_SECONDS * 1000}{read_only_option}".strip()
    params.setdefault("connect_timeout", CONNECT_TIMEOUT_SECONDS)
    params.setdefault("application_name", "mem")
    try:
        # no server-side prepared statements: safe behind transaction poolers,
        # and a connection lives for one command anyway
        conn = psycopg.connect(make_conninfo("", **params), autocommit=True, prepare_threshold=None)
    except psycopg.Error as exc:
        raise TryAgain(
            f"Cannot connect to the memory store database {url}: {_redact(_one_line(str(exc)), dsn)}."
        ) from None
    conn.isolation_level = psycopg.IsolationLevel.READ_COMMITTED
    info = conn.info
    return conn, _url({"user": info.user, "host": info.host, "port": info.port, "dbname": info.dbname})


def _probe(conn: psycopg.Connection[Any], namespace: str) -> tuple[int, int | None]:
    """The schema version and the namespace's store id, or ``(0, None)`` in
    a database without ``mem``'s tables."""
    from psycopg import errors

    try:
        row = conn.execute(
            "SELECT (SELECT max(version) FROM mem_schema_migrations), (SELECT id FROM mem_stores WHERE namespace = %s)",
            (namespace,),
        ).fetchone()
    except errors.UndefinedTable:  # autocommit: the failed statement leaves nothing behind
        return 0, None
    assert row is not None
    return int(row[0] or 0), row[1]


def _version(conn: psycopg.Connection[Any]) -> int:
    found = conn.execute("SELECT to_regclass('mem_schema_migrations') IS NOT NULL").fetchone()
    if not (found and found[0]):
        return 0
    row = conn.execute("SELECT coalesce(max(version), 0) FROM mem_schema_migrations").fetchone()
    return int(row[0]) if row else 0


def _migrate(conn: psycopg.Connection[Any], url: str) -> None:
    """Apply the missing :data:`MIGRATIONS` in order, in one transaction,
    under the database-wide migration lock."""
    version = _version(conn)
    if version == SCHEMA_VERSION:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASS,))
        conn.execute(_VERSION_TABLE)
        version = _version(conn)  # another process may have migrated meanwhile
        if version > SCHEMA_VERSION:
            raise MemError(
                f"Memory store database {url} has schema version {version}; this mem knows up to "
                f"{SCHEMA_VERSION}. Upgrade mem to use it."
            )
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            step(conn)
            description = " ".join((step.__doc__ or step.__name__).split())
            conn.execute(
                "INSERT INTO mem_schema_migrations (version, description) VALUES (%s, %s)", (number, description)
            )


def _store_id(conn: psycopg.Connection[Any], namespace: str, *, create: bool) -> int | None:
    select = "SELECT id FROM mem_stores WHERE namespace = %s"
    row = conn.execute(select, (namespace,)).fetchone()
    if row is None and create:
        conn.execute("INSERT INTO mem_stores (namespace) VALUES (%s) ON CONFLICT (namespace) DO NOTHING", (namespace,))
        row = conn.execute(select, (namespace,)).fetchone()
    return int(row[0]) if row else None


@contextmanager
def _errors(location: str, dsn: str = "") -> Iterator[None]:
    """PostgreSQL failures as one-line ``MemError`` messages."""
    import psycopg
    from psycopg import errors

    try:
        yield
    except errors.LockNotAvailable:
        raise TryAgain(
            f"Memory store {location} stayed locked by another process for {LOCK_TIMEOUT_SECONDS} s; try again."
        ) from None
    except errors.UniqueViolation:
        raise MemError(f"Memory store {location}: the memory already exists.") from None
    except psycopg.Error as exc:
        text = exc.diag.message_primary or str(exc)
        # no SQLSTATE: the client lost the connection; 08: connection
        # exceptions; 57P: the server shutting down or restarting
        cut = exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P"))
        kind = TryAgain if cut and isinstance(exc, psycopg.OperationalError) else MemError
        raise kind(f"Memory store {location}: {_redact(_one_line(text), dsn)}.") from None
    except UnicodeEncodeError:
        raise MemError(f"Memory store {location}: the text is not valid Unicode (a lone surrogate).") from None
