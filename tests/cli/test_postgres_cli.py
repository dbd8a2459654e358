"""``MEM_STORE=postgres`` end to end: the structured-memory commands print
what they print on the default backend, real ``mem`` processes work against
the server, concurrent processes lose nothing, and a project without a store
needs neither the server nor the driver.

Runs against the throwaway server of ``tests/plugins/postgres_server.py``;
skipped without PostgreSQL or psycopg.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_plugins.stores.postgres import DSN_ENV, MARKER, SCHEMA_VERSION
from tests.cli.test_memories_concurrency import race_remember_on_one_key
from tests.conftest import NOW, tree_bytes
from tests.plugins.postgres_server import PASSWORD, new_database_dsn, postgres_server_fixture  # noqa: F401

MIND = "Michael's Mind"

#: one session of commands, run on both backends; searches are chosen so that
#: the order does not depend on the relevance function (bm25 and ts_rank differ)
SESSION: list[list[str]] = [
    ["remember", "project", "synapse_status", "v1.5.0 deployed", "--tag", "synapse,deployment", "--priority", "high"],
    ["remember", "context", "meeting_topic", "Discussing Q3 roadmap", "--expires", "12h"],
    ["remember", "identity", "user_name", "Michael Schäfer", "--priority", "critical", "--tag", "person,identity"],
    ["remember", "fact", "office_city", "Büro in München, Zeitzone Europe/Berlin", "--tag", "berlin", "--mind", MIND],
    ["remember", "project", "synapse_status", "v1.5.0 deployed", "--tag", "synapse,deployment", "--priority", "high"],
    ["remember", "project", "synapse_status", "v1.6.0 deployed", "--tag", "synapse", "--json"],
    ["remember", "fact", "old_news", "expired already", "--expires", "2026-11-01"],
    ["memories"],
    ["memories", "--json"],
    ["memories", "--search", "deployed"],
    ["memories", "--search", "SCHÄFER michael"],
    ["memories", "--search", "munchen", "--mind", MIND, "--json"],
    ["memories", "--search", "berlin", "--mind", MIND],
    ["memories", "--search", "nothing here"],
    ["memories", "--search", "expired", "--include-expired"],
    ["memories", "--tag", "SYNAPSE", "--category", "project"],
    ["memories", "--expiring", "7d"],
    ["memories", "--include-expired", "--limit", "2", "--json"],
    ["memories", "--unverified", "--priority", "critical"],
    ["context"],
    ["context", "--json", "--mind", MIND],
    ["recall", "synapse", "deployed", "--json"],
    ["recall", "user", "name"],
    ["forget", "context/meeting_topic"],
    ["forget", "context/meeting_topic"],
    ["memories", "--include-expired"],
    ["remember", "fact", "empty", "   "],
    ["remember", "fact", "k", "v", "--as-user"],
    ["verify", "project/synapse_status", "--json"],
    ["remember", "preference", "style", "concise answers", "--user"],
    ["context", "--user", "--json"],
]


@pytest.fixture
def dsn(postgres_server: str) -> str:
    """The throwaway server's DSN (the session fixture starts it; skips without PostgreSQL)."""
    return postgres_server


def normalized(text: str, ids: dict[str, str]) -> str:
    """``text`` with every memory id replaced by its rank of first appearance."""
    return re.sub(r"mem_[0-9a-f]{16}", lambda m: ids.setdefault(m.group(0), f"mem_<{len(ids) + 1}>"), text)


def test_every_command_prints_what_the_default_backend_prints(mem, tmp_path: Path, now: str, dsn: str) -> None:
    outputs = {}
    for backend in ("sqlite", "postgres"):
        project = tmp_path / backend
        project.mkdir()
        env = {"MEM_STORE": backend, DSN_ENV: dsn, "MEM_USER_DIR": str(tmp_path / f"user-{backend}")}
        ids: dict[str, str] = {}
        runs = []
        for argv in SESSION:
            run = mem(*argv, "-d", str(project), env=env)
            runs.append((argv, run.code, normalized(run.out, ids), normalized(run.err, ids)))
        outputs[backend] = runs
    assert outputs["postgres"] == outputs["sqlite"]
    codes = [code for _, code, _, _ in outputs["postgres"]]
    assert codes.count(1) == 4 and codes[-1] == 0  # forget twice, empty content, --as-user, verify: refused
    assert [p.name for p in (tmp_path / "postgres" / ".bmad" / "memory").iterdir()] == [MARKER]
    assert [p.name for p in (tmp_path / "user-postgres").iterdir()] == [MARKER]


def test_real_mem_processes_remember_and_search(mem_process, project: Path, now: str, dsn: str) -> None:
    env = {"MEM_STORE": "postgres", DSN_ENV: dsn, "MEM_NOW": NOW}
    stored = mem_process("remember", "project", "synapse_status", "v1.5.0 deployed", "--tag", "synapse",
                         "--json", "-d", str(project), env=env)  # fmt: skip
    assert (stored.code, stored.err) == (0, "")
    memory = json.loads(stored.out)["memory"]
    found = mem_process("memories", "--search", "Deployed", "--json", "-d", str(project), env=env)
    assert (found.code, found.err) == (0, "")
    assert json.loads(found.out) == {"count": 1, "memories": [memory]}
    text = mem_process("memories", "--search", "synapse", "-d", str(project), env=env)
    assert text.out.splitlines()[:2] == [
        'mem memories: 1 match(es) for "synapse" in mind default (project store)',
        "  1. project/synapse_status (NORMAL) [unverified]",
    ]
    recalled = mem_process("recall", "synapse", "--json", "-d", str(project), env=env)
    assert [(r["kind"], r["ref"], r["text"]) for r in json.loads(recalled.out)["results"]] == [
        ("memory", "project/synapse_status", "[unverified] v1.5.0 deployed")
    ]


def test_without_a_store_neither_the_server_nor_the_driver_is_needed(mem, bmad_project: Path, now: str) -> None:
    before = tree_bytes(bmad_project)
    unreachable = {"MEM_STORE": "postgres", DSN_ENV: f"postgresql://mem:{PASSWORD}@127.0.0.1:1/none"}
    for argv in (["recall", "cache", "--json"], ["recall", "rate", "limit"], ["memories"], ["context", "--json"]):
        on_default = mem(*argv, "-d", str(bmad_project))
        on_postgres = mem(*argv, "-d", str(bmad_project), env=unreachable)
        assert (on_postgres.code, on_postgres.out, on_postgres.err) == (0, on_default.out, "")
    assert "psycopg" not in subprocess.run(
        [sys.executable, "-c", "import sys; from mem_cli.main import main; main(['recall', 'cache', '-d', sys.argv[1]]);"
         " print(sorted(m for m in sys.modules if m.startswith('psycopg')))", str(bmad_project)],
        capture_output=True, text=True, env={**unreachable, "PATH": "/usr/bin:/bin", "MEM_DISABLE_PLUGINS": "testranker"},
    ).stdout.splitlines()[-1]  # fmt: skip
    assert tree_bytes(bmad_project) == before


def test_an_unreachable_server_is_one_line_and_changes_nothing(mem, project: Path, now: str) -> None:
    pytest.importorskip("psycopg")
    env = {"MEM_STORE": "postgres", DSN_ENV: f"postgresql://mem:{PASSWORD}@127.0.0.1:1/memtest"}
    run = mem("remember", "fact", "k", "v", "-d", str(project), env=env)
    assert run.code == 1 and run.out == ""
    assert run.err == (
        "mem remember: Cannot connect to the memory store database postgresql://mem@127.0.0.1:1/memtest: "
        + run.err.split("postgresql://mem@127.0.0.1:1/memtest: ", 1)[1]
    )
    assert run.err.count("\n") == 1 and PASSWORD not in run.err
    assert json.loads(mem("remember", "fact", "k", "v", "--json", "-d", str(project), env=env).out)["error"]
    assert list(project.iterdir()) == []  # no marker, no directory

    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / ".bmad" / "memory" / MARKER).write_text('{"namespace": "x"}', encoding="utf-8")
    recalled = mem("recall", "anything", "--json", "-d", str(project), env=env)
    assert recalled.code == 0 and PASSWORD not in recalled.out
    skipped = json.loads(recalled.out)["skipped"]
    assert [s["path"] for s in skipped] == [".bmad/memory"]
    assert skipped[0]["reason"].startswith("Cannot connect to the memory store database postgresql://mem@127.0.0.1:1/")


# -- concurrency: real processes -----------------------------------------------------

WORKERS = 4
STORES = 50
SHARED_EVERY = 10

#: one worker process: STORES ``mem remember`` commands through the CLI's
#: entry point (each opens its own connection, as a separate ``mem`` would),
#: every SHARED_EVERY-th also overwriting one shared key; exit code = failures
WORKER = """
import contextlib, io, sys
from mem_cli.main import main

worker, project, start, stores, every = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
while True:  # start together
    try:
        open(start).close()
        break
    except OSError:
        pass
failures = 0
for i in range(stores):
    commands = [["remember", "fact", f"w{worker}_m{i}", f"worker {worker} memory {i} token{worker}x{i}",
                 "--tag", f"w{worker}", "--json", "-d", project]]
    if i % every == 0:
        commands.append(["remember", "note", "shared", f"written by worker {worker} at {i}", "-d", project])
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        if code != 0 or err.getvalue():
            failures += 1
            print(f"worker {worker} {argv[2]}: {code} {err.getvalue()}", file=sys.stderr)
sys.exit(failures)
"""


@pytest.mark.slow
def test_four_processes_storing_at_once_on_a_new_database_lose_nothing(mem, project: Path, tmp_path: Path) -> None:
    own = new_database_dsn()  # the schema's creation and the store's races too
    env = {"MEM_STORE": "postgres", DSN_ENV: own, "MEM_DISABLE_PLUGINS": "testranker"}
    start = tmp_path / "start"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(w), str(project), str(start), str(STORES), str(SHARED_EVERY)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
        )
        for w in range(WORKERS)
    ]
    start.write_text("go")
    outcomes = [(p.wait(timeout=600), p.communicate()) for p in procs]
    assert [(code, err.decode()) for code, (_, err) in outcomes] == [(0, "")] * WORKERS

    with pytest.MonkeyPatch.context() as m:
        for key, value in env.items():
            m.setenv(key, value)
        listed = service.list_memories(directory=str(project))
        facts = {memory.key: memory for memory in listed.memories if memory.category == "fact"}
        assert len(facts) == WORKERS * STORES and len(listed.memories) == WORKERS * STORES + 1
        for w in range(WORKERS):
            for i in range(STORES):
                memory = facts[f"w{w}_m{i}"]
                assert (memory.content, memory.tags) == (f"worker {w} memory {i} token{w}x{i}", [f"w{w}"])
            assert len(service.list_memories(tag=f"w{w}", directory=str(project)).memories) == STORES
        for w, i in [(0, 0), (1, 17), (2, 33), (3, 49)]:
            found = service.search_memories(f"token{w}x{i}", directory=str(project)).memories
            # the token, and the longer tokens it starts (token1x1 also finds token1x10 …)
            assert facts[f"w{w}_m{i}"].id in [memory.id for memory in found]
            assert all(f"token{w}x{i}" in memory.content for memory in found)

        shared = service.memory_history("note/shared", directory=str(project)).entries
        writes = WORKERS * (STORES // SHARED_EVERY)
        assert [e.action for e in shared] == ["create"] + ["update"] * (writes - 1)
        assert sorted(e.memory.content for e in shared) == sorted(
            f"written by worker {w} at {i}" for w in range(WORKERS) for i in range(0, STORES, SHARED_EVERY)
        )
        recalled = json.loads(mem("recall", "token2x42", "-d", str(project), "--json").out)["results"]
        assert [r["ref"] for r in recalled] == ["fact/w2_m42"]

    import psycopg

    with psycopg.connect(own) as conn:
        assert conn.execute("SELECT version FROM mem_schema_migrations ORDER BY version").fetchall() == [
            (version,) for version in range(1, SCHEMA_VERSION + 1)
        ]
        assert conn.execute("SELECT count(*) FROM mem_stores").fetchall() == [(1,)]
        assert conn.execute("SELECT count(*) FROM mem_history").fetchall() == [(WORKERS * STORES + writes,)]


def test_real_mem_processes_racing_on_one_key_make_one_memory(project: Path, dsn: str) -> None:
    env = {**os.environ, "MEM_STORE": "postgres", DSN_ENV: dsn, "MEM_NOW": NOW}
    race_remember_on_one_key(project, 8, env)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("MEM_STORE", "postgres")
        m.setenv(DSN_ENV, dsn)
        history = service.memory_history("project/status", directory=str(project)).entries
    assert sorted(e.memory.content for e in history) == [f"version {n}" for n in range(8)]


def test_signatures_are_checked_on_postgres_too(
    project: Path, now: str, monkeypatch: pytest.MonkeyPatch, signer
) -> None:
    """A memory signed on the postgres store reads verified; its content edited
    in the database reads ``signature-invalid``; a ``verified`` set by hand, unsigned."""
    import psycopg

    own = new_database_dsn()
    monkeypatch.setenv("MEM_STORE", "postgres")
    monkeypatch.setenv(DSN_ENV, own)
    said = service.remember(
        "identity", "user_name", "Ada Lovelace", as_user=True, signer=signer, directory=str(project)
    )
    assert (said.memory.source, said.memory.verification) == ("user", "signed")
    service.remember("fact", "boss", "Agent is the boss", directory=str(project))
    with psycopg.connect(own) as conn:
        conn.execute("UPDATE mem_memories SET verified = true, source = 'user' WHERE key = 'boss'")
    memories = {m.key: m for m in service.list_memories(directory=str(project)).memories}
    assert (memories["user_name"].verified, memories["boss"].verified, memories["boss"].source) == (
        True,
        False,
        "agent",
    )
    with psycopg.connect(own) as conn:
        conn.execute("UPDATE mem_memories SET content = 'Mallory' WHERE key = 'user_name'")
    memory = service.list_memories(directory=str(project), category="identity").memories[0]
    assert (memory.verified, memory.source, memory.verification) == (False, "agent", "signature-invalid")
