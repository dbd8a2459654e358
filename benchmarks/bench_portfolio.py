"""Portfolio recall benchmark (issue 12 item 4): whole-process ``mem recall
--scope all`` over N registered projects (1, 10, 100, 1 000), each with 200
``### `` sections in its three note files (67 + 67 + 66 in
``.agents/memory/``) and a small journal (20 events), plus a brain, with
warm indexes, next to ``python -c pass``.

The sections are 30-60 words: two or three of the domain words of
``benchmarks/run.py`` (cache, auth, values …) among words drawn from a
Zipf-distributed vocabulary of 5 000 — so each query word is in a few per
cent of the sections, as a project's own words are, not in most of them.

Each size is measured with every ranking of ``--rankings`` (``lexical``,
the default ranking, and ``bm25``, which the portfolio index serves too).
Judged: N = 1 000 ≤ 10× ``python -c pass``. Each timed run's output is
checked equal to the unindexed one (``MEM_RECALL_INDEX=0``), measured once
per size for the record.

Usage: ``python benchmarks/bench_portfolio.py [--runs N] [--sizes 1,10,100,1000] [--rankings lexical,bm25] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import WORDS, mem_command  # noqa: E402

QUERY = ["cache", "auth", "values"]
SECTIONS = (67, 67, 66)
EVENTS = 20
VOCABULARY = 5000
NOW = "2026-11-30T12:00:00.000Z"


def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(VOCABULARY)})
    rng.shuffle(words)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return words, weights


def make_project(root: Path, rng: random.Random, vocabulary: tuple[list[str], list[float]]) -> None:
    words, weights = vocabulary
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    for name, count in zip(("decisions.md", "lessons.md", "patterns.md"), SECTIONS, strict=True):
        parts = [f"# {name[:-3].title()}\n"]
        for i in range(count):
            body = rng.choices(words, weights, k=rng.randint(30, 60))
            for _ in range(rng.randint(2, 3)):
                body.insert(rng.randrange(len(body)), rng.choice(WORDS))
            heading = " ".join(rng.choices(words, weights, k=3)).capitalize()
            parts.append(f"\n### {heading} {i}\n{' '.join(body)}\n")
        (memory / name).write_text("".join(parts), encoding="utf-8")
    journal = root / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    lines = []
    for i in range(EVENTS):
        task = " ".join([rng.choice(WORDS), *rng.choices(words, weights, k=5)])
        event = {"ts": f"2026-11-{1 + i % 28:02d}T10:00:00.000Z", "agent": "forge", "cli": "claude-code",
                 "model": None, "task": task, "outcome": "success", "signals": {"ci": "pass"},
                 "artifactHashes": [], "id": f"{rng.getrandbits(48):012x}"}  # fmt: skip
        lines.append(json.dumps(event, separators=(",", ":")))
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")


def measure(cmd: list[str], runs: int, env: dict[str, str], expected: bytes | None = None) -> tuple[float, bytes]:
    """Median wall milliseconds of ``runs`` runs (after one untimed run), and the output."""
    first = subprocess.run(cmd, env=env, capture_output=True)
    if first.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{first.stderr.decode()}")
    out = first.stdout
    if expected is not None and out != expected:
        raise SystemExit(f"the index changed the output: {' '.join(cmd)}")
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True)
        walls.append(time.perf_counter() - started)
        if proc.returncode != 0 or proc.stdout != out:
            raise SystemExit(f"benchmark command failed or changed its output: {' '.join(cmd)}")
    return statistics.median(walls) * 1000, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--sizes", default="1,10,100,1000", help="how many registered projects, comma-separated")
    parser.add_argument("--rankings", default="lexical,bm25", help="the rankings to measure, comma-separated")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    rankings = args.rankings.split(",")
    mem = mem_command()
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="mem-bench-portfolio-") as tmp:
        base = Path(tmp)
        env = dict(os.environ, MEM_NOW=NOW, MEM_CACHE_DIR=str(base / "cache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        for name in list(env):
            if name.startswith("MEM_") and name not in ("MEM_NOW", "MEM_CACHE_DIR"):
                del env[name]
        rng = random.Random(12)
        vocabulary = _vocabulary(rng)
        projects = []
        started = time.perf_counter()
        for i in range(max(sizes)):
            root = base / "code" / f"project-{i:04d}"
            make_project(root, rng, vocabulary)
            projects.append(root)
        brain = base / "brain"
        (brain / "memory").mkdir(parents=True)
        (brain / "memory" / "lessons.md").write_text(
            "### Cache values\nPreserve false and zero cache values in every service.\n", encoding="utf-8"
        )
        made = time.perf_counter() - started
        pass_ms, _ = measure([sys.executable, "-c", "pass"], args.runs, env)
        for n in sizes:
            config = base / f"config-{n}"
            config.mkdir()
            portfolio = {"version": 1, "projects": [str(p) for p in projects[:n]], "brain": str(brain)}
            (config / "portfolio.json").write_text(json.dumps(portfolio), encoding="utf-8")
            size_env = dict(env, MEM_USER_CONFIG=str(config / "config.toml"))
            for ranking in rankings:
                cmd = [*mem, "recall", *QUERY, "--scope", "all", "-d", str(projects[0]), "--ranking", ranking]
                cold_started = time.perf_counter()
                cold = subprocess.run(cmd, env=dict(size_env, MEM_RECALL_INDEX="0"), capture_output=True)
                cold_ms = (time.perf_counter() - cold_started) * 1000
                build_started = time.perf_counter()
                subprocess.run(cmd, env=size_env, capture_output=True)  # builds the indexes
                build_ms = (time.perf_counter() - build_started) * 1000
                time.sleep(2.1)  # past the racy window of what was just indexed
                warm_ms, _ = measure(cmd, args.runs, size_env, cold.stdout)
                rows.append({"projects": n, "ranking": ranking, "sections": n * sum(SECTIONS),
                             "no_index_ms": round(cold_ms, 1), "build_ms": round(build_ms, 1),
                             "warm_ms": round(warm_ms, 1), "warm_x_pass": round(warm_ms / pass_ms, 2)})  # fmt: skip
    print(f"mem recall --scope all benchmark — python {sys.version.split()[0]}, median of {args.runs} runs")
    print(f"corpus: {max(sizes)} projects made in {made:.1f} s; python -c pass: {pass_ms:.1f} ms")
    print(f"{'ranking':>8} {'projects':>8} {'sections':>9} {'no index':>10} {'build':>9} {'warm':>8} {'× pass':>7} "
          f"{'growth':>7}")  # fmt: skip
    for ranking in rankings:
        previous = None
        mine = [row for row in rows if row["ranking"] == ranking]
        for row in mine:
            growth = "" if previous is None else f"{row['warm_ms'] / previous:.2f}×"  # type: ignore[operator]
            print(f"{ranking:>8} {row['projects']:>8} {row['sections']:>9} {row['no_index_ms']:>10} "
                  f"{row['build_ms']:>9} {row['warm_ms']:>8} {row['warm_x_pass']:>7} {growth:>7}")  # fmt: skip
            previous = row["warm_ms"]
        last = mine[-1]
        verdict = "ok" if last["warm_x_pass"] <= 10 else "MISSED"  # type: ignore[operator]
        print(f"{ranking}: --scope all over {last['projects']} projects ≤ 10× python -c pass: "
              f"{last['warm_x_pass']}×  {verdict}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"python_c_pass_ms": round(pass_ms, 1), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
