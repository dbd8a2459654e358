"""``mem scores`` and ``mem promotions``: what ``reinforce`` recorded, for a
human to read; read-only."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import tree_bytes

SCORES = ".bmad/memory/pattern-scores.json"
PROMOTIONS = ".bmad/memory/promotions.ndjson"


def test_scores_on_the_reference_project(mem, bmad_project: Path) -> None:
    before = tree_bytes(bmad_project)
    run = mem("scores", "-d", str(bmad_project))
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "mem scores: 2 patterns, highest Elo first\n"
        "     elo   mean  updates  last update               pattern\n"
        "  1245.8  0.791        3  2026-11-02T09:31:00.000Z  Cache shortcut\n"
        "  1196.8  0.467        1  2026-10-21T08:00:00.000Z  chromadb batch ingestion\n"
    )
    got = json.loads(mem("scores", "--json", "-d", str(bmad_project)).out)
    assert got["count"] == 2
    assert got["scores"][0] == {
        "pattern": "Cache shortcut",
        "elo": 1245.8278203282016,
        "mean": 0.7906662611958414,
        "alpha": 3.77706081070642,
        "beta": 1,
        "updates": 3,
        "lastUpdate": "2026-11-02T09:31:00.000Z",
    }
    assert tree_bytes(bmad_project) == before
    assert not (bmad_project / ".bmad/memory/writer.lock").exists()


def test_scores_follow_reinforce_sorted_by_elo(mem, project: Path, now: str) -> None:
    assert mem("scores", "-d", str(project)).out == (
        "mem scores: no pattern scores yet (`mem reinforce --pattern <heading>` records them)\n"
    )
    for pattern, accept in (("low", "false"), ("high", "true"), ("mid", "true"), ("mid", "false")):
        assert mem("reinforce", "--pattern", pattern, "--accept", accept, "-d", str(project)).code == 0
    got = json.loads(mem("scores", "--json", "-d", str(project)).out)
    assert [row["pattern"] for row in got["scores"]] == ["high", "mid", "low"]
    assert [row["updates"] for row in got["scores"]] == [1, 2, 1]
    assert all(type(row["updates"]) is int for row in got["scores"])
    assert {row["lastUpdate"] for row in got["scores"]} == {now}


def test_promotions_with_the_current_score_and_the_evidence(mem, project: Path, now: str) -> None:
    assert mem("promotions", "-d", str(project)).out == (
        "mem promotions: none proposed (a pattern needs mean >= 0.7 over >= 3 updates)\n"
    )
    for _ in range(3):
        args = ("reinforce", "--pattern", "Rate limit", "--accept", "true", "--ci", "pass", "--evidence", "e1,e2")
        assert mem(*args, "-d", str(project)).code == 0
    assert mem("reinforce", "--pattern", "Rate limit", "--accept", "false", "-d", str(project)).code == 0
    before = tree_bytes(project)
    got = json.loads(mem("promotions", "--json", "-d", str(project)).out)
    assert got["count"] == 1
    row = got["promotions"][0]
    assert (row["pattern"], row["evidence"], row["ts"]) == ("Rate limit", ["e1", "e2"], now)
    assert row["proposedScore"]["updates"] == 3 and row["currentScore"]["updates"] == 4
    assert row["currentScore"]["mean"] < row["proposedScore"]["mean"]
    text = mem("promotions", "-d", str(project)).out.splitlines()
    assert text[0] == "mem promotions: 1 proposed, awaiting a human or Shield decision"
    assert text[1] == f"  1. {row['id']} Rate limit (proposed {now})"
    assert text[2] == "     posterior mean 0.798 >= 0.7 over 3 update(s)"
    assert text[3].startswith("     now: elo ") and ", updates 4, " in text[3]
    assert text[4] == "     evidence: e1, e2"
    assert tree_bytes(project) == before


def test_a_decided_proposal_is_not_listed(mem, bmad_project: Path) -> None:
    store = bmad_project / PROMOTIONS
    first = json.loads(store.read_text().splitlines()[0])
    decided = dict(first, id="d" * 12, status="APPROVED", approvedBy="lead", approvedAt="2026-11-03T00:00:00.000Z")
    store.write_text(store.read_text() + json.dumps(decided) + "\n")
    got = json.loads(mem("promotions", "--json", "-d", str(bmad_project)).out)
    assert (got["count"], got["promotions"]) == (0, [])
    # a decision Shield wrote (the reference's fields only) is listed as one
    assert got["decisions"] == [{"id": "d" * 12, "pattern": first["patternId"], "status": "APPROVED", "by": "lead",
                                 "at": "2026-11-03T00:00:00.000Z", "reason": None, "decidedWith": None}]  # fmt: skip


def test_stored_text_is_shown_on_one_line(mem, project: Path, now: str) -> None:
    pattern = "two\nlines \x1b[31m"
    assert mem("reinforce", "--pattern", pattern, "--eval", "1", "-d", str(project)).code == 0
    out = mem("scores", "-d", str(project)).out
    assert out.count("\n") == 3 and "\x1b" not in out and "two\\nlines \\u001b[31m" in out


def test_a_corrupt_store_is_refused_and_left_alone(mem, project: Path) -> None:
    (project / ".bmad/memory").mkdir(parents=True)
    (project / SCORES).write_text("{not json")
    for command in ("scores", "promotions"):
        run = mem(command, "-d", str(project))
        assert run.code == 1
        assert run.err == (
            f"mem {command}: Pattern score store is corrupt; inspect pattern-scores.json before reinforcing.\n"
        )
    assert (project / SCORES).read_text() == "{not json"
    run = mem("scores", "--json", "-d", str(project))
    assert run.code == 1 and "error" in json.loads(run.out)
