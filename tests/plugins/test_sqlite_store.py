"""What the ``sqlite`` backend promises beyond the contract: one WAL file, FTS
indexes in step, versioned migrations, an append-only history, safe paths."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from mem_core.errors import MemError
from mem_core.files import SYMLINK
from mem_core.memories.records import MemoryFilter, recall_terms
from mem_core.testing import NOW, insert, record
from mem_plugins.stores.sqlite import FILE, MIGRATIONS, SCHEMA_VERSION, SqliteStore


def dump(path: Path) -> list[str]:
    """Every table's rows as SQL (what changed, not how SQLite laid out pages)."""
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    return tmp_path / "store"


def test_one_file_in_wal_mode(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        assert store.location == str(directory / FILE)
        insert(store, record())
    assert sorted(os.listdir(directory)) == [FILE]  # the WAL is checkpointed away on close
    conn = sqlite3.connect(directory / FILE)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
    conn.close()


def test_importing_the_plugin_does_not_import_sqlite3() -> None:
    code = "import sys, mem_plugins.stores.sqlite, mem_plugins.sources.memories; print('sqlite3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"


def test_both_indexes_stay_in_step_with_the_table(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        records = [record(content=f"alpha beta {i} café-crème", tags=["t", f"x{i}"], key=f"key_{i}") for i in range(30)]
        insert(store, *records)
        with store.transaction():
            for r in records[:10]:
                store.update({**r, "content": "gamma delta", "tags": ["changed"]}, action="update", at=NOW)
            for r in records[10:20]:
                store.delete(r["id"], at=NOW)
            for r in records[20:25]:
                store.update({**r, "verified": True}, action="verify", at=NOW)
    conn = sqlite3.connect(directory / FILE)
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")  # raises if out of step
    conn.execute("INSERT INTO memory_terms (memory_terms) VALUES ('integrity-check')")
    with SqliteStore.open(str(directory), create=False) as store:
        live = store.query(MemoryFilter(now=NOW))
    assert len(live) == 20
    terms = dict(conn.execute("SELECT rowid, terms FROM memory_terms").fetchall())
    rows = dict(conn.execute("SELECT id, n FROM memories").fetchall())
    assert len(terms) == 20
    for r in live:
        assert terms[rows[r["id"]]] == " ".join(recall_terms(r))
    tags = conn.execute("SELECT count(*) FROM memory_tags").fetchone()[0]
    assert tags == sum(len(r["tags"]) for r in live)
    conn.close()


def test_an_old_schema_is_migrated_in_order_and_backfilled(directory: Path) -> None:
    directory.mkdir()
    conn = sqlite3.connect(directory / FILE, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version = 1")
    old = record(key="user_name", content="Michael Schäfer")
    conn.execute(
        "INSERT INTO memories (id, category, key, content, tags, priority, source, verified, confidence, "
        "expires_at, mind_id, created_at, updated_at) VALUES (?, 'fact', 'user_name', ?, '[]', 'normal', "
        "'agent', 0, 0.7, NULL, 'default', ?, ?)",
        (old["id"], old["content"], NOW, NOW),
    )
    conn.close()
    with SqliteStore.open(str(directory), create=False) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.get(old["id"]) == old
        assert store.recall_candidates(["schäfer"], now=NOW) == [old]
        assert store.recall_candidates(["user_name"], now=NOW) == [old]
        # step 3 rebuilt the full-text index: stems and prefixes find what step 1 indexed
        assert store.search(["schafers"], MemoryFilter(now=NOW)) == [old]
        assert store.search(["mich", "absent"], MemoryFilter(now=NOW)) == [old]


def test_the_search_index_is_stemmed_with_prefixes(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        insert(store, record())
    conn = sqlite3.connect(directory / FILE)
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'").fetchone()
    conn.close()
    assert "porter unicode61 remove_diacritics 2" in sql and "prefix = '2 3'" in sql


def test_a_newer_schema_is_refused_and_left_alone(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        insert(store, record())
    conn = sqlite3.connect(directory / FILE)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = dump(directory / FILE)
    with pytest.raises(MemError) as caught:
        SqliteStore.open(str(directory), create=False)
    assert caught.value.message == (
        f"Memory store {directory / FILE} has schema version 99; this mem knows up to {SCHEMA_VERSION}. "
        "Upgrade mem to use it."
    )
    assert dump(directory / FILE) == before


def test_the_history_is_append_only(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        insert(store, record())
    conn = sqlite3.connect(directory / FILE)
    for statement in ("UPDATE memory_history SET action = 'update'", "DELETE FROM memory_history"):
        with pytest.raises(sqlite3.DatabaseError, match="memory_history is append-only"):
            conn.execute(statement)
    assert conn.execute("SELECT count(*) FROM memory_history").fetchone()[0] == 1
    conn.close()


def test_the_schema_refuses_values_outside_the_model(directory: Path) -> None:
    with SqliteStore.open(str(directory), create=True) as store:
        for bad in ({"category": "bogus"}, {"priority": "urgent"}, {"source": "robot"}, {"confidence": 1.5}):
            with pytest.raises(MemError, match="CHECK constraint failed"), store.transaction():
                store.insert(record(**bad), at=NOW)
        assert store.query(MemoryFilter(now=NOW, include_expired=True)) == []


@pytest.mark.parametrize("name", [FILE, FILE + "-wal", FILE + "-shm"])
def test_symbolic_links_are_refused(directory: Path, tmp_path: Path, name: str) -> None:
    directory.mkdir()
    (tmp_path / "elsewhere").write_bytes(b"")
    os.symlink(tmp_path / "elsewhere", directory / name)
    with pytest.raises(MemError) as caught:
        SqliteStore.open(str(directory), create=True)
    assert caught.value.message == SYMLINK
    assert (tmp_path / "elsewhere").read_bytes() == b""


def test_a_file_that_is_not_a_database_is_reported_and_kept(directory: Path) -> None:
    directory.mkdir()
    (directory / FILE).write_bytes(b"not a database at all, just text" * 100)
    with pytest.raises(MemError) as caught:
        SqliteStore.open(str(directory), create=False)
    assert caught.value.message == (
        f"Memory store {directory / FILE} is not a SQLite database or is damaged; inspect it before using it."
    )
    assert (directory / FILE).read_bytes() == b"not a database at all, just text" * 100


def test_the_history_migration_keeps_every_row_and_accepts_restore(directory: Path) -> None:
    """Step 3 rebuilds ``memory_history`` (its CHECK gains ``restore``): every
    row, its seq and order are kept, and it is append-only again."""
    directory.mkdir()
    conn = sqlite3.connect(directory / FILE, isolation_level=None)
    for step in MIGRATIONS[:2]:
        step(conn)
    conn.execute("PRAGMA user_version = 2")
    for seq, action in ((3, "create"), (7, "update"), (9, "delete")):
        conn.execute(
            "INSERT INTO memory_history (seq, memory_id, action, at, record) VALUES (?, 'mem_01', ?, ?, ?)",
            (seq, action, NOW, '{"id":"mem_01","confidence":1}'),
        )
    before = conn.execute("SELECT * FROM memory_history ORDER BY seq").fetchall()
    conn.close()
    with SqliteStore.open(str(directory), create=False) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [e["seq"] for e in store.history("mem_01")] == [3, 7, 9]
        assert store.known_ids() == ["mem_01"]
        with store.transaction():
            store.insert(record(id="mem_01"), at=NOW, action="restore")
        assert [e["action"] for e in store.history("mem_01")] == ["create", "update", "delete", "restore"]
    conn = sqlite3.connect(directory / FILE)
    assert conn.execute("SELECT * FROM memory_history ORDER BY seq").fetchall()[:3] == before
    assert conn.execute("SELECT max(seq) FROM memory_history").fetchone()[0] == 10
    with pytest.raises(sqlite3.DatabaseError, match="memory_history is append-only"):
        conn.execute("DELETE FROM memory_history")
    conn.close()


def _version_4_store(directory: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A store at schema version 4 (before ``signatures``) in ``directory``
    holding a verified memory a user stated and a plain one; both returned."""
    directory.mkdir()
    conn = sqlite3.connect(directory / FILE, isolation_level=None)
    for step in MIGRATIONS[:4]:
        step(conn)
    conn.execute("PRAGMA user_version = 4")
    verified = record(key="user_name", content="Ada", verified=True, source="user")
    plain = record(key="other")
    for r in (verified, plain):
        conn.execute(
            "INSERT INTO memories (id, category, key, content, tags, priority, source, verified, confidence, "
            "expires_at, mind_id, created_at, updated_at) VALUES (?, 'fact', ?, ?, '[]', 'normal', ?, ?, 0.7, NULL, "
            "'default', ?, ?)",
            (r["id"], r["key"], r["content"], r["source"], int(r["verified"]), NOW, NOW),
        )
    conn.close()
    return verified, plain


def test_a_store_from_before_signatures_keeps_its_verified_memories_as_terminal_confirmations(
    directory: Path,
) -> None:
    """Step 5 adds ``signatures``; a memory verified before (only a terminal
    could do it then) gets a terminal row over its content, so it reads
    ``terminal`` where no human key is trusted, and nothing more."""
    from mem_core.memories.trust import Judge

    verified, plain = _version_4_store(directory)
    with SqliteStore.open(str(directory), create=False) as store:
        assert store.schema_version == SCHEMA_VERSION
        rows = store.signatures_of([verified["id"], plain["id"]])
        assert list(rows) == [verified["id"]] and rows[verified["id"]][0]["fingerprint"] == "terminal"
        judge = Judge({})
        assert judge.verification(store.get(verified["id"]), rows[verified["id"]]) == "terminal"
        assert judge.verification({**verified, "content": "edited"}, rows[verified["id"]]) == "signature-invalid"


def test_a_reader_of_a_store_from_before_signatures_reads_what_step_5_will_write(directory: Path) -> None:
    """A read-only reader never migrates: on a version 4 database (no
    ``signatures`` table) it computes the terminal rows step 5 would write,
    so a memory verified then reads ``terminal`` before and after the
    migration alike, and the file is left as it was."""
    from mem_core.memories.trust import Judge

    verified, plain = _version_4_store(directory)
    before = (directory / FILE).read_bytes()
    with SqliteStore.open_read_only(str(directory)) as reader:
        read = reader.signatures_of([verified["id"], plain["id"]])
        assert Judge({}).verification(reader.get(verified["id"]), read[verified["id"]]) == "terminal"
        assert list(read) == [verified["id"]] and reader.signatures(plain["id"]) == []
    assert (directory / FILE).read_bytes() == before
    with SqliteStore.open(str(directory), create=False) as store:  # the writer migrates: the same rows
        assert store.schema_version == SCHEMA_VERSION
        assert store.signatures_of([verified["id"], plain["id"]]) == read


class _CommitsBetweenReads:
    """A connection whose every statement after ``PRAGMA user_version`` runs
    once ``writer`` has committed: the moment when another process that is
    creating the store commits its schema."""

    def __init__(self, conn: sqlite3.Connection, writer: sqlite3.Connection) -> None:
        self._conn = conn
        self._writer = writer

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    def execute(self, sql: str) -> sqlite3.Cursor:
        cursor = self._conn.execute(sql)
        if sql.startswith("PRAGMA user_version") and self._writer.in_transaction:
            self._writer.execute("COMMIT")
        return cursor


def test_a_store_being_created_is_never_taken_for_a_foreign_database(directory: Path) -> None:
    """Its identity is read in one snapshot: the version and the tables of
    one moment (read one statement at a time, a commit between them gave
    version 0 with tables: "another schema")."""
    from mem_plugins.stores.sqlite import _identify

    directory.mkdir()
    path = directory / FILE
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("BEGIN IMMEDIATE")
    for step in MIGRATIONS:
        step(writer)
    writer.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        racing = _CommitsBetweenReads(reader, writer)
        assert _identify(racing) == ("blank", 0)  # type: ignore[arg-type]  # as it was when the read began
        assert not writer.in_transaction and not reader.in_transaction
        assert _identify(reader) == ("own", SCHEMA_VERSION)  # and once created, it is mem's
    finally:
        reader.close()
        writer.close()
