"""The evidence receipts kernel (docs/contract.md §5, §6) with an in-test verifier:
check order and messages, receipt bytes and id, store integrity, status
precedence. The Nexus verifier has its own tests (tests/plugins)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mem_core import hookimpl
from mem_core.api.evidence import inspect_outcomes, observe, outcomes, read_receipts
from mem_core.errors import MemError
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.plugin import OutcomeVerifier
from tests.conftest import tree_bytes

TS = "2026-11-03T12:00:00.000Z"
LESSONS = "# Lessons\n\n### Cache contract\nPreserve false and zero cache values.\n\n### Cache alternative\nDiscard zero cache values.\n"


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class WorkVerifier(OutcomeVerifier):
    """Work is ``.work/<runId>.json``: ``{"accepted": bool, "attempt": id, "scope": [...]}``."""

    name = "work"

    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:
        run_id, task_id = request.get("runId"), request.get("taskId")
        if not isinstance(run_id, str) or not run_id.strip():
            raise MemError("Run ID must be non-empty bounded text.")
        if not isinstance(task_id, str) or not task_id.strip():
            raise MemError("Task ID must be non-empty bounded text.")
        return self._source(project, {"runId": run_id, "taskId": task_id})

    def recheck(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        work = self._work(project, source)
        if work.get("touch"):  # the section changes while the receipt is being made
            lessons = Path(project, ".agents/memory/lessons.md")
            lessons.write_text(lessons.read_text().replace("Preserve false", "Preserve"))
        return self._source(project, source)

    def _work(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        path = Path(project, ".work", f"{source['runId']}.json")
        if not path.exists():
            raise MemError("no such work")
        return json.loads(path.read_text())

    def _source(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        work = self._work(project, source)
        if not work["accepted"]:
            raise MemError("Outcome source is not an accepted task with current independently verified evidence.")
        return {"kind": "work", "runId": source["runId"], "taskId": source["taskId"],
                "attemptId": work["attempt"], "scope": work["scope"]}  # fmt: skip


class WorkPlugin:
    @hookimpl
    def mem_register_outcome_verifiers(self) -> list[type[OutcomeVerifier]]:
        return [WorkVerifier]


@pytest.fixture
def kernel_with_work() -> Kernel:
    pm = make_plugin_manager(entry_points=False)
    pm.register(WorkPlugin(), name="work-test")
    return Kernel(pm)


@pytest.fixture
def proj(project: Path) -> Path:
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text(LESSONS)
    work(project, "r1", attempt="a1")
    return project


def work(
    project: Path, run_id: str, *, attempt: str, accepted: bool = True, scope: list[str] | None = None, **extra: Any
) -> None:
    (project / ".work").mkdir(exist_ok=True)
    data = {"accepted": accepted, "attempt": attempt, "scope": scope or ["work"], **extra}
    (project / ".work" / f"{run_id}.json").write_text(json.dumps(data))


def observe_input(project: Path, **fields: Any) -> str:
    data = {
        "verifier": "work",
        "runId": "r1",
        "taskId": "t",
        "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
        "scope": ["work"],
        "interpretation": "Associated, not measured.",
    }
    for key, value in fields.items():
        if value is ...:
            data.pop(key, None)
        else:
            data[key] = value
    (project / "in.json").write_text(json.dumps(data))
    return "in.json"


def do_observe(project: Path, kernel: Kernel, **fields: Any) -> dict[str, Any]:
    return observe(observe_input(project, **fields), directory=str(project), now=TS, kernel=kernel).written


def refuse(project: Path, kernel: Kernel, message: str, **fields: Any) -> None:
    """The observation is refused with ``message`` and no file changes."""
    path = observe_input(project, **fields)
    before = tree_bytes(project)
    with pytest.raises(MemError) as info:
        observe(path, directory=str(project), now=TS, kernel=kernel)
    assert info.value.message == message
    assert tree_bytes(project) == before


# ---------------------------------------------------------------- the receipt


def test_receipt_bytes_key_order_and_id(proj: Path, kernel_with_work: Kernel) -> None:
    written = do_observe(proj, kernel_with_work, scope=["work/b", "work/a", "work/b"])
    section = sha("Cache contract\nPreserve false and zero cache values.")
    body = {
        "schemaVersion": 1,
        "kind": "accepted-outcome",
        "ts": TS,
        "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract", "textSha256": section},
        "scope": ["work/a", "work/b"],
        "source": {"kind": "work", "runId": "r1", "taskId": "t", "attemptId": "a1", "scope": ["work"]},
        "interpretation": "Associated, not measured.",
        "verification": {"status": "passed", "acceptance": "accepted", "lessonCausality": "unmeasured"},
        "supersedes": [],
        "contradicts": [],
    }
    expected = {"id": sha(compact(body)), **body}
    assert (proj / ".bmad/memory/outcomes.ndjson").read_bytes() == (compact(expected) + "\n").encode()
    assert written == expected and list(written) == list(expected)


def test_receipt_id_is_over_unescaped_non_ascii(proj: Path, kernel_with_work: Kernel) -> None:
    written = do_observe(proj, kernel_with_work, interpretation="Zéro — « valeurs » 😀")
    line = (proj / ".bmad/memory/outcomes.ndjson").read_text(encoding="utf-8")
    assert "Zéro — « valeurs » 😀" in line
    body = {k: v for k, v in written.items() if k != "id"}
    assert written["id"] == sha(compact(body))


def test_relationships_are_sorted_and_must_overlap(proj: Path, kernel_with_work: Kernel) -> None:
    work(proj, "r2", attempt="a2")
    work(proj, "r3", attempt="a3")
    work(proj, "r4", attempt="a4", scope=["docs"])
    first = do_observe(proj, kernel_with_work)["id"]
    second = do_observe(proj, kernel_with_work, runId="r2", scope=["work/x"])["id"]
    third = do_observe(proj, kernel_with_work, runId="r3", supersedes=[second, first])
    assert third["supersedes"] == sorted([first, second]) and third["contradicts"] == []
    refuse(proj, kernel_with_work, "Related outcome must exist in the same applicable project scope.",
           runId="r4", scope=["docs"], contradicts=[first])  # fmt: skip


# ---------------------------------------------------------------- refusals, in order


REFUSALS = [
    ({"runId": ...}, "Run ID must be non-empty bounded text."),
    ({"runId": "ghost"}, "no such work"),
    ({"runId": "pending"}, "Outcome source is not an accepted task with current independently verified evidence."),
    ({"memory": None}, "Outcome memory source must be a project decisions, lessons or patterns Markdown file."),
    (
        {"memory": {"file": "lessons.md", "heading": "Cache contract"}},
        "Outcome memory source must be a project decisions, lessons or patterns Markdown file.",
    ),
    (
        {"memory": {"file": ".agents/memory/notes.md", "heading": "x"}},
        "Outcome memory source must be a project decisions, lessons or patterns Markdown file.",
    ),
    (
        {"memory": {"file": ".agents/memory/lessons.md", "heading": " "}},
        "Memory heading must be non-empty bounded text.",
    ),
    (
        {"memory": {"file": ".agents/memory/lessons.md", "heading": "x" * 301}},
        "Memory heading must be non-empty bounded text.",
    ),
    (
        {"memory": {"file": ".agents/memory/lessons.md", "heading": "Cache"}},
        "Memory heading must identify exactly one section.",
    ),
    (
        {"memory": {"file": ".agents/memory/lessons.md", "heading": " Cache contract"}},
        "Memory heading must identify exactly one section.",
    ),
    ({"scope": []}, "An explicit non-empty project scope is required."),
    ({"scope": ["w"] * 31}, "An explicit non-empty project scope is required."),
    ({"scope": "work"}, "An explicit non-empty project scope is required."),
    ({"scope": ["work/"]}, "Outcome scope must be a normalized relative path."),
    ({"scope": ["./work"]}, "Outcome scope must be a normalized relative path."),
    ({"scope": ["/work"]}, "Outcome scope must be a normalized relative path."),
    ({"scope": ["wo\\rk"]}, "Outcome scope must be a normalized relative path."),
    ({"scope": ["c:work"]}, "Outcome scope must be a normalized relative path."),
    ({"scope": ["workshop"]}, "Outcome scope exceeds the accepted task scope."),
    ({"scope": ["work", "src"]}, "Outcome scope exceeds the accepted task scope."),
    ({"supersedes": "x"}, "Outcome relationships must be a unique bounded receipt-ID list."),
    ({"supersedes": ["a", "a"]}, "Outcome relationships must be a unique bounded receipt-ID list."),
    ({"contradicts": [str(i) for i in range(31)]}, "Outcome relationships must be a unique bounded receipt-ID list."),
    ({"supersedes": ["0" * 64]}, "Related outcome must exist in the same applicable project scope."),
    ({"supersedes": [1]}, "Related outcome must exist in the same applicable project scope."),
    ({"interpretation": ...}, "Lesson interpretation must be non-empty bounded text."),
    ({"interpretation": "\n \t"}, "Lesson interpretation must be non-empty bounded text."),
    ({"interpretation": "x" * 2001}, "Lesson interpretation must be non-empty bounded text."),
    ({"verifier": "ghost"}, "Outcome verifier must be nexus, junit or work."),
    ({"verifier": 5}, "Outcome verifier must be nexus, junit or work."),
]


@pytest.mark.parametrize(("fields", "message"), REFUSALS, ids=[m[:40] + str(i) for i, (_, m) in enumerate(REFUSALS)])
def test_each_refusal_has_its_message_and_writes_nothing(
    proj: Path, kernel_with_work: Kernel, fields: dict, message: str
) -> None:
    work(proj, "pending", attempt="p1", accepted=False)
    work(proj, "r0", attempt="a0")
    do_observe(proj, kernel_with_work, runId="r0")  # an existing receipt
    refuse(proj, kernel_with_work, message, **fields)


def test_bounds_count_characters(proj: Path, kernel_with_work: Kernel) -> None:
    written = do_observe(proj, kernel_with_work, interpretation="é" * 2000)
    assert written["interpretation"] == "é" * 2000


def test_checks_run_in_the_order_of_the_spec(proj: Path, kernel_with_work: Kernel) -> None:
    everything_wrong = {"runId": "", "memory": None, "scope": [], "supersedes": "x", "interpretation": ""}
    order = [
        ("runId", "Run ID must be non-empty bounded text."),
        ("memory", "Outcome memory source must be a project decisions, lessons or patterns Markdown file."),
        ("scope", "An explicit non-empty project scope is required."),
        ("supersedes", "Outcome relationships must be a unique bounded receipt-ID list."),
        ("interpretation", "Lesson interpretation must be non-empty bounded text."),
    ]
    fields = dict(everything_wrong)
    for key, message in order:
        with pytest.raises(MemError) as info:
            do_observe(proj, kernel_with_work, **fields)
        assert info.value.message == message
        fields.pop(key)
    assert do_observe(proj, kernel_with_work, **fields)["id"]


def test_duplicate_attempt_comes_before_the_section_checks(proj: Path, kernel_with_work: Kernel) -> None:
    do_observe(proj, kernel_with_work)
    with pytest.raises(MemError, match="^Duplicate outcome: this task attempt already supplied a receipt.$"):
        do_observe(proj, kernel_with_work, memory=None)
    work(proj, "r1", attempt="a1-retry")  # a new attempt of the same task is a new receipt
    assert do_observe(proj, kernel_with_work)["source"]["attemptId"] == "a1-retry"


def test_both_lists_is_refused(proj: Path, kernel_with_work: Kernel) -> None:
    first = do_observe(proj, kernel_with_work)["id"]
    work(proj, "r2", attempt="a2")
    refuse(proj, kernel_with_work, "A receipt cannot be both superseded and contradicted.",
           runId="r2", supersedes=[first], contradicts=[first])  # fmt: skip


def test_sources_changing_during_observation_are_refused(proj: Path, kernel_with_work: Kernel) -> None:
    work(proj, "r1", attempt="a1", touch=True)  # the verifier edits the section it is asked about
    with pytest.raises(MemError, match="^Outcome sources changed while being observed.$"):
        do_observe(proj, kernel_with_work)
    assert not (proj / ".bmad/memory/outcomes.ndjson").exists()


def _store(project: Path, lines: list[str]) -> Path:
    path = project / ".bmad/memory/outcomes.ndjson"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _sealed(body: dict[str, Any]) -> dict[str, Any]:
    return {"id": sha(compact(body)), **body}


def _filler(n: int) -> list[str]:
    return [
        compact(_sealed({"schemaVersion": 1, "kind": "accepted-outcome", "source": {"attemptId": f"a{i}"},
                         "supersedes": [], "contradicts": []}))
        for i in range(n)
    ]  # fmt: skip


def test_store_full_at_1000(proj: Path, kernel_with_work: Kernel) -> None:
    _store(proj, _filler(1000))
    refuse(proj, kernel_with_work, "Outcome store is full; archive it explicitly.")
    _store(proj, _filler(999))
    assert do_observe(proj, kernel_with_work)["id"]


def test_store_over_2_mib_is_full(proj: Path, kernel_with_work: Kernel) -> None:
    pad = _sealed({"schemaVersion": 1, "kind": "accepted-outcome", "pad": "x" * (2 * 1024 * 1024 - 600),
                   "source": {"attemptId": "big"}, "supersedes": [], "contradicts": []})  # fmt: skip
    _store(proj, [compact(pad)])
    refuse(proj, kernel_with_work, "Memory store is full; archive it explicitly before adding records.")


def test_writer_lock_is_held_for_the_whole_observation(
    proj: Path, kernel_with_work: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem_core.files import lock as writer_lock

    monkeypatch.setattr(writer_lock, "LOCK_WAIT_SECONDS", 0.05)
    lock = proj / ".bmad/memory/writer.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"pid": os.getpid(), "hostname": os.uname().nodename, "token": "t"}))
    refuse(proj, kernel_with_work, writer_lock.LOCKED)


# ---------------------------------------------------------------- store integrity (§6)


def test_integrity_rules(proj: Path, kernel_with_work: Kernel) -> None:
    first = do_observe(proj, kernel_with_work)
    work(proj, "r2", attempt="a2")
    second = do_observe(proj, kernel_with_work, runId="r2", supersedes=[first["id"]])
    good = (proj / ".bmad/memory/outcomes.ndjson").read_text().splitlines()
    body2 = {k: v for k, v in second.items() if k != "id"}

    def refused(lines: list[str], message: str, *, raw: str | None = None) -> None:
        path = _store(proj, lines)
        if raw is not None:
            path.write_text(raw)
        with pytest.raises(MemError) as info:
            read_receipts(str(proj))
        assert info.value.message == message
        with pytest.raises(MemError):
            outcomes(directory=str(proj), kernel=kernel_with_work)

    refused([], "Outcome store has an incomplete final record.", raw=good[0])
    refused(['{"id":'], "Unexpected end of JSON input")
    refused(["  "], "Unexpected end of JSON input")
    refused(["null"], "Cannot destructure property 'id' of 'record' as it is null.")
    refused(["5"], "Outcome receipt integrity or uniqueness check failed.")
    refused(_filler(1001), "Outcome store exceeds 1000 records.")
    # an edited field, a wrong id, a reordered relation or key order: the id no longer matches
    edited = dict(second, interpretation="edited")
    refused([good[0], compact(edited)], "Outcome receipt integrity or uniqueness check failed.")
    refused([good[0], compact(dict(second, id="0" * 64))], "Outcome receipt integrity or uniqueness check failed.")
    reordered = {"id": second["id"], **{k: body2[k] for k in reversed(list(body2))}}
    refused([good[0], compact(reordered)], "Outcome receipt integrity or uniqueness check failed.")
    refused([good[0], good[0]], "Outcome receipt integrity or uniqueness check failed.")
    refused(
        [compact(_sealed(dict(body2, schemaVersion=True)))], "Outcome receipt integrity or uniqueness check failed."
    )
    refused([compact(_sealed(dict(body2, kind="other")))], "Outcome receipt integrity or uniqueness check failed.")
    # relationships only to earlier receipts
    refused([good[1], good[0]], "Outcome relationships must identify earlier receipts.")
    refused([compact(_sealed(dict(body2, supersedes="x")))], "Outcome relationships must identify earlier receipts.")
    # one receipt per attempt, and an attempt id
    again = _sealed({k: v for k, v in first.items() if k != "id"} | {"ts": "2027-01-01T00:00:00.000Z"})
    refused([good[0], compact(again)], "Duplicate or missing outcome attempt identity.")
    refused(
        [compact(_sealed(dict(body2, supersedes=[], source={"runId": "r2"})))],
        "Duplicate or missing outcome attempt identity.",
    )
    refused(
        [compact(_sealed(dict(body2, supersedes=[], source=None)))], "Duplicate or missing outcome attempt identity."
    )
    # the good store reads back as written (CRLF-terminated lines too: \r is JSON white space)
    _store(proj, good)
    assert [r["id"] for r in read_receipts(str(proj))] == [first["id"], second["id"]]
    (proj / ".bmad/memory/outcomes.ndjson").write_text("".join(line + "\r\n" for line in good))
    assert len(read_receipts(str(proj))) == 2


# ---------------------------------------------------------------- statuses (§6)


def statuses(project: Path, kernel: Kernel, **kw: Any) -> list[str]:
    return [r["reason"] or "accepted-current" for r in inspect_outcomes(str(project), kernel=kernel, **kw)]


def test_status_precedence(proj: Path, kernel_with_work: Kernel) -> None:
    lessons = proj / ".agents/memory/lessons.md"
    for run in ("r2", "r3", "r4", "r5"):
        work(proj, run, attempt=run + "a")
    a = do_observe(proj, kernel_with_work)["id"]
    do_observe(
        proj, kernel_with_work, runId="r2", memory={"file": ".agents/memory/lessons.md", "heading": "Cache alternative"}
    )["id"]
    assert statuses(proj, kernel_with_work) == ["accepted-current"] * 2
    # b contradicts a: both anchors are contradictory
    c = do_observe(proj, kernel_with_work, runId="r3", contradicts=[a])["id"]
    assert statuses(proj, kernel_with_work) == ["contradictory", "accepted-current", "contradictory"]
    # superseding the contradicting receipt ends the contradiction; superseded wins
    do_observe(proj, kernel_with_work, runId="r4", supersedes=[c])
    assert statuses(proj, kernel_with_work) == [
        "accepted-current",
        "accepted-current",
        "superseded",
        "accepted-current",
    ]
    # outside the query scope comes before the section and source checks
    assert statuses(proj, kernel_with_work, context_scope=["docs"]) == [
        "outside-query-scope",
        "outside-query-scope",
        "superseded",
        "outside-query-scope",
    ]
    assert statuses(proj, kernel_with_work, context_scope=["work/deep/file"])[0] == "accepted-current"
    # the section: edited -> stale, restored -> current
    original = lessons.read_text()
    lessons.write_text(original.replace("Discard zero", "Discard"))
    assert statuses(proj, kernel_with_work)[1] == "stale-memory-section"
    lessons.write_text(original)
    assert statuses(proj, kernel_with_work)[1] == "accepted-current"
    # the source: still verified but different -> stale-outcome-source; gone -> unavailable
    work(proj, "r2", attempt="r2a", scope=["work", "docs"])
    assert statuses(proj, kernel_with_work)[1] == "stale-outcome-source"
    work(proj, "r2", attempt="r2a", accepted=False)
    assert statuses(proj, kernel_with_work)[1] == (
        "unavailable-or-ineligible-source: Outcome source is not an accepted task with current independently verified evidence."
    )
    lessons.write_text("### Cache contract\nx\n### Cache contract\ny\n")
    assert (
        statuses(proj, kernel_with_work)[0]
        == "unavailable-or-ineligible-source: Memory heading must identify exactly one section."
    )
    lessons.unlink()
    assert statuses(proj, kernel_with_work)[0] == (
        f"unavailable-or-ineligible-source: ENOENT: no such file or directory, stat '{lessons}'"
    )


def test_contradiction_spreads_to_every_receipt_on_the_same_anchor(proj: Path, kernel_with_work: Kernel) -> None:
    for run in ("r2", "r3"):
        work(proj, run, attempt=run + "a", scope=["work", "docs"])
    a = do_observe(proj, kernel_with_work)["id"]
    do_observe(proj, kernel_with_work, runId="r2", scope=["docs"])  # same anchor, unrelated scope
    do_observe(
        proj,
        kernel_with_work,
        runId="r3",
        contradicts=[a],
        memory={"file": ".agents/memory/lessons.md", "heading": "Cache alternative"},
    )
    assert statuses(proj, kernel_with_work) == ["contradictory"] * 3


def test_unknown_source_kind_is_checked_by_the_default_verifier(proj: Path, kernel_with_work: Kernel) -> None:
    record = do_observe(proj, kernel_with_work)
    body = {k: v for k, v in record.items() if k != "id"}
    body["source"] = dict(body["source"], kind="retired-plugin", runId="one")
    _store(proj, [compact(_sealed(body))])
    [status] = inspect_outcomes(str(proj), kernel=kernel_with_work)
    assert status["reason"].startswith("unavailable-or-ineligible-source: ")
    pm = make_plugin_manager(entry_points=False)
    pm.set_blocked("nexus")
    bare = Kernel(pm)
    [status] = inspect_outcomes(str(proj), kernel=bare)
    assert status["reason"] == "unavailable-or-ineligible-source: No outcome verifier 'retired-plugin' is registered."


def test_outcomes_result_json_and_lines(proj: Path, kernel_with_work: Kernel) -> None:
    assert outcomes(directory=str(proj), kernel=kernel_with_work).to_json() == {"count": 0, "results": []}
    record = do_observe(proj, kernel_with_work)
    result = outcomes(directory=str(proj), kernel=kernel_with_work)
    assert result.to_json() == {"count": 1, "results": [{**record, "eligible": True, "reason": None}]}
    assert list(result.to_json()["results"][0])[-2:] == ["eligible", "reason"]
    from mem_cli import render

    assert render.outcomes(result) == f"{record['id']}: accepted-current"


def test_receipt_model_round_trip() -> None:
    from mem_core.evidence.models import Receipt

    receipt = Receipt.create(
        ts=TS,
        memory={"file": ".agents/memory/lessons.md", "heading": "H", "textSha256": "0" * 64},
        scope=["work"],
        source={"kind": "work", "runId": "r", "taskId": "t", "attemptId": "a"},
        interpretation="i",
        supersedes=[],
        contradicts=[],
    )
    record = receipt.record()
    assert list(record) == ["id", "schemaVersion", "kind", "ts", "memory", "scope", "source", "interpretation",
                            "verification", "supersedes", "contradicts"]  # fmt: skip
    assert record["id"] == sha(compact({k: v for k, v in record.items() if k != "id"})) and receipt.intact()
    assert not receipt.model_copy(update={"interpretation": "j"}).intact()
    assert Receipt.model_validate(record).record() == record
