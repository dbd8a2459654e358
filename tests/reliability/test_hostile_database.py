"""Hostile structured-memory databases (issue 10 item 2): whatever sits at
``.bmad/memory/memories.sqlite3`` — a foreign SQLite database, one of a newer
schema, an empty file, garbage, a directory, a FIFO, a socket — every command
that reads or writes the store answers in one line, exits 1 (``recall`` skips
the store with one line and goes on), never hangs, and leaves every byte,
size and mtime of the directory as it found it, with no new file. A
read-only ``.bmad/memory`` can still be read.

Real ``mem`` processes (``python -m mem_cli``), each with a timeout, so a hang
fails the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mem_plugins.stores.sqlite import SCHEMA_VERSION

NOW = "2026-11-05T12:00:00.000Z"
TIMEOUT = 30


def run(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, MEM_NOW=NOW, **(env or {}))
    project.mkdir(parents=True, exist_ok=True)
    try:
        return subprocess.run(
            [sys.executable, "-m", "mem_cli", args[0], "-d", str(project), *args[1:]],
            env=full,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            cwd=project,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"mem {' '.join(args)} hung (more than {TIMEOUT} s)")


def snapshot(folder: Path) -> dict[str, tuple[str, str, int, int]]:
    """Every entry of ``folder``: its kind, sha256, size and mtime."""
    found = {}
    for name in sorted(os.listdir(folder)):
        path = folder / name
        st = path.lstat()
        if path.is_file() and not path.is_symlink():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[name] = ("file", digest, st.st_size, st.st_mtime_ns)
        else:
            found[name] = ("other", "", st.st_size if not path.is_dir() else 0, st.st_mtime_ns)
    return found


# -- what is put at the store's path -------------------------------------------------


def _foreign(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('Ada')")
    conn.commit()
    conn.close()


def _foreign_wal_versioned(db: Path) -> None:
    """Another application's database in WAL mode that sets user_version too."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE memories (id TEXT)")
    conn.execute("PRAGMA user_version = 2")
    conn.close()


def _newer(db: Path) -> None:
    project = db.parent.parent.parent
    result = run(project, "remember", "fact", "newer_key", "--", "a memory of a newer mem")
    assert result.returncode == 0, result.stderr
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


def _empty(db: Path) -> None:
    db.write_bytes(b"")


def _garbage(db: Path) -> None:
    db.write_bytes(bytes(range(256)) * 16)


def _directory(db: Path) -> None:
    db.mkdir()


def _fifo(db: Path) -> None:
    os.mkfifo(db)


def _socket(db: Path) -> None:
    if len(str(db)) > 100:
        pytest.skip("the path is too long for a Unix socket")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(db))
    sock.close()


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "foreign": (_foreign, "of another schema (not mem's)"),
    "foreign-wal-versioned": (_foreign_wal_versioned, "of another schema (not mem's)"),
    "newer": (_newer, "has schema version 99; this mem knows up to"),
    "empty": (_empty, "is an empty file, not a mem database"),
    "garbage": (_garbage, "is not a SQLite database or is damaged"),
    "directory": (_directory, "is not a regular file"),
    "fifo": (_fifo, "is not a regular file"),
    "socket": (_socket, "is not a regular file"),
}

COMMANDS: dict[str, list[str]] = {
    "context": ["context"],
    "memories": ["memories"],
    "memories-search": ["memories", "--search", "docker"],
    "brief": ["brief"],
    "remember": ["remember", "fact", "docker_host", "--", "the docker host is blue"],
    "forget": ["forget", "fact/docker_host"],
    "verify": ["verify", "fact/docker_host"],
}


@pytest.fixture
def hostile_project(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, Path, str]:
    project = tmp_path / "p"
    folder = project / ".bmad" / "memory"
    folder.mkdir(parents=True)
    make, expected = HOSTILE[request.param]
    make(folder / "memories.sqlite3")
    return project, folder, expected


#: every (hostile store, command) pair but remember on an empty file: a writer
#: initialises that (it holds nothing), see the test after this one
PAIRS = [(kind, command) for kind in HOSTILE for command in COMMANDS if (kind, command) != ("empty", "remember")]


@pytest.mark.parametrize(("hostile_project", "command"), PAIRS, indirect=["hostile_project"])
def test_a_hostile_store_is_refused_in_one_line_and_left_unchanged(
    hostile_project: tuple[Path, Path, str], command: str
) -> None:
    project, folder, expected = hostile_project
    before = snapshot(folder)
    result = run(project, *COMMANDS[command])
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"mem {COMMANDS[command][0]}: "), result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(folder) == before


@pytest.mark.parametrize("hostile_project", ["foreign", "newer", "directory", "fifo"], indirect=True)
def test_the_json_refusal_is_one_json_line(hostile_project: tuple[Path, Path, str]) -> None:
    project, folder, expected = hostile_project
    before = snapshot(folder)
    result = run(project, "memories", "--json")
    assert result.returncode == 1
    assert expected in json.loads(result.stdout)["error"]
    assert snapshot(folder) == before


@pytest.mark.parametrize("hostile_project", list(HOSTILE), indirect=True)
def test_recall_skips_a_hostile_store_in_one_line_and_still_answers(hostile_project: tuple[Path, Path, str]) -> None:
    project, folder, expected = hostile_project
    (project / ".agents" / "memory").mkdir(parents=True)
    (project / ".agents" / "memory" / "lessons.md").write_text("### Docker\nthe docker host is green\n")
    before = snapshot(folder)
    result = run(project, "recall", "docker", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["count"] == 1
    [skipped] = answer["skipped"]
    assert skipped["path"] == ".bmad/memory" and expected in skipped["reason"]
    text = run(project, "recall", "docker")
    assert text.returncode == 0 and "the docker host is green" in text.stdout
    lines = text.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mem recall: skipped .bmad/memory: ") and expected in lines[0]
    assert snapshot(folder) == before


def test_a_missing_store_reads_as_empty_and_is_not_created(tmp_path: Path) -> None:
    project = tmp_path / "p"
    folder = project / ".bmad" / "memory"
    folder.mkdir(parents=True)
    for args in (["context"], ["memories", "--json"], ["recall", "docker"], ["brief"]):
        result = run(project, *args)
        assert result.returncode == 0, result.stderr
    assert json.loads(run(project, "memories", "--json").stdout)["memories"] == []
    assert os.listdir(folder) == []


def test_a_mem_store_of_an_older_schema_is_read_without_migrating_it(tmp_path: Path) -> None:
    project = tmp_path / "p"
    assert run(project, "remember", "fact", "docker_host", "--", "the docker host is blue").returncode == 0
    db = project / ".bmad" / "memory" / "memories.sqlite3"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TABLE memory_terms")  # as schema version 1 had it
    conn.execute("DROP TABLE signatures")  # (step 5's, made for the memory stored above)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    before = db.read_bytes()
    recall = run(project, "recall", "docker", "--json")
    assert recall.returncode == 0, recall.stderr
    assert [r["ref"] for r in json.loads(recall.stdout)["results"]] == ["fact/docker_host"]
    assert json.loads(run(project, "memories", "--json").stdout)["memories"][0]["key"] == "docker_host"
    assert db.read_bytes() == before
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == 1
    # the writer migrates it: it is mem's own
    assert run(project, "remember", "fact", "other", "--", "x").returncode == 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_remember_initialises_an_empty_file_only_because_it_holds_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p"
    folder = project / ".bmad" / "memory"
    folder.mkdir(parents=True)
    (folder / "memories.sqlite3").write_bytes(b"")
    assert run(project, "memories").returncode == 1  # a reader refuses it
    result = run(project, "remember", "fact", "k", "--", "v")
    assert result.returncode == 0, result.stderr
    assert [m["key"] for m in json.loads(run(project, "memories", "--json").stdout)["memories"]] == ["k"]


# -- a read-only .bmad/memory ------------------------------------------------------


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only: a read-only bind mount for root (whom
    permissions do not stop), mode 555 otherwise."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        try:
            yield
        finally:
            os.chmod(folder, 0o755)
        return
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount as root: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True)
        if remount.returncode != 0:
            pytest.skip("cannot remount read-only")
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("leftover_wal", [False, True], ids=["clean", "with-wal-and-shm"])
def test_a_read_only_store_directory_can_still_be_read(tmp_path: Path, leftover_wal: bool) -> None:
    project = tmp_path / "p"
    assert (
        run(project, "remember", "fact", "docker_host", "--priority", "critical", "--", "docker is blue").returncode
        == 0
    )
    folder = project / ".bmad" / "memory"
    if leftover_wal:  # a reader before leaves SQLite's -wal and -shm files
        conn = sqlite3.connect(f"file:{folder / 'memories.sqlite3'}?mode=ro", uri=True)
        conn.execute("SELECT count(*) FROM memories").fetchone()
        conn.close()
        assert (folder / "memories.sqlite3-shm").exists()
    before = snapshot(folder)
    with read_only(folder):
        memories = run(project, "memories", "--json")
        assert memories.returncode == 0, memories.stderr
        assert [m["key"] for m in json.loads(memories.stdout)["memories"]] == ["docker_host"]
        context = run(project, "context")
        assert context.returncode == 0 and "docker is blue" in context.stdout, context.stderr
        recall = run(project, "recall", "docker", "--json")
        assert recall.returncode == 0, recall.stderr
        assert [r["ref"] for r in json.loads(recall.stdout)["results"]] == ["fact/docker_host"]
        brief = run(project, "brief")
        assert brief.returncode == 0 and "docker is blue" in brief.stdout, brief.stderr
        remember = run(project, "remember", "fact", "other", "--", "x")
        assert remember.returncode == 1 and remember.stderr.count("\n") == 1, remember.stderr
        assert "Traceback" not in remember.stderr
        assert snapshot(folder) == before


# -- doctor ---------------------------------------------------------------------------


def test_doctor_finds_and_rebuilds_a_damaged_search_index(tmp_path: Path) -> None:
    from mem_plugins.stores.sqlite import SqliteStore

    project = tmp_path / "p"
    for key in ("a", "b", "c"):
        assert run(project, "remember", "fact", key, "--", f"docker fact {key}").returncode == 0
    folder = str(project / ".bmad" / "memory")
    conn = sqlite3.connect(os.path.join(folder, "memories.sqlite3"), isolation_level=None)
    conn.execute("DROP TRIGGER memories_fts_update")  # an update the index misses
    conn.execute("UPDATE memories SET content = 'kubernetes now' WHERE key = 'a'")
    conn.execute("DELETE FROM memory_terms WHERE rowid = (SELECT n FROM memories WHERE key = 'b')")
    conn.close()
    with SqliteStore.open_read_only(folder) as store:
        checks = {c["name"]: c for c in store.doctor(False)}
        assert checks["integrity"]["status"] == "ok"
        assert checks["schema"]["status"] == "ok"
        assert checks["search index"]["status"] == "error"
        assert checks["recall terms"]["status"] == "error"
        fixed = {c["name"]: c["status"] for c in store.doctor(True)}
        assert fixed["search index"] == "fixed" and fixed["recall terms"] == "fixed"
        again = {c["name"]: c["status"] for c in store.doctor(False)}
        assert again["search index"] == "ok" and again["recall terms"] == "ok"
    found = json.loads(run(project, "memories", "--search", "kubernetes", "--json").stdout)["memories"]
    assert [m["key"] for m in found] == ["a"]
    recall = json.loads(run(project, "recall", "docker", "--json").stdout)
    assert sorted(r["ref"] for r in recall["results"]) == ["fact/b", "fact/c"]


# -- PostgreSQL: readers never create or migrate -------------------------------------


def _pg_tables(dsn: str) -> list[str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'mem%' ORDER BY 1").fetchall()
    return [r[0] for r in rows]


@pytest.fixture
def pg_project(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    from tests.plugins.postgres_server import new_database_dsn

    pytest.importorskip("psycopg")
    dsn = new_database_dsn()
    project = tmp_path / "pg"
    (project / ".bmad" / "memory").mkdir(parents=True)
    return project, {"MEM_STORE": "postgres", "MEM_POSTGRES_DSN": dsn}, dsn


READERS = (["context"], ["memories"], ["memories", "--search", "docker"], ["brief"])


def test_postgres_readers_never_create_the_schema_or_the_namespace(
    pg_project: tuple[Path, dict[str, str], str],
) -> None:
    from mem_plugins.stores.postgres import MARKER

    project, env, dsn = pg_project
    folder = project / ".bmad" / "memory"
    (folder / MARKER).write_text(json.dumps({"backend": "postgres", "namespace": "/some/where"}) + "\n")
    before = snapshot(folder)
    for args in READERS:
        result = run(project, *args, env=env)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
        assert "has no mem tables" in result.stderr
    recall = run(project, "recall", "docker", "--json", env=env)
    assert recall.returncode == 0 and "has no mem tables" in json.loads(recall.stdout)["skipped"][0]["reason"]
    assert _pg_tables(dsn) == [] and snapshot(folder) == before
    # the schema exists (another project's store), but not this namespace
    other = project.parent / "other"
    assert run(other, "remember", "fact", "k", "--", "v", env=env).returncode == 0
    import psycopg

    with psycopg.connect(dsn) as conn:
        stores = conn.execute("SELECT namespace FROM mem_stores").fetchall()
    for args in READERS:
        result = run(project, *args, env=env)
        assert result.returncode == 1 and "No memory store /some/where in" in result.stderr, result.stderr
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT namespace FROM mem_stores").fetchall() == stores
    assert snapshot(folder) == before


def test_postgres_refuses_a_newer_schema_untouched(pg_project: tuple[Path, dict[str, str], str]) -> None:
    import psycopg

    project, env, dsn = pg_project
    assert run(project, "remember", "fact", "docker_host", "--", "docker is blue", env=env).returncode == 0
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO mem_schema_migrations (version, description) VALUES (99, 'from the future')")

    def state() -> list[object]:
        with psycopg.connect(dsn) as conn:
            return [
                conn.execute("SELECT version FROM mem_schema_migrations ORDER BY 1").fetchall(),
                conn.execute("SELECT count(*) FROM mem_history").fetchall(),
                _pg_tables(dsn),
            ]

    before = state()
    for args in (*READERS, ["remember", "fact", "other", "--", "x"], ["forget", "fact/docker_host"]):
        result = run(project, *args, env=env)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
        assert "has schema version 99; this mem knows up to" in result.stderr
    assert state() == before


def test_a_postgres_reader_session_is_read_only(pg_project: tuple[Path, dict[str, str], str]) -> None:
    from mem_core.errors import MemError
    from mem_plugins.stores.postgres import PostgresStore

    project, env, dsn = pg_project
    assert run(project, "remember", "fact", "docker_host", "--", "docker is blue", env=env).returncode == 0
    with PostgresStore.bind(dsn).open_read_only(str(project / ".bmad" / "memory")) as store:
        conn = store._connection()  # noqa: SLF001 - the test looks at the session itself
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
        with pytest.raises(Exception, match="read-only"):
            conn.execute("DELETE FROM mem_memories")
        with pytest.raises(MemError):
            with store.transaction():
                pass
    with PostgresStore.bind(dsn).open_read_only(str(project / ".bmad" / "memory")) as store:
        assert [c["status"] for c in store.doctor(False)] == ["ok", "ok"]
