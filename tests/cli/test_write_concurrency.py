"""Real processes racing for the writer lock: nothing lost, no torn line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import writer_lock_held

WRITERS = 8
EACH = 100

# one interpreter per writer, calling the real entry point 100 times in a row
# (each call takes and releases .bmad/memory/writer.lock like a `mem write`)
WRITER = """
import sys
from mem_cli.main import main
worker = sys.argv[1]
for i in range(int(sys.argv[2])):
    code = main(["write", "--agent", "w" + worker, "--task", "n%d" % i, "-d", sys.argv[3]])
    if code != 0:
        sys.exit(code)
"""


def test_eight_processes_times_one_hundred_writes_lose_nothing(project: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(n), str(EACH), str(project)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for n in range(WRITERS)
    ]
    errors = [proc.communicate(timeout=300)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * WRITERS, errors
    data = (project / ".bmad/memory/journal.ndjson").read_bytes()
    assert data.endswith(b"\n")
    lines = data.decode().splitlines()
    assert len(lines) == WRITERS * EACH
    records = [json.loads(line) for line in lines]  # no torn line
    seen = {(r["agent"], r["task"]) for r in records}
    assert seen == {(f"w{w}", f"n{i}") for w in range(WRITERS) for i in range(EACH)}
    for worker in range(WRITERS):  # each writer's own events stay in its order
        mine = [int(r["task"][1:]) for r in records if r["agent"] == f"w{worker}"]
        assert mine == sorted(mine)
    assert not (project / ".bmad/memory/writer.lock").exists()


def test_a_held_lock_makes_the_mem_process_fail_after_about_two_seconds(project: Path, mem_process) -> None:
    import time

    with writer_lock_held(project):
        started = time.monotonic()
        run = mem_process("write", "--agent", "a", "-d", str(project))
        waited = time.monotonic() - started
    assert run.code == 1
    assert run.err == (
        "mem write: Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.\n"
    )
    assert 1.9 <= waited < 8
    assert not (project / ".bmad/memory/journal.ndjson").exists()
