"""The team server's own tables, in the database of the store it serves.

* SQLite (``--store sqlite``): ``.bmad/memory/server.sqlite3`` beside the
  project's ``memories.sqlite3`` (WAL; a write transaction is ``BEGIN
  IMMEDIATE``, exclusive across processes);
* PostgreSQL: ``mem_srv_*`` tables in the database the DSN names, the same
  one the ``postgres`` store's ``mem_*`` tables are in, so one ``pg_dump``
  backs up both.

Statements are written once with ``?`` placeholders (psycopg's ``%s`` is
substituted) and portable types (text, integer): timestamps are the store's
``YYYY-MM-DDTHH:MM:SS.mmmZ`` text, which orders as time does.

A database that cannot be reached (refused connection, a server restarting,
a connection cut mid-statement) raises :class:`Unavailable`, which the
application answers with 503; the next request connects again.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["ServerDB", "Unavailable", "Cursor", "SQLITE_FILE", "SCHEMA"]

#: the server's SQLite file, in the store's directory
SQLITE_FILE = "server.sqlite3"
#: advisory lock class of the server's writes that must be serialised (the audit chain)
LOCK_CLASS = 0x6D656D01
CONNECT_TIMEOUT_SECONDS = 3
POOL_MAX = 8

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS mem_srv_keys (
        id text PRIMARY KEY,
        hash text NOT NULL UNIQUE,
        mind text NOT NULL,
        read_only integer NOT NULL,
        rate_per_minute integer NOT NULL,
        label text NOT NULL,
        created_at text NOT NULL,
        created_by text NOT NULL,
        expires_at text,
        revoked_at text
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_humans (
        name text PRIMARY KEY,
        fingerprint text NOT NULL UNIQUE,
        public_key text NOT NULL,
        added_at text NOT NULL,
        added_by text NOT NULL,
        server_signature text NOT NULL,
        revoked_at text
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_challenges (
        challenge text PRIMARY KEY,
        name text NOT NULL,
        expires_at text NOT NULL,
        used integer NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_sessions (
        hash text PRIMARY KEY,
        id text NOT NULL UNIQUE,
        human text NOT NULL,
        fingerprint text NOT NULL,
        csrf text NOT NULL,
        created_at text NOT NULL,
        expires_at text NOT NULL,
        revoked_at text
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_minds (
        name text PRIMARY KEY,
        created_at text NOT NULL,
        created_by text NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_rate (
        key_id text NOT NULL,
        window_start text NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (key_id, window_start)
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_audit (
        seq bigint PRIMARY KEY,
        at text NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        detail text NOT NULL,
        prev text NOT NULL,
        hash text NOT NULL,
        head_signature text NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS mem_srv_store_lease (
        name text PRIMARY KEY,
        holder text NOT NULL,
        until_ms bigint NOT NULL
    )""",
)


class Unavailable(Exception):
    """The database cannot be reached now (the request may be retried)."""


class Cursor:
    """One transaction's statements, ``?`` placeholders in every dialect."""

    def __init__(self, raw: Any, postgres: bool, signer: Any = None) -> None:
        self._raw = raw
        self.postgres = postgres
        #: the server's key, which signs the audit chain's head (:mod:`mem_server.audit`)
        self.signer = signer

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self.postgres:
            sql = sql.replace("?", "%s")
        cursor = self._raw.execute(sql, tuple(params))
        if cursor.description is None:
            return []
        return [tuple(row) for row in cursor.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self.run(sql, params)
        return rows[0] if rows else None


class ServerDB:
    """The server's tables in SQLite (``path``) or PostgreSQL (``dsn``)."""

    def __init__(self, *, path: str | None = None, dsn: str | None = None) -> None:
        if (path is None) == (dsn is None):
            raise ValueError("a ServerDB is SQLite (path) or PostgreSQL (dsn)")
        self.path = path
        self.dsn = dsn
        self.postgres = dsn is not None
        self._pool: list[Any] = []
        self._lock = threading.Lock()
        #: the server's key (:class:`mem_server.credentials.ServerKey`), set once it is loaded
        self.signer: Any = None

    # -- connections ---------------------------------------------------------

    def _connect_postgres(self) -> Any:
        import psycopg

        try:
            return psycopg.connect(
                self.dsn or "", autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS, prepare_threshold=None,
                application_name="mem-serve",
            )  # fmt: skip
        except psycopg.Error as exc:
            raise Unavailable(_one_line(exc)) from None

    def _borrow(self) -> Any:
        with self._lock:
            if self._pool:
                return self._pool.pop()
        return self._connect_postgres()

    def _give_back(self, conn: Any) -> None:
        with self._lock:
            if len(self._pool) < POOL_MAX and not conn.closed:
                self._pool.append(conn)
                return
        conn.close()

    @property
    def pool_size(self) -> int:
        """Idle connections kept for reuse (PostgreSQL), for /metrics."""
        return len(self._pool)

    @contextmanager
    def transaction(self, *, serial: bool = False) -> Iterator[Cursor]:
        """One transaction; it commits when the block ends, rolls back when
        it raises. ``serial``: exclusive against every other ``serial``
        transaction of every replica (the audit chain's appends)."""
        if self.postgres:
            yield from self._postgres_transaction(serial)
        else:
            yield from self._sqlite_transaction()

    def _postgres_transaction(self, serial: bool) -> Iterator[Cursor]:
        import psycopg

        conn = self._borrow()
        try:
            with conn.transaction():
                cursor = Cursor(conn, True, self.signer)
                if serial:
                    cursor.run("SELECT pg_advisory_xact_lock(?, 1)", (LOCK_CLASS,))
                yield cursor
        except psycopg.OperationalError as exc:
            conn.close()
            raise Unavailable(_one_line(exc)) from None
        except psycopg.InterfaceError as exc:  # the connection was closed under us
            conn.close()
            raise Unavailable(_one_line(exc)) from None
        except BaseException:
            self._give_back(conn)
            raise
        self._give_back(conn)

    def _sqlite_transaction(self) -> Iterator[Cursor]:
        assert self.path is not None
        try:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise Unavailable(_one_line(exc)) from None
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Cursor(conn, False, self.signer)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            raise Unavailable(_one_line(exc)) from None
        finally:
            conn.close()

    def ping(self) -> None:
        """Raise :class:`Unavailable` unless the database answers."""
        with self.transaction() as cursor:
            cursor.run("SELECT 1")

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, []
        for conn in pool:
            conn.close()

    # -- schema ----------------------------------------------------------------

    def create_schema(self) -> None:
        """Create the server's tables where missing (idempotent, safe to race)."""
        if self.path is not None:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            conn = sqlite3.connect(self.path, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            finally:
                conn.close()
        with self.transaction(serial=True) as cursor:
            for statement in SCHEMA:
                cursor.run(statement)

    def tables(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every server table, sorted (tests compare the
        database before and after a refused request)."""
        names = [statement.split()[5] for statement in SCHEMA]
        with self.transaction() as cursor:
            return {name: sorted(cursor.run(f"SELECT * FROM {name}"), key=repr) for name in names}


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__
