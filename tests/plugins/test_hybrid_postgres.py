"""The ``hybrid`` ranking in a project whose structured memories live in
PostgreSQL: their vectors go to the store's ``mem_vectors`` table (schema
step 6), never the user cache; the embedding index's logic is the one the
user cache's file uses (exact, incremental, a row of the wrong size
re-embedded, pruned), and a table that cannot be used is said and the user
cache serves.

Runs against the throwaway server of ``tests/plugins/postgres_server.py``;
skipped without PostgreSQL, psycopg or the embeddings extra.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("onnxruntime", reason="the embeddings extra (tox installs it)")

from mem_core.api import memories  # noqa: E402
from mem_core.api.recall import recall  # noqa: E402
from mem_core.embeddings import store  # noqa: E402
from mem_core.embeddings.model import load_embedder  # noqa: E402
from mem_core.embeddings.store import EmbeddingIndex, text_hash  # noqa: E402
from mem_core.memories.records import recall_text  # noqa: E402
from mem_plugins.stores import postgres as postgres_store  # noqa: E402
from mem_plugins.stores.postgres import DSN_ENV, PostgresStore  # noqa: E402
from tests.plugins.postgres_server import new_database_dsn, postgres_server_fixture  # noqa: E402, F401

NOW = "2026-11-05T12:00:00.000Z"
MEMORIES = (
    ("tokens", "API tokens are revocable by their owner."),
    ("schema", "Migrations must be backwards compatible."),
    ("release", "We ship every second Tuesday from the main branch."),
    ("logging", "JSON lines on stderr, one event per line."),
)
WIDTH = 384 * 4


def sql(dsn: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


@pytest.fixture
def dsn(postgres_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database of its own; the project's store is PostgreSQL."""
    own = new_database_dsn()
    monkeypatch.setenv("MEM_STORE", "postgres")
    monkeypatch.setenv(DSN_ENV, own)
    return own


@pytest.fixture
def indexes(monkeypatch: pytest.MonkeyPatch) -> list[EmbeddingIndex]:
    """Every embedding index a recall filled, as a new process finds them
    (nothing of an earlier recall kept in this process's memory)."""
    made: list[EmbeddingIndex] = []
    vectors = EmbeddingIndex.vectors

    def recorded(self: EmbeddingIndex, texts: Any, stored: Any = None) -> Any:
        made.append(self)
        return vectors(self, texts, stored)

    monkeypatch.setattr(EmbeddingIndex, "vectors", recorded)
    return made


def fresh_recall(query: str, project: Path) -> list[str]:
    """A hybrid recall as a new process makes it: only the tables remember."""
    store._memory.clear()
    store._last.clear()
    result = recall(query, directory=str(project), ranking="hybrid", now=NOW)
    return [hit.fields["ref"] for hit in result.results]


def remembered(project: Path) -> set[bytes]:
    """The hashes of the project's memories' recall texts."""
    found = memories.list_memories(directory=str(project)).memories
    return {text_hash(recall_text({"key": m.key, "content": m.content, "tags": m.tags})) for m in found}


def user_cache_files(tmp_path: Path) -> list[Path]:
    """The embedding index files of the user cache (beside them: the build
    lock, which holds no vector)."""
    found = (tmp_path / "user-cache" / "mem" / "embeddings").glob("*.sqlite*")
    return sorted(path for path in found if not path.name.endswith((".build", ".builder")))


def rows(dsn: str) -> dict[bytes, int]:
    return {bytes(h): size for h, size in sql(dsn, "SELECT hash, length(vector) FROM mem_vectors")}


@pytest.fixture
def pg_project(project: Path, dsn: str) -> Path:
    for key, content in MEMORIES:
        memories.remember("fact", key, content, directory=str(project))
    return project


def test_the_memories_vectors_live_in_the_database_and_embed_once(
    pg_project: Path, dsn: str, tmp_path: Path, indexes: list[EmbeddingIndex]
) -> None:
    assert fresh_recall("how can I cancel an access key", pg_project)[0] == "fact/tokens"
    assert [index.embedded for index in indexes] == [len(MEMORIES)]
    assert rows(dsn) == dict.fromkeys(remembered(pg_project), WIDTH)
    assert user_cache_files(tmp_path) == []  # no vector of a memory in the user cache
    assert sql(dsn, "SELECT DISTINCT model FROM mem_vectors") == [(load_embedder().key,)]

    with PostgresStore.bind(dsn).open_read_only(str(pg_project / ".bmad" / "memory")) as opened:
        said = {row["name"]: row["detail"] for row in opened.doctor(False)}
    assert (
        said["embedding vectors"] == f"{len(MEMORIES)} in mem_vectors, for the hybrid ranking of this store's memories"
    )

    indexes.clear()
    assert fresh_recall("when do we publish a new version", pg_project)[0] == "fact/release"
    assert [index.embedded for index in indexes] == [0]  # read back from the database

    memories.remember("fact", "tokens", "API tokens expire after a day.", directory=str(pg_project))
    indexes.clear()
    assert fresh_recall("how long does an access key last", pg_project)[0] == "fact/tokens"
    assert [index.embedded for index in indexes] == [1]  # the changed memory only
    assert set(rows(dsn)) >= remembered(pg_project) and len(rows(dsn)) == len(MEMORIES) + 1
    assert user_cache_files(tmp_path) == []


def test_a_row_of_the_wrong_size_is_dropped_and_embedded_again(
    pg_project: Path, dsn: str, indexes: list[EmbeddingIndex]
) -> None:
    fresh_recall("release day", pg_project)
    first = "(SELECT hash FROM mem_vectors ORDER BY hash LIMIT 1)"
    sql(dsn, f"UPDATE mem_vectors SET vector = '\\x00'::bytea WHERE hash = {first}")
    assert sorted(rows(dsn).values()) == [1] + [WIDTH] * (len(MEMORIES) - 1)
    indexes.clear()
    assert fresh_recall("how can I cancel an access key", pg_project)[0] == "fact/tokens"
    assert [index.embedded for index in indexes] == [1]
    assert rows(dsn) == dict.fromkeys(remembered(pg_project), WIDTH)


def test_notes_stay_in_the_user_cache_beside_the_memories_in_the_database(
    pg_project: Path, dsn: str, tmp_path: Path, indexes: list[EmbeddingIndex]
) -> None:
    import sqlite3

    memory = pg_project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("### Test database\nA throwaway PostgreSQL per session.\n", encoding="utf-8")
    fresh_recall("which database do the tests use", pg_project)
    assert [index.embedded for index in indexes] == [len(MEMORIES) + 1]
    assert set(rows(dsn)) == remembered(pg_project)
    (cache,) = [path for path in user_cache_files(tmp_path) if path.suffix == ".sqlite"]
    with sqlite3.connect(cache) as conn:
        kept = {bytes(h) for (h,) in conn.execute("SELECT hash FROM vectors")}
    assert len(kept) == 1 and not kept & remembered(pg_project)  # the note's section only


def test_a_database_before_step_6_is_said_and_the_user_cache_serves(
    project: Path, dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reader never migrates: on a database of schema version 5 the
    vectors are kept in the user cache, and the ranking is the same."""
    with monkeypatch.context() as patch:
        patch.setattr(postgres_store, "MIGRATIONS", postgres_store.MIGRATIONS[:5])
        patch.setattr(postgres_store, "SCHEMA_VERSION", 5)
        for key, content in MEMORIES:
            memories.remember("fact", key, content, directory=str(project))
    monkeypatch.setattr(store, "_reported", set())
    assert fresh_recall("how can I cancel an access key", project)[0] == "fact/tokens"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has schema version 5, before its embedding vectors (version 6" in err
    assert err.endswith("; the memories' vectors are kept in the user cache\n") and "s3cret" not in err
    assert [path.suffix for path in user_cache_files(tmp_path)] == [".sqlite"]
    assert sql(dsn, "SELECT max(version) FROM mem_schema_migrations") == [(5,)]  # nothing migrated
    fresh_recall("when do we publish a new version", project)
    assert capsys.readouterr().err == ""  # said once


def test_a_session_that_cannot_write_the_table_keeps_them_in_the_user_cache(
    pg_project: Path, dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A standby or a read-only role: the table is left alone, never half
    written, and the ranking is the same."""
    monkeypatch.setenv(DSN_ENV, dsn + "&options=-c%20default_transaction_read_only%3Don")
    monkeypatch.setattr(store, "_reported", set())
    assert fresh_recall("how can I cancel an access key", pg_project)[0] == "fact/tokens"
    err = capsys.readouterr().err
    assert err.endswith(": this session cannot write mem_vectors; the memories' vectors are kept in the user cache\n")
    assert [path.suffix for path in user_cache_files(tmp_path)] == [".sqlite"] and rows(dsn) == {}


def test_an_unreachable_database_is_skipped_as_the_store_is(
    pg_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DSN_ENV, f"postgresql://mem@/memtest?host={tmp_path / 'nowhere'}&port=5432")
    result = recall("how can I cancel an access key", directory=str(pg_project), ranking="hybrid", now=NOW)
    assert result.results == [] and [item["path"] for item in result.skipped] == [".bmad/memory"]
    assert result.skipped[0]["reason"].startswith("Cannot connect to the memory store database ")
    assert user_cache_files(tmp_path) == []


def test_writers_on_several_machines_never_fail(pg_project: Path, dsn: str) -> None:
    """Processes that embed the same memories at once all succeed: each
    writes what another already wrote without an error."""
    namespace = str(pg_project / ".bmad" / "memory")
    table = PostgresStore.bind(dsn).vector_table(namespace)
    assert table is not None
    rows_written = [(bytes([n]) * 20, bytes([n]) * WIDTH) for n in range(64)]
    failures: list[BaseException] = []

    def write(order: int) -> None:
        mine = PostgresStore.bind(dsn).vector_table(namespace)
        assert mine is not None
        try:
            mine.open()
            for _ in range(10):
                mine.write("m", rows_written[::order])
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            failures.append(exc)
        finally:
            mine.close()

    threads = [threading.Thread(target=write, args=(order,)) for order in (1, -1, 1, -1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    table.open()
    try:
        assert sorted(table.read("m", {h for h, _ in rows_written})) == rows_written
        assert table.count() == 64
    finally:
        table.close()


def test_every_store_of_a_database_has_its_own_rows(project: Path, dsn: str, tmp_path: Path) -> None:
    """Two projects' stores in one database: a prune in one never touches
    the other's rows."""
    other = tmp_path / "other"
    other.mkdir()
    for directory in (project, other):
        memories.remember("fact", "tokens", "API tokens are revocable by their owner.", directory=str(directory))
    tables = [PostgresStore.bind(dsn).vector_table(str(d / ".bmad" / "memory")) for d in (project, other)]
    mine, theirs = tables
    assert mine is not None and theirs is not None and mine.key != theirs.key
    for table, digest in ((mine, b"a" * 20), (theirs, b"b" * 20)):
        table.open()
        table.write("m", [(digest, b"\0" * WIDTH)])
    mine.prune(list(theirs.every_hash()) + [b"a" * 20])
    assert list(theirs.every_hash()) == [b"b" * 20] and mine.count() == 0
    for table in tables:
        table.close()  # type: ignore[union-attr]


def test_what_lacks_a_vector_is_counted_there_and_rows_nobody_asks_for_are_pruned(
    pg_project: Path, dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh_recall("release day", pg_project)
    table = PostgresStore.bind(dsn).vector_table(str(pg_project / ".bmad" / "memory"))
    index = EmbeddingIndex(str(tmp_path / "elsewhere.sqlite"), load_embedder(), table)
    found = memories.list_memories(directory=str(pg_project)).memories
    texts = [recall_text({"key": m.key, "content": m.content, "tags": m.tags}) for m in found]
    store._memory.clear()
    assert index.lacking([*texts, "A note section"], [True] * len(texts) + [False]) == 1  # the note only
    assert index.lacking(["A new memory"], [True]) == 1

    monkeypatch.setattr(store, "SLACK", 0)
    memories.remember("fact", "tokens", "API tokens expire after a day.", directory=str(pg_project))
    fresh_recall("release day", pg_project)
    assert rows(dsn) == dict.fromkeys(remembered(pg_project), WIDTH)  # the old text's row is gone
