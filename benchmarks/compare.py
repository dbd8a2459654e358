"""Two builds of ``mem`` side by side, in one run: whole-process median times
of the agent-facing actions and of ``--help``/``--version``, each build's
calls interleaved with the other's so that the machine's load hits both
alike, reported as ratios (this build / the other).

With ``--instructions`` each command runs once per build under valgrind's
callgrind and the report gives instructions executed instead of times: the
same number whatever else the machine is doing (a loaded 2-core machine
makes wall times drift by tens of percent).

The first row is ``python -c pass`` under each build's interpreter (the
``python`` beside its ``mem``), and the last columns give each command as a
multiple of it: the start-up budgets are set in those multiples.

Usage: ``python benchmarks/compare.py --other PATH/TO/OTHER/bin/mem [--runs N] [--instructions]``
(``tox -e bench -- compare.py --other …`` is not needed: run it with any
interpreter; each build runs under its own).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import make_corpus, mem_command, time_ms  # noqa: E402

ACTIONS = (
    ("write", ["write", "--agent", "bench", "--task", "measure the write path", "--ci", "pass"]),
    ("recall", ["recall", "cache", "auth", "values"]),
    ("recall --json", ["recall", "cache", "auth", "values", "--json"]),
    ("reinforce", ["reinforce", "--pattern", "Bench pattern", "--accept", "yes"]),
    ("outcomes", ["outcomes"]),
    ("memories", ["memories"]),
    ("remember", ["remember", "fact", "bench_key", "measured content"]),
    ("context", ["context"]),
)


def _instructions(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Instructions executed by ``cmd`` (valgrind --tool=callgrind), in millions."""
    import re

    out = cwd / "callgrind.out"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"valgrind did not count {' '.join(cmd)}: {proc.stderr.strip()[-300:]}")
    return int(found.group(1)) / 1e6


def _python(mem: list[str]) -> str:
    """The interpreter of the build whose command is ``mem``: the ``python``
    beside its ``mem`` script, else this one."""
    beside = Path(mem[0]).with_name("python")
    return str(beside) if beside.exists() else sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other build's mem executable")
    parser.add_argument("--this", help="this build's mem executable (default: beside this interpreter)")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    args = parser.parse_args(argv)
    this = [args.this] if args.this else mem_command()
    other = [args.other]
    env = dict(os.environ, MEM_NOW="2026-11-30T12:00:00.000Z")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed tool is
    rows = []
    with tempfile.TemporaryDirectory(prefix="mem-compare-") as tmp:
        base = Path(tmp)
        projects = {}
        for label in ("empty", "corpus"):
            for build in ("this", "other"):
                project = base / f"{label}-{build}"
                project.mkdir()
                if label == "corpus":
                    make_corpus(project)
                projects[label, build] = project
        commands: list[tuple[str, list[str], str | None]] = [("python -c pass", [], None)]
        commands += [("--version", ["--version"], None), ("--help", ["--help"], None)]
        commands += [
            (f"{action} ({label})", extra, label) for label in ("empty", "corpus") for action, extra in ACTIONS
        ]
        interpreters = {"this": _python(this), "other": _python(other)}
        for name, extra, label in commands:
            builds = {"this": this, "other": other}
            if not extra:  # python -c pass
                builds = {build: [python, "-c", "pass"] for build, python in interpreters.items()}
            if args.instructions:
                counted = {}
                for build, mem in builds.items():
                    where = ["-d", str(projects[label, build])] if label else []
                    time_ms([*mem, *extra, *where], base, env)  # compiles the bytecode, warms the caches
                    counted[build] = _instructions([*mem, *extra, *where], base, env)
                rows.append((name, counted["this"], counted["other"], counted["this"] / counted["other"]))
                continue
            times: dict[str, list[float]] = {"this": [], "other": []}
            for run in range(args.runs + 1):
                for build, mem in (("this", builds["this"]), ("other", builds["other"]))[:: 1 if run % 2 else -1]:
                    where = ["-d", str(projects[label, build])] if label else []
                    elapsed = time_ms([*mem, *extra, *where], base, env)
                    if run:  # the first round warms the caches
                        times[build].append(elapsed)
            a, b = statistics.median(times["this"]), statistics.median(times["other"])
            rows.append((name, a, b, a / b))
        shutil.rmtree(base, ignore_errors=True)
    unit = "M instr" if args.instructions else "ms"
    how = "instructions executed (callgrind)" if args.instructions else f"median of {args.runs} interleaved runs"
    print(f"this: {' '.join(this)}\nother: {' '.join(other)}\n{how}")
    _, pass_this, pass_other, _ = rows[0]
    print(
        f"{'command':<26} {'this ' + unit:>12} {'other ' + unit:>12} {'this/other':>11} {'this ×pass':>11} {'other ×pass':>11}"
    )
    for name, a, b, ratio in rows:
        print(f"{name:<26} {a:>12.1f} {b:>12.1f} {ratio:>11.2f} {a / pass_this:>11.1f} {b / pass_other:>11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
