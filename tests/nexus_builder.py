"""Build BMAD+ Nexus run files for tests, and relocate the real ones.

Two things the evidence tests need:

* :class:`RunBuilder` writes a valid ``.bmad-plus/nexus/runs/<runId>.json`` from
  a spec (project path, tasks, attempts, checks, hashes), shaped exactly like
  the runs BMAD+ Nexus writes (see ``tests/fixtures``): plan with
  ``resourceHashes`` and check ``commandHash``, the attempt's verification with
  its environment, scope/artifact hashes and check receipts, the integration
  receipt, ``planHash`` and the envelope ``sha256``. Every hash is computed
  here, independently of ``mem``'s verifier.
* :func:`relocate` rewrites a copy of the reference fixture project to its new
  path: ``run.project`` and every string under the old path, the check command
  if ``/usr/bin/dash`` differs here, then ``planHash``, the envelope hash and,
  in ``outcomes.ndjson``, each receipt's ``verificationSha256`` and ``id``.

Hashes are over ``JSON.stringify`` of the parsed run, keys in file order:
:mod:`mem_core.js.jsonfmt` gives exactly that.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mem_core.js import jsonfmt

FIXTURE_ROOT = "/srv/example-project"
FIXTURE_COMMAND = "/usr/bin/dash"
FIXTURE_COMMAND_HASH = "f5adb8bf0100ed0f8c7782ca5f92814e9229525a4b4e0d401cf3bea09ac960a6"
RUNS = ".bmad-plus/nexus/runs"
T0 = "2026-09-11T12:00:00.000Z"

#: the check environment Nexus records (policy minimal-local-v1)
ENV_VALUES = {
    "LANG": "C",
    "LC_ALL": "C",
    "NODE_V8_COVERAGE": "",
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
    "PYTHONSAFEPATH": "1",
    "TZ": "UTC",
}


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_json(value: Any) -> str:
    """sha256 of ``JSON.stringify(value)``."""
    return sha256_text(jsonfmt.dumps(value))


def sha256_file(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def environment() -> dict[str, Any]:
    return {"policy": "minimal-local-v1", "values": dict(ENV_VALUES), "sha256": sha256_json(ENV_VALUES)}


def default_command() -> str:
    """A real executable here (``/bin/sh`` resolved), as Nexus stores it."""
    return os.path.realpath("/bin/sh")


def js_sorted(values: Iterable[str]) -> list[str]:
    """Sorted as JavaScript's ``Array.prototype.sort`` sorts strings (UTF-16 code units)."""
    return sorted(values, key=lambda s: s.encode("utf-16-be", "surrogatepass"))


def files_snapshot(project: Path, files: Iterable[str]) -> dict[str, str]:
    """``{path: sha256}`` of the given files, sorted as Nexus sorts them."""
    return {f: sha256_file(project / f) for f in js_sorted(set(files))}


def scope_snapshot(project: Path, scope: Iterable[str]) -> dict[str, str]:
    """``{path: sha256}`` of every regular file under the scope entries."""
    found: list[str] = []
    for entry in scope:
        base = project / entry
        if base.is_file():
            found.append(entry)
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel = Path(dirpath).relative_to(project).as_posix()
            found.extend(f"{rel}/{name}" for name in filenames)
    return files_snapshot(project, found)


def write_envelope(project: Path, run: dict[str, Any], file_id: str | None = None) -> Path:
    """Seal ``run`` (``planHash``, envelope ``sha256``) and write it as Nexus
    does: ``JSON.stringify(envelope, null, 2) + "\\n"``, to
    ``.bmad-plus/nexus/runs/<file_id or run id>.json``."""
    run["planHash"] = sha256_json(run["plan"])
    envelope = {"schemaVersion": 1, "sha256": sha256_json(run), "run": run}
    path = project / RUNS / f"{file_id or run['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(jsonfmt.dumps(envelope, 2) + "\n", encoding="utf-8")
    return path


def read_run(project: Path, run_id: str) -> dict[str, Any]:
    """The ``run`` of a run file (keys in file order)."""
    return jsonfmt.loads((project / RUNS / f"{run_id}.json").read_text(encoding="utf-8"))["run"]


def attempt_id(run_id: str, task_id: str, n: int) -> str:
    digest = hashlib.sha256(f"{run_id}/{task_id}/{n}".encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


class RunBuilder:
    """A Nexus run under construction, for one project.

    ``task()`` declares a plan task (hashing its resources and check binaries
    now); ``attempt()`` records a completed, verified attempt of it (hashing
    the scope and artifacts now); ``accept()`` accepts the last attempt;
    ``write()`` seals and writes the run. ``run`` is the dict being built, to
    tamper with before ``write()``.
    """

    def __init__(self, project: Path | str, run_id: str = "run") -> None:
        self.project = Path(project)
        self.root = os.path.realpath(self.project)
        self.file_id = run_id
        self.run: dict[str, Any] = {
            "schemaVersion": 1,
            "id": run_id,
            "project": self.root,
            "frameworkVersion": "0.18.0",
            "createdAt": T0,
            "updatedAt": T0,
            "sequence": 0,
            "planHash": "",
            "plan": {"id": run_id, "maxParallel": 1, "config": {}, "tasks": []},
            "tasks": [],
        }

    @property
    def run_id(self) -> str:
        return self.run["id"]

    def definition(self, task_id: str) -> dict[str, Any]:
        return next(t for t in self.run["plan"]["tasks"] if t["id"] == task_id)

    def state(self, task_id: str) -> dict[str, Any]:
        return next(t for t in self.run["tasks"] if t["id"] == task_id)

    def last_attempt(self, task_id: str) -> dict[str, Any]:
        return self.state(task_id)["attempts"][-1]

    def task(
        self,
        task_id: str = "task",
        *,
        scope: list[str] | None = None,
        artifacts: list[str] | None = None,
        resources: list[str] | None = None,
        checks: list[dict[str, Any]] | None = None,
        depends_on: list[str] | None = None,
        objective: str = "Verify the controlled memory corpus artifact",
    ) -> RunBuilder:
        """Declare a plan task. A check is ``{"id", "command", "args", "cwd"}``
        (defaults: ``/bin/sh`` resolved, ``[]``, ``"."``)."""
        resources = list(resources if resources is not None else ["checks/accepted.sh"])
        checks = checks if checks is not None else [{"id": "artifact", "args": resources[:1]}]
        planned = []
        for check in checks:
            command = check.get("command", default_command())
            planned.append(
                {
                    "id": check["id"],
                    "command": command,
                    "commandHash": sha256_file(os.path.realpath(command)),
                    "args": list(check.get("args", [])),
                    "cwd": check.get("cwd", "."),
                    "timeoutMs": 30000,
                    "resources": [],
                }
            )
        checks_list = [f"Check {c['id']} passes on the current artifacts." for c in planned]
        self.run["plan"]["tasks"].append(
            {
                "id": task_id,
                "objective": objective,
                "dependsOn": list(depends_on or []),
                "scope": list(scope if scope is not None else ["work"]),
                "artifacts": list(artifacts if artifacts is not None else ["work/result.json"]),
                "resources": resources,
                "checks": planned,
                "maxAttempts": 2,
                "idempotent": True,
                "deadlineMs": 3600000,
                "acceptance": checks_list,
                "authorizations": [],
                "resourceHashes": files_snapshot(self.project, resources),
            }
        )
        self.run["tasks"].append({"id": task_id, "integration": "pending", "attempts": []})
        self.run["sequence"] += 1
        return self

    def attempt(self, task_id: str = "task", *, status: str = "passed", exit_code: int = 0) -> RunBuilder:
        """Record a completed attempt whose verification ran every planned check
        (``exit_code`` for each; ``status`` of the verification)."""
        definition = self.definition(task_id)
        state = self.state(task_id)
        n = len(state["attempts"]) + 1
        aid = attempt_id(self.run_id, task_id, n)
        vid = attempt_id(self.run_id, task_id + "/verification", n)
        env = environment()
        scope_hashes = scope_snapshot(self.project, definition["scope"])
        artifact_hashes = files_snapshot(self.project, definition["artifacts"])
        checks = []
        for check in definition["checks"]:
            checks.append(
                {
                    "id": check["id"],
                    "attemptId": aid,
                    "command": check["command"],
                    "commandHash": check["commandHash"],
                    "args": list(check["args"]),
                    "cwd": check["cwd"],
                    "timeoutMs": check["timeoutMs"],
                    "environment": copy.deepcopy(env),
                    "startedAt": T0,
                    "endedAt": T0,
                    "exitCode": exit_code,
                    "signal": None,
                    "error": None,
                    "timedOut": False,
                    "stdout": "fixture artifact accepted\n",
                    "stderr": "",
                    "outputTruncated": False,
                    "outputHash": sha256_text("fixture artifact accepted\n\0"),
                    "evidenceClass": "runtime-command",
                    "termination": None,
                    "artifactHashes": dict(artifact_hashes),
                    "scopeSnapshotHash": sha256_json(scope_hashes),
                }
            )
        state["attempts"].append(
            {
                "id": aid,
                "runId": self.run_id,
                "taskId": task_id,
                "parentAttemptId": state["attempts"][-1]["id"] if state["attempts"] else None,
                "backend": {
                    "kind": "host",
                    "id": "memory-fixture",
                    "sessionId": self.run_id,
                    "capabilities": {"launch": False, "terminate": False, "inspect": "host-observation"},
                },
                "execution": "completed",
                "verification": {
                    "id": vid,
                    "attemptId": aid,
                    "status": status,
                    "startedAt": T0,
                    "frameworkVersion": "0.18.0",
                    "environment": env,
                    "owner": {"pid": 19769, "hostname": "vm"},
                    "revision": None,
                    "scopeHashes": scope_hashes,
                    "artifactHashes": artifact_hashes,
                    "resourceHashes": dict(definition["resourceHashes"]),
                    "checks": checks,
                    "problem": None,
                    "endedAt": T0,
                },
                "verificationRounds": 1,
                "verificationHistory": [],
                "reconciliations": [],
                "cancellation": {"status": "none"},
                "startedAt": T0,
                "observedAt": T0,
                "endedAt": T0,
                "deadline": "2026-09-11T13:00:00.000Z",
                "baseline": {
                    "repository": self.root,
                    "revision": None,
                    "framework": {
                        "version": "0.18.0",
                        "runtimeHash": "f6c185f2f113835fff61500d83a8afa0170a4e13a99479d27c4414618f6f4b2d",
                        "installManifestHash": None,
                        "nodeVersion": "v20.20.2",
                        "platform": "linux",
                        "arch": "x64",
                    },
                    "scopeHashes": dict(scope_hashes),
                    "artifactHashes": dict(artifact_hashes),
                    "resourceHashes": dict(definition["resourceHashes"]),
                    "config": {},
                },
                "authorizations": [],
                "observations": [],
                "uncheckedScope": "External effects, undeclared dependencies and files outside the declared "
                "scope are not sandboxed or independently observed.",
                "resultHashes": dict(scope_hashes),
            }
        )
        if status != "passed":
            state["integration"] = "rejected"
        self.run["sequence"] += 3  # start, worker result, verification
        return self

    def accept(self, task_id: str = "task") -> RunBuilder:
        """Accept the last attempt (integration receipt bound to it)."""
        state = self.state(task_id)
        attempt = state["attempts"][-1]
        state["integration"] = "accepted"
        state["acceptedAt"] = T0
        state["integrationReceipt"] = {
            "attemptId": attempt["id"],
            "artifactHashes": dict(attempt["verification"]["artifactHashes"]),
            "action": "accept-current-workspace",
            "gitOperation": None,
        }
        self.run["sequence"] += 1
        return self

    def accepted(self, task_id: str = "task", **task: Any) -> RunBuilder:
        """``task()``, ``attempt()`` and ``accept()`` in one call."""
        return self.task(task_id, **task).attempt(task_id).accept(task_id)

    def write(self) -> Path:
        """Seal and write the run to ``.bmad-plus/nexus/runs/<runId>.json``."""
        return write_envelope(self.project, self.run, self.file_id)


def make_project(path: Path, *, lessons: str | None = None) -> Path:
    """A project with an artifact, a protected check script and a lessons file."""
    (path / "work").mkdir(parents=True, exist_ok=True)
    (path / "work" / "result.json").write_text('{"verified":true}', encoding="utf-8")
    (path / "checks").mkdir(exist_ok=True)
    (path / "checks" / "accepted.sh").write_text("grep -q true work/result.json\n", encoding="utf-8")
    (path / ".agents" / "memory").mkdir(parents=True, exist_ok=True)
    (path / ".agents" / "memory" / "lessons.md").write_text(
        lessons
        if lessons is not None
        else "# Lessons\n\n### Cache contract\nPreserve false and zero cache values.\n\n"
        "### Cache alternative\nDiscard zero cache values.\n",
        encoding="utf-8",
    )
    return path


# --------------------------------------------------------------------------
# relocating the reference fixtures


def _rewrite_paths(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        if value == old or value.startswith(old + "/"):
            return new + value[len(old) :]
        return value
    if isinstance(value, dict):
        return {k: _rewrite_paths(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite_paths(v, old, new) for v in value]
    return value


def _rehash_commands(run: dict[str, Any]) -> None:
    """Point checks at a real binary here when ``/usr/bin/dash`` is absent or
    differs from the one the fixtures were made with."""
    command = FIXTURE_COMMAND if os.path.isfile(FIXTURE_COMMAND) else default_command()
    digest = sha256_file(os.path.realpath(command))
    if command == FIXTURE_COMMAND and digest == FIXTURE_COMMAND_HASH:
        return
    checks = [c for t in run["plan"]["tasks"] for c in t["checks"]]
    for task in run["tasks"]:
        for attempt in task["attempts"]:
            checks.extend(attempt["verification"].get("checks", []))
    for check in checks:
        if check.get("command") == FIXTURE_COMMAND:
            check["command"] = command
            check["commandHash"] = digest


def relocate(project: Path | str, old_root: str = FIXTURE_ROOT) -> dict[str, str]:
    """Rewrite a copy of the fixture project for its new place, in place.
    Returns ``{old receipt id: new receipt id}``."""
    project = Path(project)
    new_root = os.path.realpath(project)
    verifications: dict[tuple[str, str, str], str] = {}
    for path in sorted((project / RUNS).glob("*.json")):
        envelope = jsonfmt.loads(path.read_text(encoding="utf-8"))
        run = _rewrite_paths(envelope["run"], old_root, new_root)
        _rehash_commands(run)
        for task in run["tasks"]:
            for attempt in task["attempts"]:
                verifications[(run["id"], task["id"], attempt["id"])] = sha256_json(attempt["verification"])
        write_envelope(project, run)
    ids: dict[str, str] = {}
    outcomes = project / ".bmad" / "memory" / "outcomes.ndjson"
    if outcomes.exists():
        lines = []
        for line in outcomes.read_text(encoding="utf-8").splitlines():
            record = jsonfmt.loads(line)
            record = _rewrite_paths(record, old_root, new_root)
            source = record["source"]
            key = (source["runId"], source["taskId"], source["attemptId"])
            if key in verifications:
                source["verificationSha256"] = verifications[key]
            for relation in ("supersedes", "contradicts"):
                record[relation] = sorted(ids.get(r, r) for r in record[relation])
            body = {k: v for k, v in record.items() if k != "id"}
            new_id = sha256_json(body)
            ids[record["id"]] = new_id
            lines.append(jsonfmt.dumps({"id": new_id, **body}))
        outcomes.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return ids


def seal_receipt(body: dict[str, Any]) -> dict[str, Any]:
    """A receipt with its ``id`` (for hand-made stores)."""
    return {"id": sha256_json(body), **body}
