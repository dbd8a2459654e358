"""The ``nexus`` outcome verifier (docs/contract.md §10) on runs written by the test
builder and on the real BMAD+ Nexus runs of tests/fixtures (relocated)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mem_core.errors import MemError
from mem_core.js import jsonfmt
from mem_plugins.verifiers import nexus
from mem_plugins.verifiers.nexus import NexusVerifier, accepted_source
from tests.nexus_builder import RunBuilder, make_project, read_run, relocate, sha256_json, write_envelope

NOT_ELIGIBLE = "Outcome source is not an accepted task with current independently verified evidence."
NOT_BOUND = "Nexus acceptance does not bind the current attempt and artifacts."
CORRUPT = "Nexus: Corrupt run state; original bytes were preserved."
FOREIGN = "Nexus: Corrupt or foreign run state; original bytes were preserved."
PLAN = "Nexus: Run plan integrity mismatch."


@pytest.fixture
def built(project: Path) -> RunBuilder:
    make_project(project)
    builder = RunBuilder(project, "run").accepted("task")
    builder.write()
    return builder


def source(builder: RunBuilder, task_id: str = "task") -> dict[str, Any]:
    return accepted_source(str(builder.project), builder.file_id, task_id)


def refused(builder: RunBuilder, message: str, task_id: str = "task") -> None:
    with pytest.raises(MemError) as info:
        source(builder, task_id)
    assert info.value.message == message


def test_the_source_describes_the_accepted_attempt(built: RunBuilder) -> None:
    run = read_run(built.project, "run")
    task, plan_task = run["tasks"][0], run["plan"]["tasks"][0]
    attempt = task["attempts"][-1]
    expected = {
        "kind": "nexus",
        "runId": "run",
        "taskId": "task",
        "attemptId": attempt["id"],
        "verificationId": attempt["verification"]["id"],
        "verificationSha256": sha256_json(attempt["verification"]),
        "acceptedAt": task["acceptedAt"],
        "artifactHashes": task["integrationReceipt"]["artifactHashes"],
        "resourceHashes": plan_task["resourceHashes"],
        "scope": plan_task["scope"],
        "objective": plan_task["objective"],
        "baseline": attempt["baseline"],
    }
    got = source(built)
    assert jsonfmt.dumps(got) == jsonfmt.dumps(expected)
    assert NexusVerifier().recheck(str(built.project), got) == got
    assert NexusVerifier().describe(str(built.project), {"runId": "run", "taskId": "task"}) == got


def test_describe_checks_the_ids_first(built: RunBuilder) -> None:
    verifier = NexusVerifier()
    for request, message in [
        ({"taskId": "task"}, "Run ID must be non-empty bounded text."),
        ({"runId": " ", "taskId": "task"}, "Run ID must be non-empty bounded text."),
        ({"runId": "x" * 1001, "taskId": "task"}, "Run ID must be non-empty bounded text."),
        ({"runId": "run", "taskId": ""}, "Task ID must be non-empty bounded text."),
        ({"runId": "Run", "taskId": "task"}, "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -."),
        ({"runId": "r" * 65, "taskId": "task"}, "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -."),
        ({"runId": "run\n", "taskId": "task"}, "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -."),
        ({"runId": "run", "taskId": "other"}, NOT_ELIGIBLE),
    ]:
        with pytest.raises(MemError) as info:
            verifier.describe(str(built.project), request)
        assert info.value.message == message


Mutation = Callable[[dict[str, Any]], Any]


def _task(run: dict[str, Any]) -> dict[str, Any]:
    return run["tasks"][0]


def _attempt(run: dict[str, Any]) -> dict[str, Any]:
    return run["tasks"][0]["attempts"][-1]


def _verification(run: dict[str, Any]) -> dict[str, Any]:
    return _attempt(run)["verification"]


def _check(run: dict[str, Any]) -> dict[str, Any]:
    return _verification(run)["checks"][0]


# each mutation is applied to a valid run, which is then sealed again (planHash, sha256)
RUN_REFUSALS: list[tuple[str, Mutation, str]] = [
    ("not accepted", lambda r: _task(r).update(integration="pending"), NOT_ELIGIBLE),
    ("rejected", lambda r: _task(r).update(integration="rejected"), NOT_ELIGIBLE),
    ("no acceptedAt", lambda r: _task(r).pop("acceptedAt"), NOT_ELIGIBLE),
    ("null acceptedAt", lambda r: _task(r).update(acceptedAt=None), NOT_ELIGIBLE),
    ("no attempt", lambda r: _task(r).update(attempts=[]), NOT_ELIGIBLE),
    ("execution failed", lambda r: _attempt(r).update(execution="failed"), NOT_ELIGIBLE),
    ("verification failed", lambda r: _verification(r).update(status="failed"), NOT_ELIGIBLE),
    ("verification pending", lambda r: _verification(r).update(status="pending"), NOT_ELIGIBLE),
    ("verification of another attempt", lambda r: _verification(r).update(attemptId="other"), NOT_ELIGIBLE),
    ("cancellation requested", lambda r: _attempt(r).update(cancellation={"status": "requested"}), NOT_ELIGIBLE),
    ("environment policy", lambda r: _verification(r)["environment"].update(policy="inherit"), NOT_ELIGIBLE),
    ("environment hash", lambda r: _verification(r)["environment"]["values"].update(PATH="/tmp"), NOT_ELIGIBLE),
    ("no environment", lambda r: _verification(r).pop("environment"), NOT_ELIGIBLE),
    ("check exit code", lambda r: _check(r).update(exitCode=1), NOT_ELIGIBLE),
    ("check exit code false", lambda r: _check(r).update(exitCode=False), NOT_ELIGIBLE),
    ("check error", lambda r: _check(r).update(error="spawn ENOENT"), NOT_ELIGIBLE),
    ("check signal", lambda r: _check(r).update(signal="SIGKILL"), NOT_ELIGIBLE),
    ("check of another attempt", lambda r: _check(r).update(attemptId="x"), NOT_ELIGIBLE),
    ("check environment", lambda r: _check(r)["environment"].update(sha256="0"), NOT_ELIGIBLE),
    ("checks missing", lambda r: _verification(r).update(checks=[]), NOT_ELIGIBLE),
    ("checks out of order", lambda r: _verification(r)["checks"].append(dict(_check(r), id="second")), NOT_ELIGIBLE),
    ("scope hashes", lambda r: _verification(r)["scopeHashes"].update({"work/x": "0"}), NOT_ELIGIBLE),
    ("artifact hashes", lambda r: _verification(r).update(artifactHashes={}), NOT_ELIGIBLE),
    ("command hash", lambda r: r["plan"]["tasks"][0]["checks"][0].update(commandHash="0" * 64), NOT_ELIGIBLE),
    ("command relative", lambda r: r["plan"]["tasks"][0]["checks"][0].update(command="bin/sh"), NOT_ELIGIBLE),
    ("cwd missing", lambda r: r["plan"]["tasks"][0]["checks"][0].update(cwd="nowhere"), NOT_ELIGIBLE),
    (
        "resource hashes reordered",
        lambda r: r["plan"]["tasks"][0].update(resourceHashes={"a": "0", **r["plan"]["tasks"][0]["resourceHashes"]}),
        NOT_ELIGIBLE,
    ),
    ("unknown dependency", lambda r: r["plan"]["tasks"][0].update(dependsOn=["ghost"]), NOT_ELIGIBLE),
    ("self dependency", lambda r: r["plan"]["tasks"][0].update(dependsOn=["task"]), NOT_ELIGIBLE),
    ("receipt of another attempt", lambda r: _task(r)["integrationReceipt"].update(attemptId="other"), NOT_BOUND),
    ("receipt of other artifacts", lambda r: _task(r)["integrationReceipt"].update(artifactHashes={}), NOT_BOUND),
    (
        "receipt key order",
        lambda r: _task(r)["integrationReceipt"].update(
            artifactHashes={"z": "0", **_task(r)["integrationReceipt"]["artifactHashes"]}
        ),
        NOT_BOUND,
    ),
    ("no receipt", lambda r: _task(r).pop("integrationReceipt"), NOT_BOUND),
    ("unknown integration", lambda r: _task(r).update(integration="merged"), "Nexus: Invalid task lifecycle record."),
    ("attempts not a list", lambda r: _task(r).update(attempts={}), "Nexus: Invalid task lifecycle record."),
    (
        "attempt of another task",
        lambda r: _attempt(r).update(taskId="other"),
        "Nexus: Invalid attempt lifecycle record.",
    ),
    ("attempt of another run", lambda r: _attempt(r).update(runId="other"), "Nexus: Invalid attempt lifecycle record."),
    (
        "rounds negative",
        lambda r: _attempt(r).update(verificationRounds=-1),
        "Nexus: Invalid attempt lifecycle record.",
    ),
    (
        "rounds fractional",
        lambda r: _attempt(r).update(verificationRounds=1.5),
        "Nexus: Invalid attempt lifecycle record.",
    ),
    ("unknown execution", lambda r: _attempt(r).update(execution="done"), "Nexus: Invalid attempt lifecycle record."),
    (
        "attempt without verification",
        lambda r: _attempt(r).pop("verification"),
        "Cannot read properties of undefined (reading 'status')",
    ),
    (
        "attempt without backend",
        lambda r: _attempt(r).pop("backend"),
        "Cannot read properties of undefined (reading 'kind')",
    ),
    (
        "attempt without cancellation",
        lambda r: _attempt(r).pop("cancellation"),
        "Cannot read properties of undefined (reading 'status')",
    ),
    ("task ids differ from plan", lambda r: r["plan"]["tasks"][0].update(id="renamed"), PLAN),
    ("plan without tasks", lambda r: r["plan"].pop("tasks"), "Cannot read properties of undefined (reading 'map')"),
    ("plan tasks not a list", lambda r: r["plan"].update(tasks="x"), "run.plan.tasks.map is not a function"),
    ("schemaVersion", lambda r: r.update(schemaVersion=2), FOREIGN),
    ("other project", lambda r: r.update(project="/srv/example-project"), FOREIGN),
    ("other id", lambda r: r.update(id="other"), FOREIGN),
    ("sequence fractional", lambda r: r.update(sequence=1.5), FOREIGN),
    ("sequence boolean", lambda r: r.update(sequence=True), FOREIGN),
    ("tasks not a list", lambda r: r.update(tasks={}), FOREIGN),
]


@pytest.mark.parametrize(
    ("mutation", "message"), [(m, msg) for _, m, msg in RUN_REFUSALS], ids=[n for n, _, _ in RUN_REFUSALS]
)
def test_each_qualification_and_load_check(built: RunBuilder, mutation: Mutation, message: str) -> None:
    mutation(built.run)
    built.write()
    refused(built, message)


def _envelope(builder: RunBuilder) -> Path:
    return builder.project / ".bmad-plus/nexus/runs/run.json"


def test_envelope_checks(built: RunBuilder) -> None:
    path = _envelope(built)
    good = path.read_text()
    for text, message in [
        ("{", CORRUPT),
        ("", CORRUPT),
        ("null", "Cannot read properties of null (reading 'schemaVersion')"),
        ("[]", FOREIGN),
        ('{"schemaVersion":1,"sha256":"x","run":false}', FOREIGN),
        (good.replace('"schemaVersion": 1,\n  "sha256"', '"schemaVersion": 2,\n  "sha256"', 1), FOREIGN),
        (good.replace('"sequence": ', '"sequence": 1', 1), FOREIGN),  # the envelope hash no longer matches
    ]:
        path.write_text(text)
        refused(built, message)
    envelope = json.loads(good)
    envelope["run"]["plan"]["maxParallel"] = 2  # planHash is stale, the envelope hash is not
    envelope["sha256"] = sha256_json(envelope["run"])
    path.write_text(jsonfmt.dumps(envelope, 2))
    refused(built, PLAN)
    envelope["run"]["plan"] = None
    envelope["run"]["planHash"] = sha256_json(None)
    envelope["sha256"] = sha256_json(envelope["run"])
    path.write_text(jsonfmt.dumps(envelope, 2))
    refused(built, "Cannot read properties of null (reading 'tasks')")
    path.unlink()
    refused(built, f"ENOENT: no such file or directory, stat '{path}'")


def test_run_files_over_32_mib_are_refused(built: RunBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nexus, "MAX_RUN_BYTES", _envelope(built).stat().st_size - 1)
    refused(built, "Nexus: Run state exceeds the size limit.")


def test_run_files_are_read_without_following_links(built: RunBuilder) -> None:
    path = _envelope(built)
    moved = built.project / "elsewhere.json"
    path.rename(moved)
    path.symlink_to(moved)
    refused(built, f"Adapter path contains a symlink or junction: {path}")


@pytest.mark.parametrize("lock", ["writer.lock", "recovery.lock"])
def test_nexus_locks_block_observation(built: RunBuilder, lock: str) -> None:
    (built.project / ".bmad-plus/nexus" / lock).write_text("{}")
    refused(built, "Nexus state is being written or recovered; retry observation after its owner finishes.")


def test_the_project_must_be_the_runs_real_path(built: RunBuilder, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(built.project)
    with pytest.raises(MemError) as info:
        accepted_source(str(link), "run", "task")
    assert info.value.message == f"Adapter path contains a symlink or junction: {link}"


# ---------------------------------------------------------------- current evidence


def _edit(path: Path, text: str = "changed") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


STALE_CHANGES: list[tuple[str, Callable[[Path], Any]]] = [
    ("resource edited", lambda p: _edit(p / "checks/accepted.sh")),
    ("resource removed", lambda p: (p / "checks/accepted.sh").unlink()),
    ("artifact edited", lambda p: _edit(p / "work/result.json", '{"verified":false}')),
    ("artifact removed", lambda p: (p / "work/result.json").unlink()),
    ("file added in scope", lambda p: _edit(p / "work/new.txt")),
    ("file added in a sub-folder", lambda p: _edit(p / "work/deep/er/new.txt")),
    ("scope removed", lambda p: shutil.rmtree(p / "work")),
    ("symlink in scope", lambda p: (p / "work/link").symlink_to(p / "work/result.json")),
    ("fifo in scope", lambda p: os.mkfifo(p / "work/fifo")),
    ("nonportable name in scope", lambda p: _edit(p / "work/CON.txt")),
    ("trailing dot in scope", lambda p: _edit(p / "work/name.")),
    ("check cwd replaced by a file", lambda p: None),
]


@pytest.mark.parametrize("change", [c for _, c in STALE_CHANGES], ids=[n for n, _ in STALE_CHANGES])
def test_evidence_must_still_be_current(built: RunBuilder, change: Callable[[Path], Any]) -> None:
    assert source(built)["taskId"] == "task"
    change(built.project)
    if change is STALE_CHANGES[-1][1]:
        built.run["plan"]["tasks"][0]["checks"][0]["cwd"] = "checks/accepted.sh"
        built.write()
    refused(built, NOT_ELIGIBLE)


def test_files_outside_the_scope_do_not_matter(built: RunBuilder) -> None:
    before = source(built)
    _edit(built.project / "README.md")
    _edit(built.project / "workshop/x.txt")  # a sibling that only shares the prefix
    assert source(built) == before


def test_the_check_binary_must_still_hash_the_same(project: Path, tmp_path: Path) -> None:
    make_project(project)
    binary = tmp_path / "bin" / "checker"
    binary.parent.mkdir()
    shutil.copy(os.path.realpath("/bin/sh"), binary)
    builder = RunBuilder(project, "run").accepted(
        "task", checks=[{"id": "artifact", "command": str(binary), "args": ["checks/accepted.sh"]}]
    )
    builder.write()
    assert source(builder)
    binary.write_bytes(binary.read_bytes() + b"\0")
    refused(builder, NOT_ELIGIBLE)
    binary.unlink()
    refused(builder, NOT_ELIGIBLE)


def test_the_scope_snapshot_has_a_file_limit(built: RunBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(3):
        _edit(built.project / f"work/f{i}.txt", str(i))
    rebuilt = RunBuilder(built.project, "run").accepted("task")
    rebuilt.write()
    monkeypatch.setattr(nexus, "MAX_SCOPE_FILES", 4)  # 4 files: the limit is "at most"
    assert source(rebuilt)
    monkeypatch.setattr(nexus, "MAX_SCOPE_FILES", 3)
    refused(rebuilt, NOT_ELIGIBLE)


def test_scope_order_is_javascripts(project: Path) -> None:
    make_project(project)
    for name in ["ｚ.txt", "😀.txt", "Z.txt", "a/b.txt", "10.txt", "9.txt"]:
        _edit(project / "work" / name, name)
    builder = RunBuilder(project, "run").accepted("task")
    builder.write()
    scope = list(builder.last_attempt("task")["verification"]["scopeHashes"])
    assert scope.index("work/😀.txt") < scope.index("work/ｚ.txt")  # UTF-16 order, not code points
    assert source(builder)


def test_a_file_can_be_a_scope_entry(project: Path) -> None:
    make_project(project)
    _edit(project / "docs/spec.md", "spec")
    builder = RunBuilder(project, "run").accepted("task", scope=["work", "docs/spec.md"])
    builder.write()
    assert source(builder)["scope"] == ["work", "docs/spec.md"]
    _edit(project / "docs/spec.md", "edited")
    refused(builder, NOT_ELIGIBLE)


def test_dependencies_must_qualify_too(project: Path) -> None:
    make_project(project)
    _edit(project / "lib/base.py", "x")
    builder = RunBuilder(project, "deps").accepted("base", scope=["lib"], artifacts=["lib/base.py"])
    builder.accepted("top", depends_on=["base"])
    builder.write()
    assert source(builder, "top")["taskId"] == "top"
    _edit(project / "lib/base.py", "y")  # the dependency's evidence is stale
    refused(builder, NOT_ELIGIBLE, "top")
    _edit(project / "lib/base.py", "x")
    builder.state("base")["integration"] = "rejected"
    builder.write()
    refused(builder, NOT_ELIGIBLE, "top")
    builder.state("base")["integration"] = "accepted"
    builder.definition("base")["dependsOn"] = ["top"]  # a cycle
    builder.write()
    refused(builder, NOT_ELIGIBLE, "top")


def test_the_lifecycle_of_every_task_is_checked(project: Path) -> None:
    make_project(project)
    _edit(project / "lib/x.py", "x")
    builder = RunBuilder(project, "run").accepted("task")
    builder.accepted("other", scope=["lib"], artifacts=["lib/x.py"])
    builder.last_attempt("other").pop("backend")
    builder.write()
    refused(builder, "Cannot read properties of undefined (reading 'kind')")


# ---------------------------------------------------------------- the real Nexus runs


@pytest.fixture
def relocated(bmad_project: Path) -> Path:
    relocate(bmad_project)
    return bmad_project


@pytest.mark.parametrize("run_id", ["one", "two", "three", "four", "five"])
def test_fixture_runs_made_by_nexus_verify(relocated: Path, run_id: str) -> None:
    got = accepted_source(str(relocated), run_id, "task")
    run = read_run(relocated, run_id)
    assert got["attemptId"] == run["tasks"][0]["attempts"][-1]["id"]
    assert got["baseline"]["repository"] == os.path.realpath(relocated)
    assert got["scope"] == ["work"] and got["artifactHashes"] == {
        "work/result.json": hashlib.sha256(b'{"verified":true}').hexdigest()
    }


@pytest.mark.parametrize("run_id", ["unaccepted", "failed"])
def test_fixture_runs_that_are_not_accepted_are_refused(relocated: Path, run_id: str) -> None:
    with pytest.raises(MemError) as info:
        accepted_source(str(relocated), run_id, "task")
    assert info.value.message == NOT_ELIGIBLE


def test_fixture_receipts_name_their_current_source(relocated: Path) -> None:
    lines = (relocated / ".bmad/memory/outcomes.ndjson").read_text().splitlines()
    for line in lines:
        stored = jsonfmt.loads(line)["source"]
        assert jsonfmt.dumps(NexusVerifier().recheck(str(relocated), stored)) == jsonfmt.dumps(stored)


def test_unrelocated_fixture_runs_are_foreign(bmad_project: Path) -> None:
    if os.path.realpath(bmad_project) == "/srv/example-project":  # pragma: no cover
        pytest.skip("the copy is where the runs were made")
    with pytest.raises(MemError) as info:
        accepted_source(str(bmad_project), "one", "task")
    assert info.value.message == FOREIGN


def test_relocation_rewrites_and_reseals(relocated: Path) -> None:
    envelope = jsonfmt.loads((relocated / ".bmad-plus/nexus/runs/one.json").read_text())
    run = envelope["run"]
    assert run["project"] == os.path.realpath(relocated)
    assert envelope["sha256"] == sha256_json(run) and run["planHash"] == sha256_json(run["plan"])
    assert "/srv/example-project" not in (relocated / ".bmad-plus/nexus/runs/one.json").read_text()
    write_envelope(relocated, run)  # sealing again is idempotent
    assert jsonfmt.loads((relocated / ".bmad-plus/nexus/runs/one.json").read_text()) == envelope
