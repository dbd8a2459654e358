"""``mem observe`` (mem-cli.md §5) as a user and an agent run it: the seed's
example end to end, every refusal (exact message, exit 1, outcomes.ndjson
unchanged), and receipts byte-identical to those bmad-plus mem wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BMAD_PROJECT, tree_bytes, writer_lock_held
from tests.nexus_builder import RunBuilder, make_project, relocate

STORE = ".bmad/memory/outcomes.ndjson"
NOT_ELIGIBLE = "Outcome source is not an accepted task with current independently verified evidence."


def _input(project: Path, name: str = "in.json", **fields: Any) -> str:
    data: dict[str, Any] = {
        "runId": "run",
        "taskId": "task",
        "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
        "scope": ["work"],
        "interpretation": "The accepted change keeps false and zero; causality is not measured.",
    }
    for key, value in fields.items():
        if value is ...:
            data.pop(key)
        else:
            data[key] = value
    (project / name).write_text(json.dumps(data))
    return name


@pytest.fixture
def accepted(project: Path) -> Path:
    """A project with an accepted, verified Nexus task over ``work`` and a lesson."""
    make_project(project)
    RunBuilder(project, "run").accepted("task").write()
    return project


def test_the_seed_example_end_to_end(mem, accepted: Path) -> None:
    _input(accepted)
    run = mem("observe", "--input", "in.json", "-d", str(accepted), env={"MEM_NOW": "2026-11-03T12:00:00.000Z"})
    assert run.code == 0, run.err
    [line] = (accepted / STORE).read_text().splitlines()
    receipt = json.loads(line)
    assert run.out == f"mem observe: {receipt['id']} recorded; lesson causality remains unmeasured.\n"
    assert receipt["ts"] == "2026-11-03T12:00:00.000Z" and receipt["source"]["kind"] == "nexus"

    def status() -> str:
        run = mem("outcomes", "-d", str(accepted))
        assert run.code == 0
        return run.out

    assert status() == f"{receipt['id']}: accepted-current\n"
    lessons = accepted / ".agents/memory/lessons.md"
    original = lessons.read_text()
    lessons.write_text(original.replace("Preserve false and zero", "Preserve zero"))
    assert status() == f"{receipt['id']}: stale-memory-section\n"
    lessons.write_text(original)
    assert status() == f"{receipt['id']}: accepted-current\n"
    (accepted / "work/result.json").write_text('{"verified":true,"edited":1}')
    assert status() == f"{receipt['id']}: unavailable-or-ineligible-source: {NOT_ELIGIBLE}\n"


def test_json_output_is_the_written_receipt(mem, accepted: Path, now: str) -> None:
    _input(accepted)
    run = mem("observe", "--json", "--input", "in.json", "-d", str(accepted))
    assert run.code == 0
    receipt = json.loads((accepted / STORE).read_text())
    assert run.out == json.dumps({"written": receipt}, indent=2, ensure_ascii=False) + "\n"
    assert receipt["ts"] == now


def _refused(mem, project: Path, message: str, *, name: str = "in.json") -> None:
    before = tree_bytes(project)
    run = mem("observe", "--input", name, "-d", str(project))
    assert (run.code, run.out, run.err) == (1, "", f"mem observe: {message}\n")
    run = mem("observe", "--input", name, "-d", str(project), "--json")
    assert (run.code, run.out, run.err) == (
        1,
        json.dumps({"error": message}, separators=(",", ":"), ensure_ascii=False) + "\n",
        "",
    )
    assert tree_bytes(project) == before


def test_refusals_for_the_work(mem, project: Path, now: str) -> None:
    make_project(project)
    (project / "lib").mkdir()
    (project / "lib/x.py").write_text("x")
    builder = RunBuilder(project, "run").accepted("task")
    builder.task("pending", scope=["pending"], artifacts=["lib/x.py"]).attempt("pending")
    builder.task("failed", scope=["failed"], artifacts=["lib/x.py"]).attempt("failed", status="failed", exit_code=1)
    builder.accepted("stale", scope=["lib"], artifacts=["lib/x.py"])
    builder.write()
    (project / "lib/x.py").write_text("edited after verification")
    _input(project, taskId="pending")
    _refused(mem, project, NOT_ELIGIBLE)  # verified, not accepted
    _input(project, taskId="failed")
    _refused(mem, project, NOT_ELIGIBLE)  # verification failed
    _input(project, taskId="stale")
    _refused(mem, project, NOT_ELIGIBLE)  # evidence no longer current
    _input(project, runId="ghost")
    _refused(mem, project, f"ENOENT: no such file or directory, stat '{project}/.bmad-plus/nexus/runs/ghost.json'")


@pytest.mark.parametrize(
    ("fields", "lessons", "message"),
    [
        ({"memory": {"file": ".agents/memory/lessons.md", "heading": "Cache"}}, None, "Memory heading must identify exactly one section."),
        ({}, "### Cache contract\na\n\n### Cache contract\nb\n", "Memory heading must identify exactly one section."),
        ({"memory": {"file": "docs/lessons.md", "heading": "Cache contract"}}, None,
         "Outcome memory source must be a project decisions, lessons or patterns Markdown file."),
        ({"scope": ["src"]}, None, "Outcome scope exceeds the accepted task scope."),
        ({"scope": ["work", "works"]}, None, "Outcome scope exceeds the accepted task scope."),
        ({"scope": []}, None, "An explicit non-empty project scope is required."),
        ({"scope": ["work/../src"]}, None, "Outcome scope must be a normalized relative path."),
        ({"interpretation": ...}, None, "Lesson interpretation must be non-empty bounded text."),
        ({"taskId": 7}, None, "Task ID must be non-empty bounded text."),
    ],
)  # fmt: skip
def test_refusals_for_the_lesson_and_scope(
    mem, accepted: Path, now: str, fields: dict, lessons: str | None, message: str
) -> None:
    if lessons is not None:
        (accepted / ".agents/memory/lessons.md").write_text(lessons)
    _input(accepted, **fields)
    _refused(mem, accepted, message)


def test_duplicate_attempt_and_both_lists(mem, accepted: Path, now: str) -> None:
    _input(accepted)
    assert mem("observe", "--input", "in.json", "-d", str(accepted)).code == 0
    _refused(mem, accepted, "Duplicate outcome: this task attempt already supplied a receipt.")
    first = json.loads((accepted / STORE).read_text())["id"]
    builder = RunBuilder(accepted, "again").accepted("task")
    builder.write()
    _input(accepted, runId="again", supersedes=[first], contradicts=[first])
    _refused(mem, accepted, "A receipt cannot be both superseded and contradicted.")
    _input(accepted, runId="again", supersedes=[first, first])
    _refused(mem, accepted, "Outcome relationships must be a unique bounded receipt-ID list.")
    _input(accepted, runId="again", supersedes=[first])
    run = mem("observe", "--input", "in.json", "-d", str(accepted), "--json")
    assert run.code == 0 and json.loads(run.out)["written"]["supersedes"] == [first]
    assert mem("outcomes", "-d", str(accepted)).out.splitlines()[0] == f"{first}: superseded"


def test_store_full_at_1000(mem, accepted: Path, now: str) -> None:
    import hashlib

    lines = []
    for i in range(1000):
        body = {
            "schemaVersion": 1,
            "kind": "accepted-outcome",
            "source": {"attemptId": f"a{i}"},
            "supersedes": [],
            "contradicts": [],
        }
        compact = json.dumps(body, separators=(",", ":"))
        lines.append(json.dumps({"id": hashlib.sha256(compact.encode()).hexdigest(), **body}, separators=(",", ":")))
    (accepted / ".bmad/memory").mkdir(parents=True, exist_ok=True)
    (accepted / STORE).write_text("".join(line + "\n" for line in lines))
    _input(accepted)
    _refused(mem, accepted, "Outcome store is full; archive it explicitly.")


def test_input_file_problems(mem, accepted: Path, now: str) -> None:
    before = tree_bytes(accepted)
    for args, message in [
        ([], "Memory path must be a normalized project-relative path."),
        (["--input", "../in.json"], "Memory path must be a normalized project-relative path."),
        (["--input", "missing.json"], f"ENOENT: no such file or directory, stat '{accepted}/missing.json'"),
        (["--input", "work"], "Memory source must be a regular file of at most 2 MiB."),
    ]:
        run = mem("observe", *args, "-d", str(accepted))
        assert (run.code, run.err) == (1, f"mem observe: {message}\n")
    for text, message in [
        ('{\n  "runId": "run",\n}', "Expected double-quoted property name in JSON at position 20"),
        ("", "Unexpected end of JSON input"),
        ("null", "Outcome input is required."),
        ('"run"', "Outcome input is required."),
        ("[]", "Run ID must be non-empty bounded text."),
    ]:
        (accepted / "bad.json").write_text(text)
        before = tree_bytes(accepted)
        run = mem("observe", "--input", "bad.json", "-d", str(accepted))
        assert (run.code, run.err) == (1, f"mem observe: {message}\n")
        assert tree_bytes(accepted) == before


def test_lock_held_by_another_process(mem_process, accepted: Path, now: str) -> None:
    _input(accepted)
    with writer_lock_held(accepted):
        before = tree_bytes(accepted)
        run = mem_process("observe", "--input", "in.json", "-d", str(accepted))
        assert run.code == 1
        assert (
            run.err
            == (
                b"mem observe: Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.\n"
            ).decode()
        )
        assert tree_bytes(accepted) == before


# ---------------------------------------------------------------- byte-compatibility with bmad-plus mem


def test_reobserving_the_fixture_inputs_gives_the_same_bytes(mem, bmad_project: Path) -> None:
    relocate(bmad_project)
    store = bmad_project / STORE
    expected = store.read_bytes()
    store.unlink()
    first = mem(
        "observe", "--input", "observation.json", "-d", str(bmad_project), env={"MEM_NOW": "2026-11-03T12:00:00.000Z"}
    )
    second = mem(
        "observe", "--input", "obs2.json", "-d", str(bmad_project), env={"MEM_NOW": "2026-11-04T12:00:00.000Z"}
    )
    assert (first.code, second.code) == (0, 0), first.err + second.err
    assert store.read_bytes() == expected
    ids = [json.loads(line)["id"] for line in expected.decode().splitlines()]
    assert first.out == f"mem observe: {ids[0]} recorded; lesson causality remains unmeasured.\n"


def test_at_the_original_place_receipts_are_byte_identical(mem, at_srv: Path) -> None:
    store = at_srv / STORE
    expected = (BMAD_PROJECT / STORE).read_bytes()
    store.unlink()
    first = mem(
        "observe", "--input", "observation.json", "-d", str(at_srv), env={"MEM_NOW": "2026-11-03T12:00:00.000Z"}
    )
    assert first.out == ("mem observe: 4227ee233b3ae43783cbc521ca8b8449bcabe95c0c174ff595c2198b13eca557 recorded; "
                         "lesson causality remains unmeasured.\n")  # fmt: skip
    second = mem("observe", "--input", "obs2.json", "-d", str(at_srv), env={"MEM_NOW": "2026-11-04T12:00:00.000Z"})
    assert second.code == 0
    assert store.read_bytes() == expected
