"""``mem portfolio proposals`` on real projects with real BMAD+ Nexus runs and
receipts (tests/nexus_builder.py): a lesson with current receipts in two
registered projects is proposed; nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

from mem_core.api.evidence import section_anchor
from mem_core.evidence.models import Receipt
from mem_core.js import jsonfmt
from mem_plugins.verifiers.nexus import accepted_source
from tests.conftest import NOW, tree_bytes
from tests.nexus_builder import RunBuilder, make_project

SHARED = "# Lessons\n\n### Cache contract\nPreserve false and zero cache values.\n\n### Local only\nJust here.\n"


def _with_receipts(project: Path, lessons: str, headings: list[str]) -> list[str]:
    """``project`` with ``lessons`` and one current receipt per heading; their ids."""
    make_project(project, lessons=lessons)
    builder = RunBuilder(project, "run-1")
    for number in range(len(headings)):
        builder.accepted(f"task-{number}")
    builder.write()
    lines, ids = [], []
    for number, heading in enumerate(headings):
        memory = section_anchor(str(project), {"file": ".agents/memory/lessons.md", "heading": heading})
        receipt = Receipt.create(
            ts=NOW,
            memory=memory,
            scope=["work"],
            source=accepted_source(str(project), "run-1", f"task-{number}"),
            interpretation=f"Accepted work backs {heading}.",
            supersedes=[],
            contradicts=[],
        )
        record = receipt.record()
        lines.append(jsonfmt.dumps(record) + "\n")
        ids.append(record["id"])
    store = project / ".bmad" / "memory"
    store.mkdir(parents=True, exist_ok=True)
    (store / "outcomes.ndjson").write_text("".join(lines), encoding="utf-8")
    return ids


def test_proposals(tmp_path: Path, mem_process, now: str) -> None:
    a, b, c, d = (tmp_path / name for name in ("shop", "api", "web", "stale"))
    ids_a = _with_receipts(a, SHARED, ["Cache contract", "Local only"])
    ids_b = _with_receipts(b, SHARED, ["Cache contract"])
    _with_receipts(c, SHARED.replace("zero cache", "empty cache"), ["Cache contract"])  # another text
    _with_receipts(d, SHARED, ["Cache contract"])
    lessons = d / ".agents" / "memory" / "lessons.md"
    lessons.write_text(lessons.read_text().replace("Just here.", "Edited."))  # the section itself is untouched
    (d / "work" / "result.json").write_text('{"verified":false}')  # the verified outcome changed: stale
    for root in (a, b, c, d):
        assert mem_process("outcomes", "-d", str(root)).code == 0
    assert mem_process("portfolio", "add", str(a), str(b), str(c), str(d), str(tmp_path / "gone-later")).code == 1
    assert mem_process("portfolio", "add", str(a), str(b), str(c), str(d)).code == 0
    before = tree_bytes(tmp_path)
    run = mem_process("portfolio", "proposals", "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [p["heading"] for p in data["proposals"]] == ["Cache contract"]
    proposal = data["proposals"][0]
    assert proposal["text"] == "Cache contract\nPreserve false and zero cache values."
    assert proposal["inBrain"] is False
    assert proposal["projects"] == [
        {"project": str(a), "file": ".agents/memory/lessons.md", "receiptIds": [ids_a[0]]},
        {"project": str(b), "file": ".agents/memory/lessons.md", "receiptIds": [ids_b[0]]},
    ]
    text = mem_process("portfolio", "proposals")
    assert text.out.splitlines() == [
        "mem portfolio proposals: 1 lesson(s) for the brain (nothing is moved)",
        "  1. lessons.md § Cache contract",
        f"     {a}: receipts {ids_a[0]}",
        f"     {b}: receipts {ids_b[0]}",
    ]
    assert tree_bytes(tmp_path) == before  # read-only
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    (brain / "memory" / "lessons.md").write_text("### Cache contract\nPreserve false and zero cache values.\n")
    assert mem_process("portfolio", "brain", str(brain)).code == 0
    assert json.loads(mem_process("portfolio", "proposals", "--json").out)["proposals"][0]["inBrain"] is True
    held = mem_process("portfolio", "proposals")  # the text proposes only what the brain lacks
    assert held.out.splitlines() == [
        "mem portfolio proposals: none new (every lesson backed in two or more projects is in the brain)",
        "  in the brain already (same text): § Cache contract",
    ]
    # one project's lesson text changes: its receipt is stale, one project is left, nothing is proposed
    shop_lessons = a / ".agents" / "memory" / "lessons.md"
    shop_lessons.write_text(SHARED.replace("Preserve", "Keep"))
    none = mem_process("portfolio", "proposals")
    assert none.code == 0
    assert none.out == "mem portfolio proposals: none (no lesson has current receipts in two or more projects)\n"


def test_proposals_skip_broken_projects(tmp_path: Path, mem_process) -> None:
    good = tmp_path / "good"
    _with_receipts(good, SHARED, ["Cache contract"])
    broken = tmp_path / "broken"
    make_project(broken)
    (broken / ".bmad" / "memory").mkdir(parents=True)
    (broken / ".bmad" / "memory" / "outcomes.ndjson").write_text("{not json")
    assert mem_process("portfolio", "add", str(good), str(broken)).code == 0
    run = mem_process("portfolio", "proposals", "--json")
    assert run.code == 0
    data = json.loads(run.out)
    assert data["proposals"] == [] and [s["project"] for s in data["skipped"]] == [str(broken)]
    assert run.err.startswith(f"mem portfolio proposals: skipped {broken}: ")
