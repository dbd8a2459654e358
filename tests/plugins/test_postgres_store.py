"""The ``postgres`` backend beyond the contract suite (which it passes too):
lazy driver import, one-line failures that never show the password, the
directory marker that names a namespace, namespaces kept apart, the history
append-only in the database, ordered schema migrations, indexes in use,
code-point order under a non-C collation, the lock timeout.

Every test here runs against a throwaway server (``postgres_server.py``) and
is skipped when PostgreSQL or psycopg is missing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mem_core.errors import MemError, TryAgain
from mem_core.files import SYMLINK
from mem_core.memories.records import MemoryFilter, sort_records
from mem_core.testing import NOW, insert, record
from mem_plugins.stores import postgres as postgres_store
from mem_plugins.stores.postgres import DSN_ENV, MARKER, PostgresStore, search_words
from tests.plugins.postgres_server import (  # noqa: F401
    PASSWORD,
    admin_sql,
    new_database_dsn,
    postgres_server_fixture,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def dsn(postgres_server: str) -> str:
    """The throwaway server's DSN (the session fixture starts it; skips without PostgreSQL)."""
    return postgres_server


@pytest.fixture
def backend(dsn: str) -> type[PostgresStore]:
    return PostgresStore.bind(dsn)


def sql(dsn: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


# -- no driver at import, one-line failures -------------------------------------


def test_loading_the_plugins_imports_no_driver() -> None:
    code = (
        "import sys; from mem_core.kernel import Kernel; stores = Kernel().stores; "
        "print('postgres' in stores, 'psycopg' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.split() == ["True", "False"]


def test_without_psycopg_opening_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg -> ImportError
    directory = tmp_path / "store"
    with pytest.raises(MemError) as caught:
        PostgresStore.bind("dbname=x").open(str(directory), create=True)
    assert caught.value.message == (
        "The postgres memory store needs the psycopg driver: pip install 'mem-agent-memory[postgres]'."
    )
    assert not directory.exists()


def test_without_a_dsn_opening_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DSN_ENV, raising=False)
    with pytest.raises(MemError, match=f"^The postgres memory store needs {DSN_ENV}: "):
        PostgresStore.open(str(tmp_path / "store"), create=True)
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(
    ("dsn_text", "shown"),
    [
        (f"postgresql://mem:{PASSWORD}@/memtest?host=/nonexistent-mem-dir&port=5432", "postgresql://mem@/memtest?host=%2Fnonexistent-mem-dir&port=5432"),
        (f"postgresql://mem:{PASSWORD}@127.0.0.1:1/memtest", "postgresql://mem@127.0.0.1:1/memtest"),
        (f"host=127.0.0.1 port=1 user=mem password={PASSWORD} dbname=memtest", "postgresql://mem@127.0.0.1:1/memtest"),
    ],
)  # fmt: skip
def test_an_unreachable_server_is_a_one_line_error_without_the_password(
    tmp_path: Path, dsn_text: str, shown: str
) -> None:
    pytest.importorskip("psycopg")
    directory = tmp_path / "store"
    with pytest.raises(MemError) as caught:
        PostgresStore.bind(dsn_text).open(str(directory), create=True)
    message = caught.value.message
    assert message.startswith(f"Cannot connect to the memory store database {shown}: ")
    assert "\n" not in message and PASSWORD not in message
    assert not directory.exists()  # no marker for a store that was never created


@pytest.mark.parametrize(
    "dsn_text",
    [
        f"host=x password={PASSWORD} nonsense",
        f"postgresql://mem:{PASSWORD}@h/db?bogus_option=1",
        f"password='{PASSWORD}",
    ],
)
def test_an_invalid_dsn_is_refused_without_the_password(tmp_path: Path, dsn_text: str) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(MemError, match=f"^{DSN_ENV} is not a valid libpq connection string or URL: ") as caught:
        PostgresStore.bind(dsn_text).open(str(tmp_path / "store"), create=True)
    assert PASSWORD not in caught.value.message and "\n" not in caught.value.message


def test_location_is_the_url_without_the_password(backend: type[PostgresStore], dsn: str, tmp_path: Path) -> None:
    assert PASSWORD in dsn
    directory = tmp_path / "my store"
    with backend.open(str(directory), create=True) as store:
        host = dsn.split("host=")[1].split("&")[0]
        assert store.location == f"postgresql://mem@/memtest?host={host}&port=5432#{str(directory).replace(' ', '%20')}"
        assert PASSWORD not in store.location


# -- the directory marker names the namespace -------------------------------------


def test_exists_and_open_follow_the_marker(backend: type[PostgresStore], tmp_path: Path) -> None:
    directory = tmp_path / "project" / ".bmad" / "memory"
    assert not backend.exists(str(directory))
    with pytest.raises(MemError, match="^No memory store at .*memories.postgres.json\\.$"):
        backend.open(str(directory), create=False)
    assert not (tmp_path / "project").exists()
    with backend.open(str(directory), create=True) as store:
        assert store.namespace == str(directory)
        insert(store, record(content="kept on the server"))
    assert backend.exists(str(directory))
    assert [p.name for p in directory.iterdir()] == [MARKER]
    marker = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    assert marker == {"backend": "postgres", "namespace": str(directory)}
    with backend.open(str(directory), create=False) as store:
        assert [r["content"] for r in store.query(MemoryFilter(now=NOW))] == ["kept on the server"]


def test_a_moved_store_keeps_its_namespace_and_its_memories(backend: type[PostgresStore], tmp_path: Path) -> None:
    first = tmp_path / "old" / "memory"
    with backend.open(str(first), create=True) as store:
        kept = record(content="moved along")
        insert(store, kept)
    moved = tmp_path / "new-place"
    os.rename(tmp_path / "old", moved)
    with backend.open(str(moved / "memory"), create=False) as store:
        assert store.namespace == str(first)
        assert store.get(kept["id"]) == kept


def test_a_marker_naming_an_unknown_namespace(backend: type[PostgresStore], tmp_path: Path) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / MARKER).write_text(json.dumps({"backend": "postgres", "namespace": "nowhere/42"}), encoding="utf-8")
    with pytest.raises(
        MemError, match="^No memory store nowhere/42 in postgresql://mem@/memtest.* \\(named by .*\\)\\.$"
    ):
        backend.open(str(directory), create=False)
    with backend.open(str(directory), create=True) as store:  # creating it is what create is for
        assert store.namespace == "nowhere/42"


@pytest.mark.parametrize("content", ["", "not json", "[]", '{"namespace": ""}', '{"namespace": 3}'])
def test_a_damaged_marker_is_refused(backend: type[PostgresStore], tmp_path: Path, content: str) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / MARKER).write_text(content, encoding="utf-8")
    for create in (False, True):
        with pytest.raises(MemError, match="does not name a postgres memory store namespace; inspect it\\.$"):
            backend.open(str(directory), create=create)
    assert (directory / MARKER).read_text(encoding="utf-8") == content


def test_a_symlinked_marker_is_refused(backend: type[PostgresStore], tmp_path: Path) -> None:
    real = tmp_path / "real"
    with backend.open(str(real), create=True):
        pass
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / MARKER).symlink_to(real / MARKER)
    for create in (False, True):
        with pytest.raises(MemError) as caught:
            backend.open(str(directory), create=create)
        assert caught.value.message == SYMLINK


def test_namespaces_are_kept_apart(backend: type[PostgresStore], tmp_path: Path) -> None:
    one, two = backend.open(str(tmp_path / "one"), create=True), backend.open(str(tmp_path / "two"), create=True)
    with one, two:
        a = record(key="same", content="docker in one", tags=["shared"])
        b = {**a, "content": "docker in two"}  # the same id and key, another store
        insert(one, a)
        insert(two, b)
        with one.transaction():
            one.delete(a["id"], at=NOW)
        where = MemoryFilter(now=NOW)
        assert one.query(where) == [] and two.query(where) == [b]
        assert one.search(["docker"], where) == [] and two.search(["docker"], where) == [b]
        assert two.recall_candidates(["docker"], now=NOW) == [b] and one.recall_candidates(None, now=NOW) == []
        assert [e["action"] for e in one.history(a["id"])] == ["create", "delete"]
        assert [e["action"] for e in two.history(a["id"])] == ["create"]
        assert two.get_by_key("default", "fact", "same") == b


# -- the database itself ------------------------------------------------------------


def test_the_history_is_append_only_in_the_database(backend: type[PostgresStore], dsn: str, tmp_path: Path) -> None:
    import psycopg

    with backend.open(str(tmp_path / "store"), create=True) as store:
        r = record()
        insert(store, r)
    count = sql(dsn, "SELECT count(*) FROM mem_history")
    for statement in ("UPDATE mem_history SET at = 'x'", "DELETE FROM mem_history", "TRUNCATE mem_history"):
        with pytest.raises(psycopg.errors.RaiseException, match="mem_history is append-only"):
            sql(dsn, statement)
    assert sql(dsn, "SELECT count(*) FROM mem_history") == count


def test_migrations_apply_in_order_once_and_a_newer_database_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    own = new_database_dsn()
    backend = PostgresStore.bind(own)
    with backend.open(str(tmp_path / "a"), create=True) as store:
        assert store.schema_version == postgres_store.SCHEMA_VERSION == len(postgres_store.MIGRATIONS)
    shipped = postgres_store.SCHEMA_VERSION
    rows = sql(own, "SELECT version, description FROM mem_schema_migrations ORDER BY version")
    assert rows[0] == (1, "Stores, memories (with their search vector and recall terms), the append-only history.")
    assert [version for version, _ in rows] == list(range(1, shipped + 1))
    assert rows[3] == (
        4,
        "Humans' signatures (structured-memory.md, Trust); a memory verified before keeps that as a "
        "terminal confirmation at its updated_at.",
    )
    assert rows[5] == (
        6,
        "Embedding vectors of each store's memories for the hybrid ranking, shared by every machine that "
        "recalls the store (docs/recall.md).",
    )
    assert postgres_store.VECTORS_VERSION == 6
    assert sql(
        own,
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'mem_vectors' "
        "ORDER BY ordinal_position",
    ) == [("store", "integer"), ("model", "text"), ("hash", "bytea"), ("vector", "bytea")]

    applied: list[Any] = []

    def _migrate_later(conn: Any) -> None:
        """A later step."""
        applied.append(conn.execute("SELECT max(version) FROM mem_schema_migrations").fetchone()[0])
        conn.execute("CREATE TABLE mem_test_step (x integer)")

    monkeypatch.setattr(postgres_store, "MIGRATIONS", (*postgres_store.MIGRATIONS, _migrate_later))
    monkeypatch.setattr(postgres_store, "SCHEMA_VERSION", shipped + 1)
    for _ in range(2):
        with backend.open(str(tmp_path / "a"), create=False) as store:
            assert store.schema_version == shipped + 1
    assert applied == [shipped]  # once, after the shipped steps
    assert sql(own, "SELECT version, description FROM mem_schema_migrations WHERE version = %s", (shipped + 1,)) == [
        (shipped + 1, "A later step.")
    ]
    assert sql(own, "SELECT to_regclass('mem_test_step') IS NOT NULL") == [(True,)]

    future = shipped + 2
    sql(own, "INSERT INTO mem_schema_migrations (version, description) VALUES (%s, 'from the future')", (future,))
    stores = sql(own, "SELECT namespace FROM mem_stores ORDER BY id")
    with pytest.raises(MemError) as caught:
        backend.open(str(tmp_path / "b"), create=True)
    assert caught.value.message.endswith(
        f"has schema version {future}; this mem knows up to {shipped + 1}. Upgrade mem to use it."
    )
    assert sql(own, "SELECT namespace FROM mem_stores ORDER BY id") == stores
    assert not (tmp_path / "b").exists()


def test_a_failed_migration_leaves_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    own = new_database_dsn()

    def _migrate_broken(conn: Any) -> None:
        """Fails halfway."""
        conn.execute("CREATE TABLE mem_half_done (x integer)")
        conn.execute("SELECT 1/0")

    monkeypatch.setattr(postgres_store, "MIGRATIONS", (*postgres_store.MIGRATIONS, _migrate_broken))
    monkeypatch.setattr(postgres_store, "SCHEMA_VERSION", len(postgres_store.MIGRATIONS))
    with pytest.raises(MemError, match="division by zero"):
        PostgresStore.bind(own).open(str(tmp_path / "a"), create=True)
    assert sql(own, "SELECT to_regclass('mem_schema_migrations'), to_regclass('mem_half_done')") == [(None, None)]
    assert not (tmp_path / "a").exists()


def test_a_role_that_owns_its_database_is_enough_and_one_without_create_is_told(dsn: str, tmp_path: Path) -> None:
    """No superuser, no extension: the owner of a database (PostgreSQL 15 lets
    only the owner create in ``public``) can run every step; a role that may
    not create tables gets a one-line refusal."""
    admin_sql("CREATE ROLE mem_owner LOGIN")
    admin_sql("CREATE ROLE mem_guest LOGIN")
    admin_sql("CREATE DATABASE mem_owned OWNER mem_owner TEMPLATE template0")
    owner = dsn.replace("//mem:", "//mem_owner:").replace("/memtest?", "/mem_owned?")
    guest = dsn.replace("//mem:", "//mem_guest:").replace("/memtest?", "/mem_owned?")
    with pytest.raises(MemError) as caught:
        PostgresStore.bind(guest).open(str(tmp_path / "guest"), create=True)
    assert caught.value.message.startswith("Memory store postgresql://mem_guest@/mem_owned?host=")
    assert caught.value.message.endswith(": permission denied for schema public.")
    assert not (tmp_path / "guest").exists()
    with PostgresStore.bind(owner).open(str(tmp_path / "store"), create=True) as store:
        r = record(content="owned by an ordinary role")
        insert(store, r)
        with store.transaction():
            store.update({**r, "content": "changed"}, action="update", at=NOW)
        assert [m["id"] for m in store.search(["changed"], MemoryFilter(now=NOW))] == [r["id"]]
        assert [e["action"] for e in store.history(r["id"])] == ["create", "update"]
    with pytest.raises(Exception, match="mem_history is append-only"):
        sql(owner, "DELETE FROM mem_history")  # the trigger binds the table's owner too


def test_rare_words_tokens_and_tags_are_found_through_the_gin_indexes(tmp_path: Path) -> None:
    own = new_database_dsn()
    import psycopg

    common = [record(content=f"note {i} about docker", tags=["ops"]) for i in range(2000)]
    rare = record(content="the zanzibar incident", tags=["rare"])
    with PostgresStore.bind(own).open(str(tmp_path / "store"), create=True) as store:
        insert(store, *common, rare)
        assert [r["id"] for r in store.search(["zanzibar"], MemoryFilter(now=NOW))] == [rare["id"]]
        store_id = store.schema_version and store._store_id
    statements = {
        "mem_memories_search": "search @@ CAST('zanzibar' AS tsquery)",
        "mem_memories_terms": "terms && ARRAY['zanzibar']::text[]",
        "mem_memories_tags": "tags @> ARRAY['rare']::text[]",
    }
    with psycopg.connect(own, autocommit=True) as conn:
        conn.execute("ANALYZE mem_memories")
        for index, condition in statements.items():
            plan = conn.execute(f"EXPLAIN SELECT id FROM mem_memories WHERE store = %s AND {condition}", (store_id,))
            assert f"Bitmap Index Scan on {index}" in "\n".join(row[0] for row in plan)


def test_order_is_by_code_point_whatever_the_collation(backend: type[PostgresStore], dsn: str, tmp_path: Path) -> None:
    """The test database has an ICU en-US default collation (when the server
    has ICU), which orders ``alpha`` before ``Zeta``: the store must not."""
    minds = ["alpha", "Zeta", "Émile", "beta", "_x", "a b", "ab"]
    records = [record(key="same", mind_id=mind) for mind in minds]
    with backend.open(str(tmp_path / "store"), create=True) as store:
        insert(store, *records)
        found = [r["mind_id"] for r in store.query(MemoryFilter(now=NOW))]
    assert (
        found == [r["mind_id"] for r in sort_records(records)] == ["Zeta", "_x", "a b", "ab", "alpha", "beta", "Émile"]
    )
    icu = sql(dsn, "SELECT datlocprovider = 'i' FROM pg_database WHERE datname = current_database()") == [(True,)]
    if icu:
        assert sql(dsn, "SELECT array_agg(m ORDER BY m) FROM unnest(%s::text[]) m", (minds,))[0][0] != found


def test_a_writer_waits_then_gives_up_with_a_message(
    backend: type[PostgresStore], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_store, "LOCK_TIMEOUT_SECONDS", 1)
    directory = str(tmp_path / "store")
    with backend.open(directory, create=True) as first, backend.open(directory, create=False) as second:
        with first.transaction():
            with pytest.raises(MemError) as caught, second.transaction():
                pass  # pragma: no cover - the lock is not granted
        assert (
            caught.value.message
            == f"Memory store {second.location} stayed locked by another process for 1 s; try again."
        )
        assert isinstance(caught.value, TryAgain)  # a server answers 503 for it
        with second.transaction():  # free again once the first committed
            second.insert(record(), at=NOW)


def test_a_connection_the_server_cut_is_a_passing_failure(
    backend: type[PostgresStore], tmp_path: Path, dsn: str
) -> None:
    with backend.open(str(tmp_path / "store"), create=True) as store:
        pid = store._connection().info.backend_pid
        assert sql(dsn, "SELECT pg_terminate_backend(%s)", (pid,)) == [(True,)]
        with pytest.raises(TryAgain, match=f"^Memory store {re.escape(store.location)}: "):
            store.query(MemoryFilter(now=NOW))


def test_a_nul_character_is_refused_with_a_message(backend: type[PostgresStore], tmp_path: Path) -> None:
    with backend.open(str(tmp_path / "store"), create=True) as store:
        with (
            pytest.raises(MemError, match="cannot hold a NUL character \\(U\\+0000\\) in content") as caught,
            store.transaction(),
        ):
            store.insert(record(content="a\x00b"), at=NOW)
        assert not isinstance(caught.value, TryAgain)  # a server answers 400 for it
        assert store.query(MemoryFilter(now=NOW)) == []


# -- what a word is ----------------------------------------------------------------


def test_words_are_split_and_folded_by_mem_not_by_the_servers_parser(
    backend: type[PostgresStore], tmp_path: Path
) -> None:
    assert search_words("Zeitzone Europe/Berlin, v1.5.0 ΣΊΣΥΦΟΣ cache_values") == [
        "zeitzone", "europe", "berlin", "v1", "5", "0", "σισυφοσ", "cache", "values"
    ]  # fmt: skip
    path = record(content="Zeitzone Europe/Berlin")
    version = record(content="v1.5.0 deployed")
    greek = record(content="σίσυφος")
    phrase = record(content="the cache-values are kept")
    apart = record(content="values of the cache")
    huge = record(content="y" * 3000 + " findable")
    with backend.open(str(tmp_path / "store"), create=True) as store:
        insert(store, path, version, greek, phrase, apart, huge)
        where = MemoryFilter(now=NOW)

        def ids(*words: str) -> set[str]:
            return {r["id"] for r in store.search(list(words), where)}

        assert ids("berlin") == {path["id"]}
        assert ids("v1", "5") == {version["id"]}
        assert ids("ΣΊΣΥΦΟΣ") == {greek["id"]}
        assert ids("cache-values") == {phrase["id"]}  # a word of several is a phrase
        assert ids("cache", "values") == {phrase["id"], apart["id"]}
        assert ids("findable") == {huge["id"]} and ids("y" * 3000) == set()


def test_a_reader_of_a_database_from_before_signatures_reads_what_step_4_will_write(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A read-only reader never migrates: on a database of schema version 3
    (no ``mem_signatures``) it computes the terminal rows step 4 would
    write; the writer then migrates and keeps the same rows."""
    from mem_core.memories.trust import Judge

    own = new_database_dsn()
    backend = PostgresStore.bind(own)
    verified = record(key="user_name", content="Ada", verified=True, source="user")
    plain = record(key="other")
    with monkeypatch.context() as patch:
        patch.setattr(postgres_store, "MIGRATIONS", postgres_store.MIGRATIONS[:3])
        patch.setattr(postgres_store, "SCHEMA_VERSION", 3)
        with backend.open(str(tmp_path / "a"), create=True) as store:
            insert(store, verified, plain)
    assert sql(own, "SELECT to_regclass('mem_signatures')") == [(None,)]
    with backend.open_read_only(str(tmp_path / "a")) as reader:
        read = reader.signatures_of([verified["id"], plain["id"]])
        assert list(read) == [verified["id"]] and reader.signatures(plain["id"]) == []
        assert Judge({}).verification(reader.get(verified["id"]), read[verified["id"]]) == "terminal"
    assert sql(own, "SELECT max(version) FROM mem_schema_migrations") == [(3,)]  # nothing migrated
    with backend.open(str(tmp_path / "a"), create=False) as store:
        assert store.schema_version == postgres_store.SCHEMA_VERSION
        assert store.signatures_of([verified["id"], plain["id"]]) == read


# -- streaming: mem context reads only as far as its budget -------------------


def test_rows_stream_from_a_cursor_on_the_server_inside_a_read(backend: type[PostgresStore], tmp_path: Path) -> None:
    """Inside :meth:`reading` the rows come from a cursor on the server, 64
    at a time: stopping early leaves the rest unsent and closes the cursor;
    outside a transaction the answer is the same list."""
    directory = tmp_path / "store"
    records = [record(key=f"k{n:03d}", content=f"memory {n}") for n in range(150)]
    with backend.open(str(directory), create=True) as store:
        insert(store, *records)
    expected = [r["id"] for r in sort_records(records)]
    where = MemoryFilter(now=NOW, mind_id="default")
    with backend.open_read_only(str(directory)) as store:
        conn = store._conn
        assert conn is not None

        def open_cursors() -> int:
            return int(conn.execute("SELECT count(*) FROM pg_cursors").fetchone()[0])

        assert [r["id"] for r in store.iter_query(where)] == expected  # no transaction: the list
        with store.reading():
            rows = store.iter_query(where)
            first = [next(rows)["id"] for _ in range(3)]
            assert open_cursors() == 1  # the rows come from the server as they are read
            rows.close()
            assert open_cursors() == 0
            assert first == expected[:3]
            assert [r["id"] for r in store.iter_query(where)] == expected  # and all of them, streamed
            assert open_cursors() == 0
        assert conn.info.transaction_status == 0  # the read transaction is over


def test_a_read_sees_one_snapshot(backend: type[PostgresStore], tmp_path: Path, dsn: str) -> None:
    """The count and the rows of one :meth:`reading` agree even when a
    writer commits between them."""
    directory = tmp_path / "store"
    with backend.open(str(directory), create=True) as store:
        insert(store, record(key="first"))
    where = MemoryFilter(now=NOW, mind_id="default")
    with backend.open_read_only(str(directory)) as reader, reader.reading():
        counted = reader.count(where)
        with backend.open(str(directory), create=False) as writer:
            insert(writer, record(key="second"))
        assert counted == 1 and [r["key"] for r in reader.iter_query(where)] == ["first"]
    with backend.open_read_only(str(directory)) as reader:
        assert reader.count(where) == 2
