"""Scale benchmark (issue 12): growth curves of the agent-facing actions.

Whole-process median wall time, per size, of

* ``mem reinforce`` with 1 … 10 000 patterns in ``pattern-scores.json``;
* ``mem outcomes`` and ``mem recall --ranking evidence`` with 1 … 1 000
  receipts (Nexus runs built with ``tests/nexus_builder.py``, ten accepted
  tasks per run, one ``lessons.md`` section per receipt);
* ``mem write`` and ``mem recall`` on journals of 0.25 … 2 MB with 200 …
  2 000 Markdown sections;

each next to ``python -c pass`` and, when ``MEM_BENCH_REFERENCE`` holds the
reference's command (``MEM_BENCH_REFERENCE="node /path/to/bmad-plus.js mem"``),
next to ``bmad-plus mem`` on an identical copy of the project; with
``MEM_BENCH_BASELINE`` (another ``mem``'s command, e.g. the last release's
``python /path/to/old/mem``), next to that one too. The calls are
interleaved round by round so that the machine's load hits them alike. One
small table per action: size → ms, × pass, growth (× the smallest size's
time), and ms, mem/ref with the reference (ms, mem/base with the
baseline). Without the reference, the rows
issue 12 recorded for ``bmad-plus mem`` 0.18 on this machine are shown as
``rec ms`` and ``mem/rec``: another run, so a guide, not a measurement.

Usage: ``python benchmarks/bench_scale.py [--runs N] [--quick] [--only ACTION …] [--tasks-per-run N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import WORDS, day_ts, mem_command, time_ms, write_journal  # noqa: E402

NOW = "2026-11-30T12:00:00.000Z"
#: accepted tasks per Nexus run in the receipt fixtures (``--tasks-per-run``)
TASKS_PER_RUN = 10


# --------------------------------------------------------------------------
# fixtures


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make_scores(project: Path, patterns: int, seed: int = 3) -> None:
    """``pattern-scores.json`` with ``patterns`` scores shaped as reinforce writes them."""
    from mem_core.js import jsonfmt
    from mem_core.reinforcement.reward import update_score

    rng = random.Random(seed)
    scores = {}
    for i in range(patterns):
        score = None
        for _ in range(rng.choice([1, 1, 1, 2])):
            ts = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T12:00:00.000Z"
            score = update_score(score, rng.choice([1.0, 0.0, 1.0, 0.5]), ts)
        scores[f"{rng.choice(WORDS).capitalize()} {i}"] = score
    memory = project / ".bmad" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "pattern-scores.json").write_text(jsonfmt.dumps(scores, 2) + "\n", encoding="utf-8")


def make_receipts(project: Path, receipts: int, seed: int = 5, per_run: int | None = None) -> None:
    """A project with ``receipts`` current accepted-outcome receipts, each on
    its own ``lessons.md`` section, their tasks in runs of ``per_run``
    (default :data:`TASKS_PER_RUN`)."""
    per_run = per_run or TASKS_PER_RUN
    sys.path.insert(0, str(ROOT))
    from mem_core.api.evidence import section_anchor
    from mem_core.evidence.models import Receipt
    from mem_core.js import jsonfmt
    from mem_plugins.verifiers.nexus import accepted_source
    from tests.nexus_builder import RunBuilder, make_project

    rng = random.Random(seed)
    headings = [f"{_words(rng, 3).capitalize()} {i}" for i in range(receipts)]
    lessons = ["# Lessons\n"]
    for heading in headings:
        lessons.append(f"\n### {heading}\n{_words(rng, rng.randint(20, 50))} cache\n- **Why**: {_words(rng, 10)}\n")
    make_project(project, lessons="".join(lessons))
    tasks: list[tuple[str, str]] = []
    for r in range((receipts + per_run - 1) // per_run):
        builder = RunBuilder(project, f"run-{r}")
        for t in range(min(per_run, receipts - r * per_run)):
            builder.accepted(f"task-{t}")
            tasks.append((f"run-{r}", f"task-{t}"))
        builder.write()
    lines = []
    for (run_id, task_id), heading in zip(tasks, headings, strict=True):
        memory = section_anchor(str(project), {"file": ".agents/memory/lessons.md", "heading": heading})
        receipt = Receipt.create(
            ts=NOW,
            memory=memory,
            scope=["work"],
            source=accepted_source(str(project), run_id, task_id),
            interpretation=f"Accepted work backs {heading}.",
            supersedes=[],
            contradicts=[],
        )
        lines.append(jsonfmt.dumps(receipt.record()) + "\n")
    store = project / ".bmad" / "memory"
    store.mkdir(parents=True, exist_ok=True)
    (store / "outcomes.ndjson").write_text("".join(lines), encoding="utf-8")


def make_journal(project: Path, journal_bytes: int, sections: int, seed: int = 7) -> None:
    """A journal of about ``journal_bytes`` and ``sections`` sections over the three note files."""
    rng = random.Random(seed)
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    per_file = [sections // 3 + (1 if i < sections % 3 else 0) for i in range(3)]
    for name, count in zip(("decisions.md", "lessons.md", "patterns.md"), per_file, strict=True):
        parts = [f"# {name[:-3].title()}\n"]
        for i in range(count):
            body = _words(rng, rng.randint(20, 60))
            parts.append(f"\n### {_words(rng, 4).capitalize()} {i}\n{body}\n- **Why**: {_words(rng, 12)}\n")
        (memory / name).write_text("".join(parts), encoding="utf-8")
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True, exist_ok=True)

    def record(day: int) -> dict[str, object]:
        ts = day_ts(rng, day)
        return {"ts": ts, "agent": rng.choice(["forge", "zecher", "scout"]), "cli": "claude-code",
                "model": None, "task": _words(rng, rng.randint(3, 9)),
                "outcome": rng.choice(["success", "failure", "partial"]),
                "signals": {"evalScore": round(rng.random(), 2), "ci": rng.choice(["pass", "fail"])},
                "artifactHashes": [], "id": f"{rng.getrandbits(48):012x}"}  # fmt: skip

    write_journal(journal, journal_bytes, record)


# --------------------------------------------------------------------------
# the actions and their sizes

MB = 1024 * 1024
#: action → (fixture builder, sizes, label of a size, the command's arguments)
ACTIONS: dict[str, tuple[Callable[[Path, object], None], list[object], Callable[[object], str], list[str]]] = {
    "reinforce": (
        lambda p, n: make_scores(p, n),  # type: ignore[arg-type]
        [1, 100, 1000, 10_000],
        lambda n: f"{n} patterns",
        ["reinforce", "--pattern", "Bench pattern", "--accept", "yes", "--ci", "pass"],
    ),
    "outcomes": (
        lambda p, n: make_receipts(p, n),  # type: ignore[arg-type]
        [1, 10, 100, 1000],
        lambda n: f"{n} receipts",
        ["outcomes"],
    ),
    "recall --ranking evidence": (
        lambda p, n: make_receipts(p, n),  # type: ignore[arg-type]
        [1, 10, 100, 1000],
        lambda n: f"{n} receipts",
        ["recall", "cache", "work", "--ranking", "evidence", "--context-scope", "work"],
    ),
    "write": (
        lambda p, s: make_journal(p, *s),  # type: ignore[misc]
        [(MB // 4, 200), (MB // 2, 500), (MB, 1000), (2 * MB - 64 * 1024, 2000)],
        lambda s: f"{s[0] / MB:.2f} MB, {s[1]} sections",  # type: ignore[index]
        ["write", "--agent", "bench", "--task", "measure the write path", "--ci", "pass"],
    ),
    "recall": (
        lambda p, s: make_journal(p, *s),  # type: ignore[misc]
        [(MB // 4, 200), (MB // 2, 500), (MB, 1000), (2 * MB - 64 * 1024, 2000)],
        lambda s: f"{s[0] / MB:.2f} MB, {s[1]} sections",  # type: ignore[index]
        ["recall", "cache", "auth", "values"],
    ),
}


#: what issue 12 recorded for ``bmad-plus mem`` 0.18 (Node 20) on this machine
#: (medians of 15 paired runs): (action, size label) → ms
RECORDED_REFERENCE: dict[tuple[str, str], float] = {
    ("reinforce", "10000 patterns"): 154.0,
    ("outcomes", "100 receipts"): 333.0,
    ("outcomes", "1000 receipts"): 2100.0,
    ("recall --ranking evidence", "1000 receipts"): 2210.0,
}


def reference_command(variable: str = "MEM_BENCH_REFERENCE") -> list[str] | None:
    text = os.environ.get(variable, "").strip()
    return shlex.split(text) if text else None


def measure(
    mem: list[str],
    reference: list[str] | None,
    args: list[str],
    projects: dict[str, Path],
    runs: int,
    env: dict,
    baseline: list[str] | None = None,
) -> dict[str, float]:
    """Medians of ``runs`` interleaved rounds (after one warm-up round)."""
    commands = {"pass": ([sys.executable, "-c", "pass"], projects["mem"])}
    commands["mem"] = ([*mem, *args, "-d", str(projects["mem"])], projects["mem"])
    if reference is not None:
        commands["ref"] = ([*reference, *args, "-d", str(projects["ref"])], projects["ref"])
    if baseline is not None:
        commands["base"] = ([*baseline, *args, "-d", str(projects["base"])], projects["base"])
    times: dict[str, list[float]] = {name: [] for name in commands}
    order = list(commands)
    for round_ in range(runs + 1):
        for name in order if round_ % 2 else order[::-1]:
            cmd, cwd = commands[name]
            elapsed = time_ms(cmd, cwd, env)
            if round_:
                times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="timed rounds per size (default 9)")
    parser.add_argument("--quick", action="store_true", help="the smallest and the largest size only")
    parser.add_argument("--only", action="append", choices=list(ACTIONS), help="this action only (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--tasks-per-run", type=int, default=TASKS_PER_RUN, help="Nexus tasks per run file (default 10)"
    )
    args = parser.parse_args(argv)
    globals()["TASKS_PER_RUN"] = max(1, args.tasks_per_run)
    mem = mem_command()
    reference = reference_command()
    baseline = reference_command("MEM_BENCH_BASELINE")
    env = dict(os.environ, MEM_NOW=NOW)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed tool is
    results: dict[str, object] = {"python": sys.version.split()[0], "runs": args.runs, "actions": {}}
    print(f"mem scale benchmark — python {results['python']}, median of {args.runs} interleaved runs")
    print("reference: " + (shlex.join(reference) if reference else "not set (MEM_BENCH_REFERENCE), skipped"))
    if baseline:
        print("baseline: " + shlex.join(baseline))
    with tempfile.TemporaryDirectory(prefix="mem-bench-scale-") as tmp:
        base = Path(tmp)
        env["XDG_CACHE_HOME"] = str(base / "cache")
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        for number, action in enumerate(args.only or list(ACTIONS)):
            build, sizes, label, extra = ACTIONS[action]
            if args.quick:
                sizes = [sizes[0], sizes[-1]]
            rows = []
            for n, size in enumerate(sizes):
                project = base / f"{number}-{action.split()[0]}-{n}" / "mem"
                project.mkdir(parents=True)
                build(project, size)
                projects = {"mem": project}
                for other, wanted in (("base", baseline), ("ref", reference)):
                    if wanted is None:
                        continue
                    projects[other] = project.with_name(other)
                    if action.startswith(("outcomes", "recall --ranking")):  # runs name their project path
                        projects[other].mkdir()
                        build(projects[other], size)
                    else:
                        shutil.copytree(project, projects[other], symlinks=True)
                got = measure(mem, reference, extra, projects, args.runs, env, baseline)
                row = {"size": label(size), "mem_ms": round(got["mem"], 1), "pass_ms": round(got["pass"], 1),
                       "mem_x_pass": round(got["mem"] / got["pass"], 2)}  # fmt: skip
                if "ref" in got:
                    row.update(ref_ms=round(got["ref"], 1), mem_per_ref=round(got["mem"] / got["ref"], 2))
                elif (action, label(size)) in RECORDED_REFERENCE:
                    recorded = RECORDED_REFERENCE[(action, label(size))]
                    row.update(rec_ms=recorded, mem_per_rec=round(got["mem"] / recorded, 2))
                if "base" in got:
                    row.update(base_ms=round(got["base"], 1), mem_per_base=round(got["mem"] / got["base"], 2))
                rows.append(row)
            results["actions"][action] = rows  # type: ignore[index]
            print(f"\n{action}")
            head = f"  {'size':<26} {'mem ms':>9} {'× pass':>8} {'growth':>7}"
            head += f" {'base ms':>9} {'mem/base':>9}" if baseline else ""
            print(head + (f" {'ref ms':>9} {'mem/ref':>8}" if reference else f" {'rec ms':>9} {'mem/rec':>8}"))
            for row in rows:
                growth = row["mem_ms"] / rows[0]["mem_ms"]  # type: ignore[operator]
                line = f"  {row['size']:<26} {row['mem_ms']:>9} {row['mem_x_pass']:>8} {growth:>6.2f}×"
                if "base_ms" in row:
                    line += f" {row['base_ms']:>9} {row['mem_per_base']:>9}"
                for kind in ("ref", "rec"):
                    if f"{kind}_ms" in row:
                        ratio = row[f"mem_per_{kind}"]
                        verdict = "ok" if ratio <= 0.5 else "MISSED"  # type: ignore[operator]
                        line += f" {row[f'{kind}_ms']:>9} {ratio:>8}  ≤ 0.5 {verdict}"
                print(line)
            print(f"  (python -c pass: {statistics.median(r['pass_ms'] for r in rows):.1f} ms)")  # type: ignore[misc]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
