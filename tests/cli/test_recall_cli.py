"""``mem recall`` byte for byte (mem-cli.md §1, §2). Expected scores were
computed by node from the formulas, on the files bmad-plus mem wrote."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import tree_bytes

CACHE_VALUES_TEXT = """\
mem recall: 6 match(es) for "cache values" (scope: project)
  1. [1.099] note lessons.md § Cache alternative
     Cache alternative Discard zero cache values.
  2. [1.018] note patterns.md § Cache shortcut
     Cache shortcut Reuse cache values without inspection.
  3. [0.952] note lessons.md § Cache contract
     Cache contract Preserve false and zero cache values.
  4. [0.898] note lessons.md § Cache resolution
     Cache resolution Inspect the cache caller contract for values.
  5. [0.426] event journal.ndjson#da611e596f32
     zecher gemini-cli Fix cache zero values partial {"evalScore":0.6,"acceptance":true}
  6. [0.121] note decisions.md § 2026-06-01 — Use BullMQ for job queues
     2026-06-01 — Use BullMQ for job queues - **Decision**: BullMQ over cron - **Why**: retries and backoff for cache warmers
"""


def _note(score: float, source: str, heading: str, text: str) -> dict:
    return {"score": score, "kind": "note", "source": source, "sourceFile": f".agents/memory/{source}",
            "ref": heading, "text": text}  # fmt: skip


def test_recall_text_on_the_reference_project(mem, bmad_project: Path, now: str) -> None:
    run = mem("recall", "cache", "values", "-d", str(bmad_project))
    assert (run.code, run.err) == (0, "")
    assert run.out == CACHE_VALUES_TEXT


def test_recall_json_on_the_reference_project(mem, bmad_project: Path, now: str) -> None:
    run = mem("recall", "cache", "--json", "values", "--limit", "5", "-d", str(bmad_project))
    event = json.loads((bmad_project / ".bmad/memory/journal.ndjson").read_text().splitlines()[1])
    expected = {
        "query": "cache values",
        "scope": "project",
        "ranking": "lexical",
        "count": 5,
        "results": [
            _note(1.0994727324311704, "lessons.md", "Cache alternative", "Cache alternative\nDiscard zero cache values."),
            _note(1.0179139548366258, "patterns.md", "Cache shortcut", "Cache shortcut\nReuse cache values without inspection."),
            _note(0.9521713170536843, "lessons.md", "Cache contract", "Cache contract\nPreserve false and zero cache values."),
            _note(0.8977157268533151, "lessons.md", "Cache resolution", "Cache resolution\nInspect the cache caller contract for values."),
            {"score": 0.42619675331808976, "kind": "event", "source": "journal.ndjson", "ref": "da611e596f32",
             "text": 'zecher gemini-cli Fix cache zero values partial {"evalScore":0.6,"acceptance":true}', "event": event},
        ],
    }  # fmt: skip
    assert run.out == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"


def test_no_match_is_exit_0(mem, project: Path, now: str) -> None:
    run = mem("recall", "nothing", "here", "-d", str(project), "--scope", "portfolio")
    assert (run.code, run.out) == (0, 'mem recall: no matches for "nothing here" (scope: portfolio)\n')
    run = mem("recall", "nothing", "--json", "-d", str(project))
    assert (
        run.out
        == '{\n  "query": "nothing",\n  "scope": "project",\n  "ranking": "lexical",\n  "count": 0,\n  "results": []\n}\n'
    )


def _journal(project: Path, *events: dict) -> None:
    path = project / ".bmad/memory/journal.ndjson"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))


def test_events_halve_every_30_days_future_and_bad_times_are_not_decayed(mem, project: Path) -> None:
    base = {"agent": "forge", "task": "deploy", "signals": {}}
    _journal(
        project,
        {**base, "ts": "2026-10-06T12:00:00.000Z", "id": "old"},
        {**base, "ts": "2026-12-01T00:00:00.000Z", "id": "future"},
        {**base, "ts": "whenever", "id": "bad"},
        {**base, "ts": "2026-11-05T12:00:00.000Z"},
    )
    run = mem("recall", "deploy", "--json", "-d", str(project), env={"MEM_NOW": "2026-11-05T12:00:00.000Z"})
    scores = {r["ref"]: r["score"] for r in json.loads(run.out)["results"]}
    fresh = scores["future"]
    assert scores["bad"] == fresh and scores["2026-11-05T12:00:00.000Z"] == fresh
    assert scores["old"] == pytest.approx(fresh / 2, rel=1e-12)


def test_blank_corrupt_and_non_object_lines_are_skipped(mem, project: Path, now: str) -> None:
    path = project / ".bmad/memory/journal.ndjson"
    path.parent.mkdir(parents=True)
    path.write_text('\n{torn\n[1,2]\n"deploy"\n  {"agent":"deploy","ts":"x"}  \n')
    run = mem("recall", "deploy", "-d", str(project))
    assert (
        run.out
        == 'mem recall: 1 match(es) for "deploy" (scope: project)\n  1. [1.000] event journal.ndjson#x\n     deploy {}\n'
    )


def test_portfolio_scope_adds_the_brain_and_reads_a_file_once(mem, tmp_path: Path, project: Path, now: str) -> None:
    brain = tmp_path / "brain" / "memory"
    brain.mkdir(parents=True)
    (brain / "lessons.md").write_text("### Shared lesson\nAlways pin the clock.\n")
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Local lesson\nPin the clock in tests.\n")
    run = mem(
        "recall", "clock", "--json", "-d", str(project), "--scope", "portfolio", "--portfolio", str(tmp_path / "brain")
    )
    results = json.loads(run.out)["results"]
    assert [(r["sourceFile"], r["ref"]) for r in results] == [
        ("../brain/memory/lessons.md", "Shared lesson"),
        (".agents/memory/lessons.md", "Local lesson"),
    ]
    # without --scope portfolio the brain is not searched
    run = mem("recall", "clock", "--json", "-d", str(project), "--portfolio", str(tmp_path / "brain"))
    assert [r["ref"] for r in json.loads(run.out)["results"]] == ["Local lesson"]
    # the project itself as the portfolio: .bmad/memory is reached twice, read once
    (project / ".bmad/memory").mkdir(parents=True)
    (project / ".bmad/memory/lessons.md").write_text("### Twice\nclock\n")
    run = mem(
        "recall", "clock", "--json", "-d", str(project), "--scope", "portfolio", "--portfolio", str(project / ".bmad")
    )
    assert [r["ref"] for r in json.loads(run.out)["results"]].count("Twice") == 1


def test_ties_keep_source_order_and_limit_cuts(mem, project: Path, now: str) -> None:
    for directory in (".bmad/memory", ".agents/memory"):
        (project / directory).mkdir(parents=True)
        for name in ("decisions.md", "lessons.md", "patterns.md"):
            (project / directory / name).write_text("### same\nword\n")
    run = mem("recall", "word", "--json", "-d", str(project))
    files = [r["sourceFile"] for r in json.loads(run.out)["results"]]
    assert files == [
        f"{d}/{n}" for d in (".bmad/memory", ".agents/memory") for n in ("decisions.md", "lessons.md", "patterns.md")
    ]
    run = mem("recall", "word", "--json", "--limit", "0", "-d", str(project))
    assert json.loads(run.out)["count"] == 0


def test_unsafe_sources_are_skipped_and_reported(mem, project: Path, tmp_path: Path, now: str) -> None:
    notes = project / ".agents/memory"
    notes.mkdir(parents=True)
    (notes / "decisions.md").write_bytes("### Café\nbad bytes \xe9\n".encode("latin-1"))
    (tmp_path / "outside.md").write_text("### Outside\nsecret word\n")
    (notes / "lessons.md").symlink_to(tmp_path / "outside.md")
    (notes / "patterns.md").write_text("### Pattern\nword\n")
    run = mem("recall", "word", "-d", str(project))
    assert run.code == 0
    assert "Outside" not in run.out and "1 match(es)" in run.out
    assert run.err == (
        "mem recall: skipped .agents/memory/decisions.md: Memory source must contain valid UTF-8.\n"
        "mem recall: skipped .agents/memory/lessons.md: Memory paths cannot follow symbolic links or junctions.\n"
    )
    data = json.loads(mem("recall", "word", "--json", "-d", str(project)).out)
    assert list(data)[-1] == "skipped"
    assert data["skipped"][1] == {
        "path": ".agents/memory/lessons.md",
        "reason": "Memory paths cannot follow symbolic links or junctions.",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "recall: query must be a non-empty string"),
        (["  "], "recall: query must be a non-empty string"),
        (["x", "--ranking", "semantic"], "recall: ranking must be lexical or evidence"),
        (["x", "--limit", "-1"], "--limit must be a non-negative integer"),
        (["x", "--limit", "2.5"], "--limit must be a non-negative integer"),
    ],
)
def test_bad_recall_input(mem, bmad_project: Path, now: str, args, message) -> None:
    before = tree_bytes(bmad_project)
    run = mem("recall", "-d", str(bmad_project), *args)
    assert (run.code, run.out, run.err) == (1, "", f"mem recall: {message}\n")
    run = mem("recall", "--json", "-d", str(bmad_project), *args)
    assert (run.code, run.out, run.err) == (1, json.dumps({"error": message}, separators=(",", ":")) + "\n", "")
    assert tree_bytes(bmad_project) == before
    assert not os.path.exists(bmad_project / ".bmad/memory/writer.lock")


def test_unknown_action(mem) -> None:
    run = mem("recal", "x", "--json")
    assert run.code == 1 and run.out == ""
    assert run.err.startswith("mem: unknown action 'recal' — expected recall | write | reinforce | observe | outcomes")
