"""``mem outcomes`` (mem-cli.md §6): the receipts bmad-plus mem wrote verify
as it verifies them; text, JSON, integrity failures and statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EVIDENCE_RECALL_TEXT, tree_bytes
from tests.nexus_builder import relocate

STORE = ".bmad/memory/outcomes.ndjson"
README_OUTCOMES = """\
4227ee233b3ae43783cbc521ca8b8449bcabe95c0c174ff595c2198b13eca557: accepted-current
033798cf1d995eabde3cf6a7a01942b40daead820fb8b523d22bd6c0ca43bd78: accepted-current
"""


@pytest.fixture
def relocated(bmad_project: Path) -> tuple[Path, list[str]]:
    ids = relocate(bmad_project)
    return bmad_project, list(ids.values())


def test_the_fixture_receipts_are_current(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, ids = relocated
    before = tree_bytes(project)
    run = mem("outcomes", "-d", str(project))
    assert (run.code, run.err) == (0, "")
    assert run.out == "".join(f"{i}: accepted-current\n" for i in ids)
    assert tree_bytes(project) == before  # outcomes reads only (no lock file either)


def test_json_lists_each_receipt_with_its_status(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, ids = relocated
    run = mem("outcomes", "--json", "-d", str(project))
    records = [json.loads(line) for line in (project / STORE).read_text().splitlines()]
    expected = {"count": 2, "results": [{**r, "eligible": True, "reason": None} for r in records]}
    assert run.out == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"


def test_no_observations(mem, project: Path) -> None:
    assert mem("outcomes", "-d", str(project)).out == "mem outcomes: no observations.\n"
    (project / ".bmad/memory").mkdir(parents=True)
    (project / STORE).write_text("")
    assert mem("outcomes", "-d", str(project)).out == "mem outcomes: no observations.\n"
    run = mem("outcomes", "-d", str(project), "--json")
    assert run.out == '{\n  "count": 0,\n  "results": []\n}\n'
    assert not (project / ".bmad/memory/writer.lock").exists()


def test_statuses_follow_the_files(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, (contract, resolution) = relocated
    lessons = project / ".agents/memory/lessons.md"
    original = lessons.read_text()
    lessons.write_text(original.replace("Inspect the cache caller", "Inspect the caller"))
    assert (
        mem("outcomes", "-d", str(project)).out == f"{contract}: accepted-current\n{resolution}: stale-memory-section\n"
    )
    lessons.write_text(original)
    assert mem("outcomes", "-d", str(project)).out == f"{contract}: accepted-current\n{resolution}: accepted-current\n"
    (project / ".bmad-plus/nexus/writer.lock").write_text("{}")
    busy = "Nexus state is being written or recovered; retry observation after its owner finishes."
    assert mem("outcomes", "-d", str(project)).out == (
        f"{contract}: unavailable-or-ineligible-source: {busy}\n{resolution}: unavailable-or-ineligible-source: {busy}\n"
    )
    (project / ".bmad-plus/nexus/writer.lock").unlink()
    (project / ".bmad-plus/nexus/runs/two.json").unlink()
    missing = project / ".bmad-plus/nexus/runs/two.json"
    assert mem("outcomes", "-d", str(project)).out.splitlines()[1] == (
        f"{resolution}: unavailable-or-ineligible-source: ENOENT: no such file or directory, stat '{missing}'"
    )


@pytest.mark.parametrize(
    "tamper",
    [
        lambda line: line.replace('"interpretation":"The operator', '"interpretation":"An operator'),
        lambda line: line.replace(line[7:71], "0" * 64),
        lambda line: line.replace('"supersedes":[],"contradicts":[]', '"contradicts":[],"supersedes":[]'),
        lambda line: line.replace(
            '"schemaVersion":1,"kind":"accepted-outcome"', '"kind":"accepted-outcome","schemaVersion":1'
        ),
    ],
    ids=["edited field", "wrong id", "reordered relation", "reordered keys"],
)
def test_a_tampered_receipt_is_detected(mem, relocated: tuple[Path, list[str]], now: str, tamper) -> None:
    project, _ = relocated
    store = project / STORE
    first, second = store.read_text().splitlines()
    changed = tamper(first)
    assert changed != first
    store.write_text(changed + "\n" + second + "\n")
    run = mem("outcomes", "-d", str(project))
    assert (run.code, run.out, run.err) == (
        1,
        "",
        "mem outcomes: Outcome receipt integrity or uniqueness check failed.\n",
    )
    run = mem("outcomes", "-d", str(project), "--json")
    assert (run.code, run.out) == (1, '{"error":"Outcome receipt integrity or uniqueness check failed."}\n')


def test_store_shape_errors(mem, relocated: tuple[Path, list[str]], now: str) -> None:
    project, _ = relocated
    store = project / STORE
    good = store.read_text()
    for text, message in [
        (good[:-1], "Outcome store has an incomplete final record."),
        (good + "{\n", "Expected property name or '}' in JSON at position 1"),
        (good + good.splitlines()[0] + "\n", "Outcome receipt integrity or uniqueness check failed."),
        ("null\n", "Cannot destructure property 'id' of 'record' as it is null."),
    ]:
        store.write_text(text)
        run = mem("outcomes", "-d", str(project))
        assert (run.code, run.err) == (1, f"mem outcomes: {message}\n")


def test_the_readme_outputs_at_the_original_place(mem, at_srv: Path, now: str) -> None:
    run = mem("outcomes", "-d", str(at_srv))
    assert (run.code, run.out) == (0, README_OUTCOMES)
    run = mem("recall", "cache", "values", "--ranking", "evidence", "--context-scope", "work", "-d", str(at_srv))
    assert (run.code, run.out) == (0, EVIDENCE_RECALL_TEXT)
