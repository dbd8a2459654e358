"""Benchmarks for ``mem`` (run by ``tox -e bench``).

Whole-process median wall time of the agent-facing actions, each as a
multiple of ``python -c pass`` measured in the same run with the same
interpreter, on an empty project and on a generated corpus:

* a journal of just under 2 MiB (the store limit; a little room is left so
  that the timed ``mem write`` calls can still append),
* ``decisions.md``, ``lessons.md`` and ``patterns.md`` with 200 ``### ``
  sections each.

Targets (issue 2): ≤ 8× on the empty project, ≤ 12× on the corpus.
Then the structured-memory benchmark (``bench_memories.py``) runs, if present.

Usage: ``python benchmarks/run.py [--runs N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
JOURNAL_BYTES = 2 * 1024 * 1024 - 32 * 1024
SECTIONS = 200
WORDS = (
    "cache auth session token queue retry backoff jitter deploy rollback schema migration index "
    "latency budget alert rate limit login password reset revocation redis postgres worker batch "
    "upsert contract zero false values inspection review owner platform team lesson pattern decision"
).split()


def mem_command() -> list[str]:
    script = Path(sys.executable).with_name("mem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mem_cli"]


def make_corpus(root: Path, seed: int = 7) -> None:
    rng = random.Random(seed)
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    for name in ("decisions.md", "lessons.md", "patterns.md"):
        parts = [f"# {name[:-3].title()}\n"]
        for i in range(SECTIONS):
            heading = " ".join(rng.choice(WORDS) for _ in range(4)).capitalize()
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
            parts.append(f"\n### {heading} {i}\n{body}\n- **Why**: {' '.join(rng.choice(WORDS) for _ in range(12))}\n")
        (memory / name).write_text("".join(parts), encoding="utf-8")
    journal = root / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)

    def record(day: int) -> dict[str, object]:
        task = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
        ts = day_ts(rng, day)
        signals = {"evalScore": round(rng.random(), 2), "ci": rng.choice(["pass", "fail"])}
        return {"ts": ts, "agent": rng.choice(["forge", "zecher", "scout"]), "cli": "claude-code",
                "model": None, "task": task, "outcome": rng.choice(["success", "failure", "partial"]),
                "signals": signals, "artifactHashes": [], "id": f"{rng.getrandbits(48):012x}"}  # fmt: skip

    write_journal(journal, JOURNAL_BYTES, record)


def day_ts(rng: random.Random, day: int) -> str:
    """A timestamp on the ``day``-th day of a 28-day-month year of 2026, at a random hour."""
    return f"2026-{(day // 28) % 12 + 1:02d}-{day % 28 + 1:02d}T{rng.randint(0, 23):02d}:00:00.000Z"


def write_journal(journal: Path, limit: int, record: Callable[[int], dict[str, object]]) -> None:
    """``journal`` holding the lines of ``record(day)`` for day 0, 1, … as
    long as they fit in ``limit`` bytes."""
    lines = []
    size = 0
    day = 0
    while True:
        line = json.dumps(record(day), separators=(",", ":")) + "\n"
        if size + len(line) > limit:
            break
        lines.append(line)
        size += len(line)
        day += 1
    journal.write_text("".join(lines), encoding="utf-8")


def time_ms(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The wall time of one run of ``cmd``, in milliseconds; a failing run stops the benchmark."""
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed: {shlex.join(cmd)}: {proc.stderr.decode().strip()[-400:]}")
    return elapsed * 1000


def median_ms(cmd: list[str], runs: int, cwd: Path, env: dict[str, str]) -> float:
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm up
    return statistics.median([time_ms(cmd, cwd, env) for _ in range(runs)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--skip-memories", action="store_true", help="skip the structured-memory benchmark")
    args = parser.parse_args(argv)

    env = dict(os.environ, MEM_NOW="2026-11-30T12:00:00.000Z")
    mem = mem_command()
    results: dict[str, object] = {"python": sys.version.split()[0], "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="mem-bench-") as tmp:
        base = Path(tmp)
        empty = base / "empty"
        empty.mkdir()
        corpus = base / "corpus"
        corpus.mkdir()
        make_corpus(corpus)
        pristine = base / "corpus-pristine"
        shutil.copytree(corpus, pristine)

        baseline = median_ms([sys.executable, "-c", "pass"], args.runs, base, env)
        rows = []
        for label, project in (("empty project", empty), ("corpus", corpus)):
            for action, extra in (
                ("write", ["write", "--agent", "bench", "--task", "measure the write path", "--ci", "pass"]),
                ("recall", ["recall", "cache", "auth", "values"]),
                ("recall --json", ["recall", "cache", "auth", "values", "--json"]),
                ("reinforce", ["reinforce", "--pattern", "Bench pattern", "--accept", "yes"]),
                ("outcomes", ["outcomes"]),
            ):
                ms = median_ms([*mem, *extra, "-d", str(project)], args.runs, base, env)
                rows.append({"project": label, "action": action, "median_ms": round(ms, 1),
                             "ratio": round(ms / baseline, 2)})  # fmt: skip
        results["python_c_pass_ms"] = round(baseline, 1)
        results["rows"] = rows
        results["corpus"] = {
            "journal_bytes": (pristine / ".bmad/memory/journal.ndjson").stat().st_size,
            "sections_per_file": SECTIONS,
        }

    print(f"mem benchmarks — python {results['python']}, median of {args.runs} runs")
    print(f"python -c pass: {results['python_c_pass_ms']} ms")
    print(f"corpus: journal {results['corpus']['journal_bytes']} bytes, 3 × {SECTIONS} sections")  # type: ignore[index]
    print(f"{'project':<14} {'action':<14} {'median ms':>10} {'× pass':>8}  target")
    for row in rows:
        target = 8 if row["project"] == "empty project" else 12
        mark = (
            ""
            if row["action"] not in ("write", "recall")
            else (f"≤ {target}× " + ("ok" if row["ratio"] <= target else "MISSED"))
        )  # type: ignore[operator]
        print(f"{row['project']:<14} {row['action']:<14} {row['median_ms']:>10} {row['ratio']:>8}  {mark}")

    memories = HERE / "bench_memories.py"
    if memories.exists() and not args.skip_memories:
        print()
        sys.path.insert(0, str(HERE))
        import bench_memories  # type: ignore[import-not-found]

        bench_memories.main()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
