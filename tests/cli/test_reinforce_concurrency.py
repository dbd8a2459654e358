"""Concurrent ``mem reinforce`` from real processes: the writer lock loses no
update and leaves a valid store (mem-cli.md §8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from mem_core.reinforcement.models import PatternScore, ProposedPromotion

PROCESSES = 8
CALLS = 50

#: One worker process: wait for the start signal, then run the real command
#: line until CALLS reinforcements have succeeded, as fast as it can. The
#: lock's contract is to refuse after about two seconds of contention; a
#: refused call changes nothing, so the worker tries it again and reports it
#: (any other failure ends the worker). Prints "<refusals> <worst seconds>".
WORKER = textwrap.dedent(
    """
    import io, os, sys, time
    from mem_cli.main import main
    from mem_core.files import LOCKED

    project, start, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    while not os.path.exists(start):
        time.sleep(0.001)
    done = refused = 0
    worst = 0.0
    while done < calls:
        out = io.StringIO()
        sys.stdout = out
        began = time.perf_counter()
        try:
            code = main(["reinforce", "--pattern", "Shared pattern", "--accept", "yes", "--ci", "pass",
                         "--evidence", f"{os.getpid()}-{done}", "-d", project, "--json"])
        finally:
            sys.stdout = sys.__stdout__
        worst = max(worst, time.perf_counter() - began)
        if code == 0:
            done += 1
        elif out.getvalue().startswith('{"error":"' + LOCKED):
            refused += 1
        else:
            print("FAILED", out.getvalue(), flush=True)
            sys.exit(1)
    print(refused, round(worst, 2))
    """
)


def test_eight_processes_lose_no_update(project: Path, tmp_path: Path) -> None:
    start = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(project), str(start), str(CALLS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    time.sleep(0.5)  # every interpreter started and waiting: they all begin together
    began = time.monotonic()
    start.touch()
    results = [(worker.wait(timeout=300), worker.communicate()[0]) for worker in workers]
    elapsed = time.monotonic() - began
    assert [code for code, _ in results] == [0] * PROCESSES, [out for _, out in results]
    refused = sum(int(out.split()[0]) for _, out in results)
    worst = max(float(out.split()[1]) for _, out in results)

    memory = project / ".bmad/memory"
    scores = json.loads((memory / "pattern-scores.json").read_text())
    assert list(scores) == ["Shared pattern"]
    assert PatternScore.model_validate(scores["Shared pattern"]).updates == PROCESSES * CALLS
    # every reinforcement from the third on proposes: one complete, valid line each
    lines = (memory / "promotions.ndjson").read_text().splitlines()
    promotions = [ProposedPromotion.model_validate_json(line) for line in lines]
    assert sorted(p.score.updates for p in promotions) == list(range(3, PROCESSES * CALLS + 1))  # type: ignore[union-attr]
    assert len({p.evidence[0] for p in promotions}) == len(promotions)
    assert sorted(os.listdir(memory)) == ["pattern-scores.json", "promotions.ndjson"]  # no lock, no temp file
    print(
        f"{PROCESSES}x{CALLS} reinforcements in {elapsed:.1f} s; longest call {worst} s; refused after ~2 s: {refused}"
    )
