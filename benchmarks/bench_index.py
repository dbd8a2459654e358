"""Recall index benchmark (issue 12 item 3, issue 9's hook speed): whole-process
``mem recall`` without the on-disk index (``MEM_RECALL_INDEX=0``) and with a
warm one, on corpora of about 0.2, 2 and 20 MB, next to ``python -c pass``;
then the ``mem hook`` medians of ``bench_hooks.py``.

* 0.2 MB: a journal of 180 kB and three note files of 20 sections;
* 2 MB: the corpus of ``benchmarks/run.py`` (a journal of just under 2 MiB,
  three note files of 200 sections);
* 20 MB: that journal, the three note files in ``.bmad/memory/`` and in
  ``.agents/memory/`` and in a portfolio brain, each of about 1.9 MB
  (every file at the store's 2 MiB limit), recalled with ``--scope portfolio``.

Each row gives the median wall time and the median CPU time (user + system
of the child: steadier on a shared machine) of ``--runs`` runs; the warm
runs and ``python -c pass`` run once per round, in turn (the unindexed
runs likewise, apart), so that the ratios compare runs under the same load. Judged:
warm-index recall on 2 MB ≤ 4× ``python -c pass``; 20 MB ≤ 2× 2 MB.
Each warm run's output is checked equal to the unindexed one.

With ``--instructions`` each command also runs once under valgrind's
callgrind and the report adds the instructions it executed (the same number
whatever else a loaded machine is doing).

Usage: ``python benchmarks/bench_index.py [--runs N] [--json PATH] [--no-hooks] [--instructions]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import WORDS, make_corpus, mem_command  # noqa: E402

QUERY = ["cache", "auth", "values"]
NOTE_BYTES = 1_900_000


def _notes(path: Path, rng: random.Random, *, sections: int = 0, size: int = 0) -> None:
    parts = [f"# {path.stem.title()}\n"]
    total = 0
    i = 0
    while (sections and i < sections) or (size and total < size):
        heading = " ".join(rng.choice(WORDS) for _ in range(4)).capitalize()
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
        part = f"\n### {heading} {i}\n{body}\n- **Why**: {' '.join(rng.choice(WORDS) for _ in range(12))}\n"
        if size and total + len(part) > size:
            break
        parts.append(part)
        total += len(part)
        i += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts), encoding="utf-8")


def make_small(root: Path) -> None:
    make_corpus(root)
    journal = root / ".bmad" / "memory" / "journal.ndjson"
    data = journal.read_bytes()
    journal.write_bytes(data[: data.rfind(b"\n", 0, 180_000) + 1])
    rng = random.Random(11)
    for name in ("decisions.md", "lessons.md", "patterns.md"):
        _notes(root / ".agents" / "memory" / name, rng, sections=20)


def make_large(root: Path, portfolio: Path) -> None:
    make_corpus(root)
    rng = random.Random(13)
    for directory in (root / ".bmad" / "memory", root / ".agents" / "memory", portfolio / "memory"):
        for name in ("decisions.md", "lessons.md", "patterns.md"):
            _notes(directory / name, rng, size=NOTE_BYTES)


def corpus_bytes(*roots: Path) -> int:
    return sum(p.stat().st_size for root in roots for p in root.rglob("*") if p.is_file())


def measure(commands: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, tuple[float, float, bytes]]:
    """Median wall and CPU milliseconds of ``runs`` runs of each command, and
    its output. The commands run round by round (each once per round, in
    turn), so that a change in the machine's load hits every one alike and
    the ratios between them hold (this machine is shared: a row measured
    after another may meet another load)."""
    outs = {label: subprocess.run(cmd, env=env, capture_output=True).stdout for label, (cmd, env) in commands.items()}
    walls: dict[str, list[float]] = {label: [] for label in commands}
    cpus: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, (cmd, env) in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            proc = subprocess.run(cmd, env=env, capture_output=True)
            walls[label].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[label].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if proc.returncode != 0 or proc.stdout != outs[label]:
                raise SystemExit(f"benchmark command failed or changed its output: {' '.join(cmd)}")
    return {
        label: (statistics.median(walls[label]) * 1000, statistics.median(cpus[label]) * 1000, outs[label])
        for label in commands
    }


def instructions(cmd: list[str], env: dict[str, str], stdin: bytes = b"") -> float:
    """Millions of instructions ``cmd`` executes (valgrind --tool=callgrind)."""
    import re

    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env=env,
        input=stdin,
        capture_output=True,
        text=False,
    )
    found = re.search(rb"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed: {' '.join(cmd)}")
    return int(found.group(1)) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--no-hooks", action="store_true", help="skip the hook benchmark")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    args = parser.parse_args(argv)
    mem = mem_command()
    results: dict[str, object] = {"python": sys.version.split()[0], "runs": args.runs}
    rows = []
    irs: list[dict[str, object]] = []
    pass_ir: float | None = None
    with tempfile.TemporaryDirectory(prefix="mem-bench-index-") as tmp:
        base = Path(tmp)
        env = dict(os.environ, MEM_NOW="2026-11-30T12:00:00.000Z", MEM_CACHE_DIR=str(base / "cache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: with bytecode, kept outside the tree
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        off_env = dict(env, MEM_RECALL_INDEX="0")
        small, medium, large, brain = base / "small", base / "medium", base / "large", base / "brain"
        for root in (small, medium, large):
            root.mkdir()
        make_small(small)
        make_corpus(medium)
        make_large(large, brain)
        cases = [
            ("0.2 MB", small, [], (small,)),
            ("2 MB", medium, [], (medium,)),
            ("20 MB", large, ["--scope", "portfolio", "--portfolio", str(brain)], (large, brain)),
        ]
        # the judged rows (warm, and python -c pass) interleaved among
        # themselves; the unindexed runs, seconds long, apart: between two
        # warm runs they would leave the caches to the next one cold
        warm: dict[str, tuple[list[str], dict[str, str]]] = {"pass": ([sys.executable, "-c", "pass"], env)}
        cold: dict[str, tuple[list[str], dict[str, str]]] = {}
        for label, root, extra, _roots in cases:
            cmd = [*mem, "recall", *QUERY, "-d", str(root), *extra]
            cold[f"{label} cold"] = (cmd, off_env)
            warm[f"{label} warm"] = (cmd, env)  # (its first run, before the rounds, builds the index)
        timed = {**measure(cold, args.runs), **measure(warm, args.runs)}
        pass_wall, pass_cpu, _ = timed["pass"]
        pass_ir = instructions([sys.executable, "-c", "pass"], env) if args.instructions else None
        for label, _root, _extra, roots in cases:
            cold_wall, cold_cpu, cold_out = timed[f"{label} cold"]
            warm_wall, warm_cpu, warm_out = timed[f"{label} warm"]
            if warm_out != cold_out:
                raise SystemExit(f"the index changed the output on the {label} corpus")
            if pass_ir is not None:
                cmd = warm[f"{label} warm"][0]
                cold_ir, warm_ir = instructions(cmd, off_env), instructions(cmd, env)
                irs.append({"corpus": label, "no_index_mi": round(cold_ir), "warm_index_mi": round(warm_ir),
                            "warm_x_pass": round(warm_ir / pass_ir, 2)})  # fmt: skip
            rows.append(
                {
                    "corpus": label,
                    "bytes": corpus_bytes(*roots),
                    "no_index_ms": round(cold_wall, 1),
                    "no_index_cpu_ms": round(cold_cpu, 1),
                    "warm_index_ms": round(warm_wall, 1),
                    "warm_index_cpu_ms": round(warm_cpu, 1),
                    "warm_x_pass": round(warm_wall / pass_wall, 2),
                    "warm_cpu_x_pass": round(warm_cpu / pass_cpu, 2),
                }
            )
    results["python_c_pass_ms"] = round(pass_wall, 1)
    results["python_c_pass_cpu_ms"] = round(pass_cpu, 1)
    results["rows"] = rows
    print(f"mem recall index benchmark — python {results['python']}, median of {args.runs} interleaved runs")
    print(f"python -c pass: {pass_wall:.1f} ms wall, {pass_cpu:.1f} ms CPU")
    print(
        f"{'corpus':<8} {'bytes':>10} {'no index':>10} {'(cpu)':>7} {'warm':>8} {'(cpu)':>7} {'× pass':>7} {'cpu×':>6}"
    )
    for row in rows:
        print(
            f"{row['corpus']:<8} {row['bytes']:>10} {row['no_index_ms']:>10} {row['no_index_cpu_ms']:>7} "
            f"{row['warm_index_ms']:>8} {row['warm_index_cpu_ms']:>7} {row['warm_x_pass']:>7} {row['warm_cpu_x_pass']:>6}"
        )
    two, twenty = rows[1], rows[2]
    growth = twenty["warm_index_cpu_ms"] / two["warm_index_cpu_ms"]  # type: ignore[operator]
    results["growth_2_to_20_cpu"] = round(growth, 2)
    verdict = "ok" if two["warm_x_pass"] <= 4 else "MISSED"  # type: ignore[operator]
    print(f"warm 2 MB ≤ 4× python -c pass: {two['warm_x_pass']}× wall, {two['warm_cpu_x_pass']}× CPU  {verdict}")
    print(f"growth 2 → 20 MB (CPU): {growth:.2f}×  {'ok' if growth <= 2 else 'MISSED'} (≤ 2×)")
    if irs:
        results["instructions"] = {"python_c_pass_mi": round(pass_ir or 0), "rows": irs}
        print(f"instructions (millions, callgrind): python -c pass {pass_ir:.0f}")
        for ir in irs:
            print(f"  {ir['corpus']:<8} no index {ir['no_index_mi']:>6}  warm {ir['warm_index_mi']:>6}  "
                  f"({ir['warm_x_pass']}× pass)")  # fmt: skip
        ir_growth = irs[2]["warm_index_mi"] / irs[1]["warm_index_mi"]  # type: ignore[operator]
        print(f"  growth 2 → 20 MB (instructions): {ir_growth:.2f}×")
    if not args.no_hooks:
        print()
        import bench_hooks  # type: ignore[import-not-found]

        bench_hooks.main(["--runs", str(args.runs)])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
