"""The base of the SQL memory stores: what reading a memories table, its
history and its signatures means, written once for every SQL database.

A dialect (``mem_plugins/stores/sqlite.py``, ``postgres.py``) says how it
talks: its parameter mark, its table names, how a row of tags decodes, how a
tag and ``verified`` are tested, and which rows belong to the store (a
PostgreSQL database holds many stores, an SQLite file one); it keeps what
really differs — opening, migrations, full-text search, the write statements
and the health checks.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError
from mem_core.memories.interfaces import MemoryStore

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mem_core.memories.records import MemoryFilter

__all__ = ["MEMORY_COLUMNS", "M_MEMORY_COLUMNS", "SIGNATURE_COLUMNS", "SqlStore"]


#: the columns of a memory, in the order :meth:`SqlStore.record` reads them
MEMORY_COLUMNS = (
    "id, category, key, content, tags, priority, source, verified, confidence, "
    "expires_at, mind_id, created_at, updated_at"
)
#: :data:`MEMORY_COLUMNS` of the memories table aliased ``m``, as every statement names it
M_MEMORY_COLUMNS = ", ".join("m." + column.strip() for column in MEMORY_COLUMNS.split(","))
#: the columns of a signature row, and the keys of the signature it reads as
SIGNATURE_COLUMNS = ("memory_id", "by", "fingerprint", "verified_at", "signature")


class SqlStore(MemoryStore):
    """A :class:`MemoryStore` over SQL tables: a memories table (its rows
    aliased ``m`` in every statement), an append-only history table and a
    signatures table. Subclasses set the class attributes of their dialect,
    keep their open connection in ``_conn`` and implement :meth:`_rows`.

    Not generic over the driver's connection type: subscripting a
    ``Generic`` base at class creation made importing the SQLite store cost
    a tenth of a structured-memory command's start-up."""

    #: the driver's parameter mark
    MARK = "?"
    MEMORIES = "memories"
    HISTORY = "memory_history"
    #: how the history's ``record`` column reads as JSON text
    HISTORY_RECORD = "record"
    #: the order of a listing (on ``m``): priority, newest first, then the key
    ORDER = ""
    #: the LIMIT parameter meaning "no limit"
    NO_LIMIT: Any = -1
    #: the condition that a memory ``m`` holds the tag given as one parameter
    TAG_CLAUSE = ""

    #: the driver's open connection (``None``: closed)
    _conn: Any = None
    _in_transaction = False
    _read_only = False

    # -- what a dialect provides ----------------------------------------------

    def _rows(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        """The rows of one statement, its errors turned into ``MemError``."""
        raise NotImplementedError

    def _scope(self) -> tuple[list[str], list[Any]]:
        """The conditions (on ``m``) that keep the rows of this store, and
        their parameters: none when the database holds one store."""
        return [], []

    @staticmethod
    def _tag_value(tag: str) -> Any:
        return tag

    @staticmethod
    def _verified_value(verified: bool) -> Any:
        return verified

    @staticmethod
    def _tags(value: Any) -> list[str]:
        """The tags of a row as the column holds them."""
        return list(value)

    # -- rows and records -------------------------------------------------------

    @classmethod
    def record(cls, row: tuple[Any, ...]) -> dict[str, Any]:
        """The memory of a row of :data:`MEMORY_COLUMNS`."""
        (memory_id, category, key, content, tags, priority, source, verified, confidence, expires_at, mind_id,
         created_at, updated_at) = row  # fmt: skip
        return {
            "id": memory_id,
            "category": category,
            "key": key,
            "content": content,
            "tags": cls._tags(tags),
            "priority": priority,
            "source": source,
            "verified": bool(verified),
            "confidence": float(confidence),
            "expires_at": expires_at,
            "mind_id": mind_id,
            "created_at": created_at,
            "updated_at": updated_at,
        }

    def _select(self, conditions: list[str], params: list[Any]) -> list[dict[str, Any]]:
        scope, scoped = self._scope()
        sql = f"SELECT {M_MEMORY_COLUMNS} FROM {self.MEMORIES} m"
        if scope or conditions:
            sql += " WHERE " + " AND ".join([*scope, *conditions])
        return [self.record(row) for row in self._rows(sql, [*scoped, *params])]

    def _writing(self) -> Any:
        if not self._in_transaction:
            raise RuntimeError("memory store writes must happen inside store.transaction()")
        return self._connection()

    def _connection(self) -> Any:
        if self._conn is None:
            raise RuntimeError("the memory store is closed")
        return self._conn

    def _starting_transaction(self) -> Any:
        """The connection a new transaction runs on: none inside another, nor
        on a store open for reading only."""
        if self._in_transaction:
            raise RuntimeError("a memory store transaction is already open")
        conn = self._connection()
        if self._read_only:
            raise MemError(f"Memory store {self.location} is open for reading only.")
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- reads ------------------------------------------------------------------

    def get(self, memory_id: str) -> dict[str, Any] | None:
        found = self._select([f"m.id = {self.MARK}"], [memory_id])
        return found[0] if found else None

    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:
        mark = self.MARK
        found = self._select(
            [f"m.mind_id = {mark}", f"m.category = {mark}", f"m.key = {mark}"], [mind_id, category, key]
        )
        return found[0] if found else None

    def id_known(self, memory_id: str) -> bool:
        scope, scoped = self._scope()
        mark = self.MARK
        live = " AND ".join([*scope, f"m.id = {mark}"])
        logged = " AND ".join([*scope, f"m.memory_id = {mark}"])
        rows = self._rows(
            f"SELECT 1 FROM {self.MEMORIES} m WHERE {live} UNION ALL "
            f"SELECT 1 FROM {self.HISTORY} m WHERE {logged} LIMIT 1",
            [*scoped, memory_id, *scoped, memory_id],
        )
        return bool(rows)

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        scope, scoped = self._scope()
        where = " AND ".join([*scope, f"m.memory_id = {self.MARK}"])
        rows = self._rows(
            f"SELECT m.seq, m.memory_id, m.action, m.at, m.{self.HISTORY_RECORD} FROM {self.HISTORY} m "
            f"WHERE {where} ORDER BY m.seq",
            [*scoped, memory_id],
        )
        entries = []
        for seq, mid, action, at, record in rows:
            memory = json.loads(record)
            memory["confidence"] = float(memory["confidence"])  # JSON writes 1.0 as 1
            entries.append({"seq": seq, "memory_id": mid, "action": action, "at": at, "memory": memory})
        return entries

    def minds(self) -> list[tuple[str, int]]:
        scope, scoped = self._scope()
        where = " WHERE " + " AND ".join(scope) if scope else ""
        rows = self._rows(
            f"SELECT m.mind_id, count(*) FROM {self.MEMORIES} m{where} GROUP BY m.mind_id ORDER BY m.mind_id", scoped
        )
        return [(mind, int(count)) for mind, count in rows]

    def known_ids(self) -> list[str]:
        scope, scoped = self._scope()
        where = " WHERE " + " AND ".join(scope) if scope else ""
        rows = self._rows(
            f"SELECT m.memory_id FROM {self.HISTORY} m{where} GROUP BY m.memory_id ORDER BY min(m.seq)", scoped
        )
        return [row[0] for row in rows]

    def _where(self, where: MemoryFilter) -> tuple[list[str], list[Any]]:
        """The conditions (on ``m``) and parameters that keep what ``where``
        keeps of this store's memories."""
        from mem_core.memories.records import sql_conditions

        scope, scoped = self._scope()
        conditions, params = sql_conditions(
            where,
            self.MARK,
            tag_clause=self.TAG_CLAUSE,
            tag_value=self._tag_value,
            verified_value=self._verified_value,
        )
        return [*scope, *conditions], [*scoped, *params]

    def _query_sql(self, where: MemoryFilter) -> tuple[str, list[Any]]:
        conditions, params = self._where(where)
        sql = f"SELECT {M_MEMORY_COLUMNS} FROM {self.MEMORIES} m"
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        order = ("m.expires_at, " if where.expires_before is not None else "") + self.ORDER
        sql += f" ORDER BY {order} LIMIT {self.MARK}"
        return sql, [*params, self.NO_LIMIT if where.limit is None else where.limit]

    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:
        return [self.record(row) for row in self._rows(*self._query_sql(where))]

    def count(self, where: MemoryFilter) -> int:
        conditions, params = self._where(where)
        sql = f"SELECT count(*) FROM {self.MEMORIES} m"
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        return int(self._rows(sql, params)[0][0])

    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:
        """Every unexpired memory when ``tokens`` is None, none for no
        token, else those the dialect's terms index matches (:meth:`_matching`)."""
        if tokens is None:
            from mem_core.memories.records import MemoryFilter

            return self.query(MemoryFilter(now=now))
        if not tokens:
            return []
        return self._matching(tokens, now)

    def _matching(self, tokens: list[str], now: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def signatures(self, memory_id: str) -> list[dict[str, Any]]:
        return self.signatures_of([memory_id]).get(memory_id, [])

    @staticmethod
    def _signatures_by_memory(rows: Iterable[tuple[Any, ...]]) -> dict[str, list[dict[str, Any]]]:
        """Rows of :data:`SIGNATURE_COLUMNS`, in order, grouped by memory."""
        found: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            found.setdefault(row[0], []).append(dict(zip(SIGNATURE_COLUMNS, row, strict=True)))
        return found
