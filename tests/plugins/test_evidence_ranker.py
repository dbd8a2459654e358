"""The ``evidence`` ranker (docs/contract.md §7) on the project bmad-plus mem and
BMAD+ Nexus wrote (tests/fixtures, relocated to its temporary copy)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mem_core.api.recall import recall
from tests.conftest import EVIDENCE_RECALL_TEXT
from tests.nexus_builder import relocate

CONTRACT_LEXICAL = 0.9521713170536843
RESOLUTION_LEXICAL = 0.8977157268533151


@pytest.fixture
def relocated(bmad_project: Path) -> tuple[Path, list[str]]:
    ids = relocate(bmad_project)
    return bmad_project, list(ids.values())


def test_the_reference_listing_byte_for_byte(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, _ = relocated
    run = mem("recall", "cache", "values", "--ranking", "evidence", "--context-scope", "work", "-d", str(project))
    assert (run.code, run.err) == (0, "")
    assert run.out == EVIDENCE_RECALL_TEXT


def test_json_evidence_fields(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, (contract_id, resolution_id) = relocated
    run = mem(
        "recall",
        "cache",
        "values",
        "--json",
        "--ranking",
        "evidence",
        "--context-scope",
        " work ,work/x",
        "-d",
        str(project),
    )
    data = json.loads(run.out)
    assert (data["ranking"], data["count"]) == ("evidence", 6)
    first, second, third = data["results"][:3]
    assert list(first) == ["score", "kind", "source", "sourceFile", "ref", "text", "lexicalScore", "evidence"]
    assert first["lexicalScore"] == CONTRACT_LEXICAL and first["score"] == CONTRACT_LEXICAL * 1.25
    assert first["evidence"] == {"status": "accepted-current", "receiptIds": [contract_id], "reward": 1,
                                 "boost": 0.25, "lessonCausality": "unmeasured"}  # fmt: skip
    assert second["evidence"]["receiptIds"] == [resolution_id] and second["score"] == RESOLUTION_LEXICAL * 1.25
    assert list(third) == ["score", "kind", "source", "sourceFile", "ref", "text", "evidence"]
    assert third["evidence"] == {"status": "unverified", "receiptIds": [], "boost": 0}
    event = data["results"][4]
    assert list(event) == ["score", "kind", "source", "ref", "text", "event", "evidence"]
    assert event["evidence"]["status"] == "unverified"
    assert '"boost": 0.25,' in run.out and '"boost": 0\n' in run.out


def _refs(project: Path, context: str = "work") -> list[str]:
    result = recall(
        "cache values",
        directory=str(project),
        ranking="evidence",
        context_scope=context,
        now="2026-11-05T12:00:00.000Z",
    )
    return [hit.fields["ref"] for hit in result.results]


def test_notes_with_only_dead_receipts_are_dropped(relocated: tuple[Path, list[str]]) -> None:
    project, _ = relocated
    lessons = project / ".agents/memory/lessons.md"
    original = lessons.read_text()
    lessons.write_text(original.replace("Preserve false and zero", "Preserve zero"))
    refs = _refs(project)
    assert "Cache contract" not in refs and refs[0] == "Cache resolution"
    lessons.write_text(original)
    assert _refs(project)[0] == "Cache contract"
    # outside the context scope: both receipted lessons are dropped, the rest stay unverified
    assert _refs(project, "docs") == ["Cache alternative", "Cache shortcut", "da611e596f32",
                                      "2026-06-01 — Use BullMQ for job queues"]  # fmt: skip
    # work changed: the accepted runs are no longer current evidence
    (project / "work/extra.txt").write_text("x")
    assert "Cache contract" not in _refs(project) and "Cache resolution" not in _refs(project)


def test_lexical_ranking_ignores_receipts(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, _ = relocated
    run = mem("recall", "cache", "values", "--json", "-d", str(project))
    first = json.loads(run.out)["results"][2]
    assert first["ref"] == "Cache contract" and first["score"] == CONTRACT_LEXICAL and "evidence" not in first


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--scope", "portfolio", "--context-scope", "work"],
            "Evidence ranking supports project-local lexical recall only.",
        ),
        (
            ["--scope", "team", "--context-scope", "work"],
            "Evidence ranking supports project-local lexical recall only.",
        ),
        ([], "An explicit non-empty project scope is required."),
        (["--context-scope", ""], "An explicit non-empty project scope is required."),
        (["--context-scope", ",".join(["a"] * 31)], "An explicit non-empty project scope is required."),
        (["--context-scope", " "], "Outcome scope must be a normalized relative path."),
        (["--context-scope", "work,"], "Outcome scope must be a normalized relative path."),
        (["--context-scope", "../work"], "Outcome scope must be a normalized relative path."),
        (["--context-scope", "/work"], "Outcome scope must be a normalized relative path."),
    ],
)
def test_refusals(mem, relocated: tuple[Path, list[str]], now: str, args: list[str], message: str) -> None:
    project, _ = relocated
    run = mem("recall", "cache", "--ranking", "evidence", *args, "-d", str(project))
    assert (run.code, run.out, run.err) == (1, "", f"mem recall: {message}\n")
    run = mem("recall", "cache", "--ranking", "evidence", *args, "-d", str(project), "--json")
    assert (run.code, run.out) == (1, json.dumps({"error": message}, separators=(",", ":")) + "\n")


def test_sources_are_read_strictly_before_the_scope_is_checked(
    mem, relocated: tuple[Path, list[str]], now: str
) -> None:
    project, _ = relocated
    journal = project / ".bmad/memory/journal.ndjson"
    journal.rename(project / "journal.ndjson")
    journal.symlink_to(project / "journal.ndjson")
    run = mem("recall", "cache", "--ranking", "evidence", "-d", str(project))  # no --context-scope either
    assert (run.code, run.err) == (1, "mem recall: Memory paths cannot follow symbolic links or junctions.\n")
    run = mem("recall", "cache", "-d", str(project))  # lexical recall skips it and says so
    assert run.code == 0 and "skipped .bmad/memory/journal.ndjson" in run.err
    journal.unlink()
    (project / "journal.ndjson").rename(journal)
    lessons = project / ".agents/memory/lessons.md"
    lessons.write_bytes(b"### Cache \xff\n")
    run = mem("recall", "cache", "--ranking", "evidence", "--context-scope", "work", "-d", str(project))
    assert (run.code, run.err) == (1, "mem recall: Memory source must contain valid UTF-8.\n")


def test_a_broken_receipt_store_fails_evidence_recall(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, _ = relocated
    store = project / ".bmad/memory/outcomes.ndjson"
    store.write_text(store.read_text().replace('"ts":"2026-11-03', '"ts":"2026-11-02'))
    run = mem("recall", "cache", "--ranking", "evidence", "--context-scope", "work", "-d", str(project))
    assert (run.code, run.err) == (1, "mem recall: Outcome receipt integrity or uniqueness check failed.\n")
    store.unlink()  # no receipts: everything is unverified
    run = mem(
        "recall", "cache", "values", "--ranking", "evidence", "--context-scope", "work", "-d", str(project), "--json"
    )
    assert {r["evidence"]["status"] for r in json.loads(run.out)["results"]} == {"unverified"}


def test_no_match(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, _ = relocated
    run = mem("recall", "zebra", "--ranking", "evidence", "--context-scope", "work", "-d", str(project))
    assert (run.code, run.out) == (0, 'mem recall: no matches for "zebra" (scope: project)\n')


def test_limit_applies_after_the_boost(relocated: tuple[Path, list[str]]) -> None:
    project, _ = relocated
    result = recall("cache values", directory=str(project), ranking="evidence", context_scope=["work"], limit=1,
                    now="2026-11-05T12:00:00.000Z")  # fmt: skip
    assert [hit.fields["ref"] for hit in result.results] == ["Cache contract"]
    assert os.path.exists(project / ".bmad/memory/outcomes.ndjson")
