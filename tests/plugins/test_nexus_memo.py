"""Issue 12: ``mem outcomes`` and evidence recall read each Nexus run once,
hash each file once and split each note file once per invocation — and a file
that changes in between is read again, never answered from the memo."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mem_core.api import evidence
from mem_core.api.evidence import inspect_outcomes, section_anchor
from mem_core.errors import MemError
from mem_core.evidence.models import Receipt
from mem_core.js import jsonfmt
from mem_plugins.verifiers import nexus
from mem_plugins.verifiers.nexus import NexusVerifier, accepted_source
from tests.nexus_builder import RunBuilder, make_project

NOT_ELIGIBLE = "Outcome source is not an accepted task with current independently verified evidence."
LESSONS = ".agents/memory/lessons.md"


def _rewrite(path: Path, data: bytes) -> None:
    """Rewrite in place; the change time moves on even within one clock tick
    of the file system, so the new file never has the old identity."""
    before = os.stat(path)
    path.write_bytes(data)
    st = os.stat(path)
    if (st.st_size, st.st_mtime_ns, st.st_ctime_ns) == (before.st_size, before.st_mtime_ns, before.st_ctime_ns):
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # as a later tick would


@pytest.fixture
def receipts(project: Path) -> Path:
    """Four receipts: tasks a, b of run one and c, d of run two, one section each."""
    lessons = "# Lessons\n" + "".join(f"\n### Lesson {t}\nKeep the cache contract {t}.\n" for t in "abcd")
    make_project(project, lessons=lessons)
    for run_id, tasks in (("one", "ab"), ("two", "cd")):
        builder = RunBuilder(project, run_id)
        for task in tasks:
            builder.accepted(task)
        builder.write()
    lines = []
    for run_id, task in (("one", "a"), ("one", "b"), ("two", "c"), ("two", "d")):
        receipt = Receipt.create(
            ts="2026-11-30T12:00:00.000Z",
            memory=section_anchor(str(project), {"file": LESSONS, "heading": f"Lesson {task}"}),
            scope=["work"],
            source=accepted_source(str(project), run_id, task),
            interpretation="Accepted work backs it.",
            supersedes=[],
            contradicts=[],
        )
        lines.append(jsonfmt.dumps(receipt.record()) + "\n")
    (project / ".bmad/memory").mkdir(parents=True)
    (project / ".bmad/memory/outcomes.ndjson").write_text("".join(lines))
    return project


def _count(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    calls: list[Any] = []
    original = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_each_run_is_loaded_and_each_file_hashed_once(receipts: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads = _count(monkeypatch, nexus, "_load_run")
    splits = _count(monkeypatch, evidence, "split_sections")
    opened: list[str] = []

    real_open = nexus.open_regular

    def counted_open(path: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(os.path.relpath(path, os.path.realpath(receipts)))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(nexus, "open_regular", counted_open)
    statuses = inspect_outcomes(str(receipts))
    assert [s["reason"] for s in statuses] == [None] * 4
    assert [args[1] for args in loads] == ["one", "two"]
    assert len(splits) == 1  # lessons.md split once for four receipts
    # each run, the check script, the artifact and the check binary: each read once
    assert len(opened) == len(set(opened)) == 5
    assert {".bmad-plus/nexus/runs/one.json", "checks/accepted.sh", "work/result.json"} <= set(opened)


def test_a_file_changed_between_two_rechecks_is_read_again(receipts: Path) -> None:
    verifier = NexusVerifier()
    source = accepted_source(str(receipts), "one", "a")
    assert verifier.recheck(str(receipts), source) == source
    _rewrite(receipts / "work/result.json", b'{"verified":false}')
    with pytest.raises(MemError) as info:
        verifier.recheck(str(receipts), source)
    assert info.value.message == NOT_ELIGIBLE
    _rewrite(receipts / "work/result.json", b'{"verified":true}')
    assert verifier.recheck(str(receipts), source) == source


def test_a_run_rewritten_between_two_rechecks_is_read_again(receipts: Path) -> None:
    verifier = NexusVerifier()
    source = accepted_source(str(receipts), "two", "c")
    assert verifier.recheck(str(receipts), source) == source
    run_file = receipts / ".bmad-plus/nexus/runs/two.json"
    original = run_file.read_bytes()
    _rewrite(run_file, original.replace(b'"sequence": ', b'"sequence": 1'))
    with pytest.raises(MemError) as info:
        verifier.recheck(str(receipts), source)
    assert info.value.message.startswith("Nexus: Corrupt or foreign run state")
    _rewrite(run_file, original)
    assert verifier.recheck(str(receipts), source) == source


def test_a_note_file_changed_between_two_anchors_is_split_again(receipts: Path) -> None:
    split: dict[Any, Any] = {}
    memory = {"file": LESSONS, "heading": "Lesson b"}
    first = section_anchor(str(receipts), memory, split)
    assert section_anchor(str(receipts), memory, split) == first
    lessons = receipts / LESSONS
    _rewrite(lessons, lessons.read_bytes().replace(b"contract b", b"contract B"))
    changed = section_anchor(str(receipts), memory, split)
    assert changed["textSha256"] != first["textSha256"]
    assert changed == section_anchor(str(receipts), memory)  # as without the memo
    _rewrite(lessons, lessons.read_bytes() + b"\n### Lesson b\nTwice.\n")
    with pytest.raises(MemError):
        section_anchor(str(receipts), memory, split)


def test_statuses_follow_a_change_between_two_invocations(receipts: Path) -> None:
    assert [s["reason"] for s in inspect_outcomes(str(receipts))] == [None] * 4
    _rewrite(receipts / "checks/accepted.sh", b"exit 0\n")
    reasons = [s["reason"] for s in inspect_outcomes(str(receipts))]
    assert reasons == ["unavailable-or-ineligible-source: " + NOT_ELIGIBLE] * 4
