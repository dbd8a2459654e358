"""Concurrent processes lose nothing: 8 real processes × 100 stores each on
one new store (its creation and migration race too), every memory then found
by listing, by full-text search and by recall; contended updates of one key
stay one memory whose history holds every value."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from mem_core.api import memories as service
from tests.conftest import NOW

pytestmark = pytest.mark.slow

WORKERS = 8
STORES = 100
SHARED_EVERY = 10

#: one worker: STORES stores of its own keys, one connection each (as the CLI
#: opens one per invocation), and every SHARED_EVERY-th store also overwrites
#: the one shared key; exit code = number of failures
WORKER = """
import sys
from mem_core.api.memories import remember
from mem_core.kernel import Kernel

worker, project, start, stores, every = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
kernel = Kernel()
while True:  # start together
    try:
        open(start).close()
        break
    except OSError:
        pass
failures = 0
for i in range(stores):
    try:
        remember("fact", f"w{worker}_m{i}", f"worker {worker} memory {i} token{worker}x{i}",
                 tags=[f"w{worker}"], directory=project, kernel=kernel)
        if i % every == 0:
            remember("note", "shared", f"written by worker {worker} at {i}", directory=project, kernel=kernel)
    except Exception as exc:
        failures += 1
        print(f"worker {worker} store {i}: {exc}", file=sys.stderr)
sys.exit(failures)
"""


def test_eight_processes_storing_at_once_lose_nothing(project: Path, tmp_path: Path, now: str, mem) -> None:
    start = tmp_path / "start"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(w), str(project), str(start), str(STORES), str(SHARED_EVERY)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(WORKERS)
    ]
    start.write_text("go")
    outcomes = [(p.wait(timeout=600), p.communicate()) for p in procs]
    assert [(code, err.decode()) for code, (_, err) in outcomes] == [(0, "")] * WORKERS

    listed = service.list_memories(directory=str(project))
    facts = {m.key: m for m in listed.memories if m.category == "fact"}
    assert len(facts) == WORKERS * STORES and len(listed.memories) == WORKERS * STORES + 1
    for w in range(WORKERS):
        for i in range(STORES):
            memory = facts[f"w{w}_m{i}"]
            assert (memory.content, memory.tags) == (f"worker {w} memory {i} token{w}x{i}", [f"w{w}"])
            found = service.search_memories(f"token{w}x{i}", directory=str(project)).memories
            # the token, and the longer tokens it starts (token1x1 also finds token1x10 …)
            assert memory.id in [m.id for m in found]
            assert all(f"token{w}x{i}" in m.content for m in found)
    assert len(service.list_memories(tag="w3", directory=str(project)).memories) == STORES

    shared = service.memory_history("note/shared", directory=str(project)).entries
    writes = WORKERS * (STORES // SHARED_EVERY)
    assert [e.action for e in shared] == ["create"] + ["update"] * (writes - 1)
    assert sorted(e.memory.content for e in shared) == sorted(
        f"written by worker {w} at {i}" for w in range(WORKERS) for i in range(0, STORES, SHARED_EVERY)
    )
    assert (
        service.list_memories(category="note", directory=str(project)).memories[0].content == shared[-1].memory.content
    )

    db = project / ".bmad" / "memory" / "memories.sqlite3"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM memory_history").fetchone() == (WORKERS * STORES + writes,)

    recalled = json.loads(mem("recall", "token5x42", "-d", str(project), "--json").out)["results"]
    assert [r["ref"] for r in recalled] == ["fact/w5_m42"]


def race_remember_on_one_key(project: Path, workers: int, env: dict[str, str] | None = None) -> None:
    """``workers`` real ``mem remember`` processes store the same key at once:
    every one succeeds, exactly one creates it, and they all name one memory."""
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mem_cli",
                "remember",
                "project",
                "status",
                f"version {n}",
                "--json",
                "-d",
                str(project),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
        )  # fmt: skip
        for n in range(workers)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    assert [(code, err) for code, _, err in results] == [(0, b"")] * workers
    created = [json.loads(out)["created"] for _, out, _ in results]
    assert created.count(True) == 1
    ids = {json.loads(out)["memory"]["id"] for _, out, _ in results}
    assert len(ids) == 1


def test_real_mem_processes_racing_on_one_key_make_one_memory(project: Path, now: str) -> None:
    race_remember_on_one_key(project, WORKERS)
    history = service.memory_history("project/status", directory=str(project)).entries
    assert sorted(e.memory.content for e in history) == [f"version {n}" for n in range(WORKERS)]
    assert [m.created_at for m in service.list_memories(directory=str(project)).memories] == [NOW]
