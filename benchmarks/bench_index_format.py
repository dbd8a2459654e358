"""Two builds' recall indexes side by side, in one run (issue 20 item 7,
issue 19's bm25 and portfolio scale): for each corpus and ranking, the
whole-process time of the first recall (which builds the index, from an
empty cache), the size of the index on disk, and the median of the warm
recalls — each build's runs interleaved with the other's and with
``python -c pass``, so that the machine's load hits them alike.

Corpora: the 2 MB and 20 MB corpora of ``bench_index.py`` and the
portfolio of ``bench_portfolio.py`` (``--projects`` registered projects of
200 sections each, ``recall --scope all``). Rankings: ``lexical`` and
``bm25``. Every output is checked equal between the builds.

Usage: ``python benchmarks/bench_index_format.py --other PATH/TO/OTHER/bin/mem
[--this PATH/TO/bin/mem] [--runs N] [--projects N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import make_large  # noqa: E402
from bench_portfolio import _vocabulary, make_project  # noqa: E402
from run import make_corpus  # noqa: E402

QUERY = ["cache", "auth", "values"]
NOW = "2026-11-30T12:00:00.000Z"
RANKINGS = ("lexical", "bm25")
#: a command whose first run takes longer than this (an unindexed recall) runs fewer times
SLOW_MS = 5000


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{proc.stderr.decode()}")
    return elapsed, proc.stdout


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other build's mem executable")
    parser.add_argument("--this", help="this build's mem executable (default: beside this interpreter)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    builds = {"this": args.this or str(Path(sys.executable).with_name("mem")), "other": args.other}
    rows = []
    with tempfile.TemporaryDirectory(prefix="mem-bench-format-") as tmp:
        base = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
        env.update(MEM_NOW=NOW, PYTHONPYCACHEPREFIX=str(base / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        medium, large, brain = base / "medium", base / "large", base / "brain"
        medium.mkdir()
        large.mkdir()
        make_corpus(medium)
        make_large(large, brain)
        rng = random.Random(12)
        vocabulary = _vocabulary(rng)
        projects = [base / "code" / f"project-{i:04d}" for i in range(args.projects)]
        for root in projects:
            make_project(root, rng, vocabulary)
        pbrain = base / "pbrain"
        (pbrain / "memory").mkdir(parents=True)
        (pbrain / "memory" / "lessons.md").write_text("### Cache values\nPreserve false and zero cache values.\n")
        config = base / "config"
        config.mkdir()
        (config / "portfolio.json").write_text(
            json.dumps({"version": 1, "projects": [str(p) for p in projects], "brain": str(pbrain)})
        )
        cases = [
            ("2 MB", ["-d", str(medium)], {}),
            ("20 MB", ["-d", str(large), "--scope", "portfolio", "--portfolio", str(brain)], {}),
            (f"{args.projects} projects", ["-d", str(projects[0]), "--scope", "all"],
             {"MEM_USER_CONFIG": str(config / "config.toml")}),
        ]  # fmt: skip
        pass_cmd = [sys.executable, "-c", "pass"]
        for label, where, extra in cases:
            for ranking in RANKINGS:
                first: dict[str, float] = {}
                sizes: dict[str, int] = {}
                envs: dict[str, dict[str, str]] = {}
                outs: dict[str, bytes] = {}
                for name, mem in builds.items():
                    cache = base / f"cache-{name}"
                    shutil.rmtree(cache, ignore_errors=True)
                    envs[name] = dict(env, MEM_CACHE_DIR=str(cache), **extra)
                    cmd = [mem, "recall", *QUERY, *where, "--ranking", ranking]
                    first[name], outs[name] = _run(cmd, envs[name])
                    sizes[name] = _size(cache)
                if outs["this"] != outs["other"]:
                    raise SystemExit(f"the builds answer differently: {label} {ranking}")
                time.sleep(2.1)  # past the racy window of what was just indexed: the next runs trust the index
                for name, mem in builds.items():  # settles the indexes (recorded as quiet)
                    _run([mem, "recall", *QUERY, *where, "--ranking", ranking], envs[name])
                runs = args.runs if max(first.values()) < SLOW_MS else max(3, args.runs // 3)
                walls: dict[str, list[float]] = {"pass": [], "this": [], "other": []}
                for _ in range(runs):
                    walls["pass"].append(_run(pass_cmd, env)[0])
                    for name, mem in builds.items():
                        ms, out = _run([mem, "recall", *QUERY, *where, "--ranking", ranking], envs[name])
                        if out != outs[name]:
                            raise SystemExit(f"the output changed between runs: {label} {ranking} {name}")
                        walls[name].append(ms)
                median = {name: statistics.median(values) for name, values in walls.items()}
                rows.append(
                    {
                        "corpus": label,
                        "ranking": ranking,
                        "runs": runs,
                        "pass_ms": round(median["pass"], 1),
                        **{f"first_ms_{n}": round(first[n]) for n in builds},
                        **{f"index_bytes_{n}": sizes[n] for n in builds},
                        **{f"warm_ms_{n}": round(median[n], 1) for n in builds},
                        **{f"warm_x_pass_{n}": round(median[n] / median["pass"], 2) for n in builds},
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(f"recall index, this build against {builds['other']} — python {sys.version.split()[0]}")
    head = ("corpus", "ranking", "first run ms", "index size", "warm ms", "× pass")
    print(" | ".join(head) + "  (each: this / other)")
    for row in rows:
        print(
            f"{row['corpus']} | {row['ranking']} | {row['first_ms_this']} / {row['first_ms_other']} | "
            f"{row['index_bytes_this']} / {row['index_bytes_other']} | {row['warm_ms_this']} / {row['warm_ms_other']} | "
            f"{row['warm_x_pass_this']} / {row['warm_x_pass_other']}"
        )
    if args.json:
        args.json.write_text(json.dumps({"this": builds["this"], "other": builds["other"], "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
