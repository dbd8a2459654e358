"""``kill -9`` at random moments and while holding the lock (issue 10 item 6).

Each trial starts four writers on one project (``write``, ``reinforce``,
``observe``), kills some of them with SIGKILL after a random delay — in a
third of the trials also a process that holds ``writer.lock`` — and checks:
every store parses (no torn line, a valid score file), every acknowledged
write is there, nothing is left that blocks the next writer (the next
``mem write`` succeeds at once). The counts go to the report line
``kill trials: N, failures: F, data lost: L``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.nexus_builder import RunBuilder, make_project
from tests.reliability.conftest import MEMORY, kill_trials, observe_input, run_mem, spawn_mem, store_problems

pytestmark = pytest.mark.reliability

HOLDER = """
import sys, time
from mem_core.files import writer_lock
with writer_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def _project(tmp_path: Path, tasks: int) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    make_project(project)
    builder = RunBuilder(project, "run")
    for n in range(tasks):
        builder.accepted(f"t{n}")
    builder.write()
    return project


def _trials(tmp_path: Path, trials: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    project = _project(tmp_path, trials)
    acknowledged_events: list[str] = []
    acknowledged_receipts: list[str] = []
    acknowledged_reinforcements = 0
    killed_reinforcements = 0
    failures: list[str] = []
    holder_kills = 0
    for trial in range(trials):
        holder = None
        if trial % 3 == 0:
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLDER, str(project)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
            )
            assert holder.stdout is not None
            assert holder.stdout.readline() == b"held\n"
        jobs = []
        for n in range(4):
            kind = ("write", "write", "reinforce", "observe")[n]
            if kind == "write":
                args = ("write", "--agent", f"a{trial}-{n}", "--task", "kill trial", "--json")
            elif kind == "reinforce":
                args = ("reinforce", "--pattern", "Rate limit", "--accept", "true", "--json")
            else:
                args = ("observe", "--input", observe_input(project, f"t{trial}"), "--json")
            jobs.append((kind, spawn_mem(*args, cwd=project)))
        if holder is not None:
            time.sleep(rng.uniform(0.0, 0.3))
            holder.kill()  # SIGKILL while holding the lock
            holder.wait()
            holder.stdout.close()
            holder_kills += 1
        time.sleep(rng.uniform(0.0, 0.4))
        victims = rng.sample(range(4), rng.randint(1, 4))
        for n in victims:
            jobs[n][1].send_signal(signal.SIGKILL)
        for kind, proc in jobs:
            out, err = proc.communicate(timeout=60)
            if b"Traceback" in err:
                failures.append(f"trial {trial}: traceback in {kind}: {err[-300:]!r}")
            if proc.returncode == 0:
                written = json.loads(out)
                if kind == "write":
                    acknowledged_events.append(written["written"]["id"])
                elif kind == "observe":
                    acknowledged_receipts.append(written["written"]["id"])
                else:
                    acknowledged_reinforcements += 1
            elif kind == "reinforce" and proc.returncode == -signal.SIGKILL:
                killed_reinforcements += 1
        problems = [p for p in store_problems(project) if not p.startswith("left over")]
        if problems:
            failures.append(f"trial {trial}: {problems}")
        after = run_mem("write", "--agent", "next", "--task", f"after {trial}", "--json", cwd=project, timeout=30)
        if after.code != 0:
            failures.append(f"trial {trial}: the next writer failed: {after.out} {after.err}")
        else:
            acknowledged_events.append(json.loads(after.out)["written"]["id"])
        problems = store_problems(project)  # what killed writers left, the next writer removed
        if problems:
            failures.append(f"trial {trial}, after the next writer: {problems}")
    memory = project / MEMORY
    journal = [json.loads(line) for line in (memory / "journal.ndjson").read_text().splitlines()]
    ids = {event["id"] for event in journal}
    receipts = set()
    if (memory / "outcomes.ndjson").exists():
        receipts = {json.loads(line)["id"] for line in (memory / "outcomes.ndjson").read_text().splitlines()}
    scores = (
        json.loads((memory / "pattern-scores.json").read_text()) if (memory / "pattern-scores.json").exists() else {}
    )
    updates = scores.get("Rate limit", {}).get("updates", 0)
    lost = sum(1 for i in acknowledged_events if i not in ids) + sum(
        1 for r in acknowledged_receipts if r not in receipts
    )
    if updates < acknowledged_reinforcements:
        lost += acknowledged_reinforcements - updates
    if updates > acknowledged_reinforcements + killed_reinforcements:
        failures.append(f"{updates} updates for {acknowledged_reinforcements} acknowledged reinforcements")
    outcomes = run_mem("outcomes", "--json", cwd=project)
    if outcomes.code != 0:
        failures.append(f"outcomes fails after the trials: {outcomes.out} {outcomes.err}")
    report = {
        "trials": trials,
        "holder kills": holder_kills,
        "acknowledged": len(acknowledged_events) + len(acknowledged_receipts) + acknowledged_reinforcements,
        "failures": len(failures),
        "data lost": lost,
    }
    print(
        f"kill trials: {trials} (lock holder killed in {holder_kills}), "
        f"acknowledged writes: {report['acknowledged']}, failures: {len(failures)}, data lost: {lost}"
    )
    assert not failures, failures[:5]
    assert lost == 0
    return report


def test_kill_trials_always_on(tmp_path: Path) -> None:
    _trials(tmp_path, 6, seed=10)


@pytest.mark.slow
def test_kill_trials(tmp_path: Path) -> None:
    _trials(tmp_path, kill_trials(100), seed=int(os.environ.get("MEM_TEST_KILL_SEED", "1")))


def test_a_writer_killed_holding_the_lock_never_blocks_the_next(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    holder.kill()
    holder.wait()
    holder.stdout.close()
    started = time.monotonic()
    run = run_mem("write", "--agent", "a", cwd=project)
    assert run.code == 0, run.err
    assert time.monotonic() - started < 2  # no waiting for a dead owner
    assert run.err == f"mem write: took over a stale writer.lock (owner pid {holder.pid} on this host is not running)\n"
    assert store_problems(project) == []
    assert not (project / MEMORY / "writer.lock").exists()
