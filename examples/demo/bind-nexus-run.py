"""Write the demo's Nexus run, bound to where this directory is.

A BMAD+ Nexus run names the real path of its project and the real binary (and
sha256) of each check's command, so a run file made on one machine is not
valid in another clone. This script records, as Nexus would after running it,
one accepted and independently verified task of the demo (``cache-contract``:
the cache code and its tests under ``src/cache``, checked by
``checks/cache.sh``) into ``.bmad-plus/nexus/runs/demo.json``, with the hashes
of the files as they are now. Run it again after changing ``src/cache`` to
record a new verification (the old receipts then become stale, which is the
point of ``mem outcomes``).

Standard library only; ``python3 bind-nexus-run.py [PROJECT]`` (default: the
directory of this script). The file layout is BMAD+ Nexus 0.18's
(docs/contract.md §10); hashes are over JavaScript's ``JSON.stringify`` of the
values, which for these values is ``json.dumps`` with compact separators.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

RUN_ID = "demo"
TASK_ID = "cache-contract"
SCOPE = ["src/cache"]
ARTIFACTS = ["src/cache/core.py"]
RESOURCES = ["checks/cache.sh"]
AT = "2026-10-30T15:00:00.000Z"
ENVIRONMENT = {
    "LANG": "C",
    "LC_ALL": "C",
    "NODE_V8_COVERAGE": "",
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
    "PYTHONSAFEPATH": "1",
    "TZ": "UTC",
}
OUTPUT = "2 passed\n"


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sha256_json(value: object) -> str:
    return hashlib.sha256(compact(value).encode("utf-8")).hexdigest()


def sha256_file(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def utf16_order(paths: set[str]) -> list[str]:
    """Sorted as JavaScript sorts strings."""
    return sorted(paths, key=lambda s: s.encode("utf-16-be", "surrogatepass"))


def hashes(project: str, paths: set[str]) -> dict[str, str]:
    return {path: sha256_file(os.path.join(project, path)) for path in utf16_order(paths)}


def scope_hashes(project: str) -> dict[str, str]:
    """Every regular file under the scope, as Nexus hashes it."""
    found = set()
    for entry in SCOPE:
        for dirpath, dirnames, filenames in os.walk(os.path.join(project, entry)):
            dirnames.sort()
            rel = os.path.relpath(dirpath, project).replace(os.sep, "/")
            found.update(f"{rel}/{name}" for name in filenames)
    return hashes(project, found)


def uuid_like(text: str) -> str:
    d = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:32]}"


def build(project: str) -> dict:
    root = os.path.realpath(project)
    command = os.path.realpath("/bin/sh")
    resources = hashes(project, set(RESOURCES))
    scope = scope_hashes(project)
    artifacts = hashes(project, set(ARTIFACTS))
    check = {
        "id": "cache-tests",
        "command": command,
        "commandHash": sha256_file(command),
        "args": list(RESOURCES),
        "cwd": ".",
        "timeoutMs": 30000,
        "resources": [],
    }
    environment = {"policy": "minimal-local-v1", "values": dict(ENVIRONMENT), "sha256": sha256_json(ENVIRONMENT)}
    attempt_id = uuid_like(f"{RUN_ID}/{TASK_ID}/1")
    receipt = {
        "id": check["id"],
        "attemptId": attempt_id,
        **{key: check[key] for key in ("command", "commandHash", "args", "cwd", "timeoutMs")},
        "environment": environment,
        "startedAt": AT,
        "endedAt": AT,
        "exitCode": 0,
        "signal": None,
        "error": None,
        "timedOut": False,
        "stdout": OUTPUT,
        "stderr": "",
        "outputTruncated": False,
        "outputHash": hashlib.sha256((OUTPUT + "\0").encode("utf-8")).hexdigest(),
        "evidenceClass": "runtime-command",
        "termination": None,
        "artifactHashes": dict(artifacts),
        "scopeSnapshotHash": sha256_json(scope),
    }
    baseline = {
        "repository": root,
        "revision": None,
        "framework": {
            "version": "0.18.0",
            "runtimeHash": None,
            "installManifestHash": None,
            "nodeVersion": None,
            "platform": sys.platform,
            "arch": os.uname().machine if hasattr(os, "uname") else None,
        },
        "scopeHashes": dict(scope),
        "artifactHashes": dict(artifacts),
        "resourceHashes": dict(resources),
        "config": {},
    }
    attempt = {
        "id": attempt_id,
        "runId": RUN_ID,
        "taskId": TASK_ID,
        "parentAttemptId": None,
        "backend": {
            "kind": "host",
            "id": "demo",
            "sessionId": RUN_ID,
            "capabilities": {"launch": False, "terminate": False, "inspect": "host-observation"},
        },
        "execution": "completed",
        "verification": {
            "id": uuid_like(f"{RUN_ID}/{TASK_ID}/verification/1"),
            "attemptId": attempt_id,
            "status": "passed",
            "startedAt": AT,
            "frameworkVersion": "0.18.0",
            "environment": environment,
            "owner": {"pid": 1, "hostname": "demo"},
            "revision": None,
            "scopeHashes": scope,
            "artifactHashes": artifacts,
            "resourceHashes": dict(resources),
            "checks": [receipt],
            "problem": None,
            "endedAt": AT,
        },
        "verificationRounds": 1,
        "verificationHistory": [],
        "reconciliations": [],
        "cancellation": {"status": "none"},
        "startedAt": AT,
        "observedAt": AT,
        "endedAt": AT,
        "deadline": "2026-10-30T16:00:00.000Z",
        "baseline": baseline,
        "authorizations": [],
        "observations": [],
        "uncheckedScope": "External effects, undeclared dependencies and files outside the declared "
        "scope are not sandboxed or independently observed.",
        "resultHashes": dict(scope),
    }
    plan = {
        "id": RUN_ID,
        "maxParallel": 1,
        "config": {},
        "tasks": [
            {
                "id": TASK_ID,
                "objective": "Keep false and zero cache values (the cache contract)",
                "dependsOn": [],
                "scope": list(SCOPE),
                "artifacts": list(ARTIFACTS),
                "resources": list(RESOURCES),
                "checks": [check],
                "maxAttempts": 2,
                "idempotent": True,
                "deadlineMs": 3600000,
                "acceptance": ["Check cache-tests passes on the current artifacts."],
                "authorizations": [],
                "resourceHashes": resources,
            }
        ],
    }
    run = {
        "schemaVersion": 1,
        "id": RUN_ID,
        "project": root,
        "frameworkVersion": "0.18.0",
        "createdAt": AT,
        "updatedAt": AT,
        "sequence": 6,
        "planHash": sha256_json(plan),
        "plan": plan,
        "tasks": [
            {
                "id": TASK_ID,
                "integration": "accepted",
                "attempts": [attempt],
                "acceptedAt": AT,
                "integrationReceipt": {
                    "attemptId": attempt_id,
                    "artifactHashes": dict(artifacts),
                    "action": "accept-current-workspace",
                    "gitOperation": None,
                },
            }
        ],
    }
    return {"schemaVersion": 1, "sha256": sha256_json(run), "run": run}


def main(argv: list[str]) -> int:
    project = argv[0] if argv else os.path.dirname(os.path.abspath(__file__))
    envelope = build(project)
    runs = os.path.join(project, ".bmad-plus", "nexus", "runs")
    os.makedirs(runs, exist_ok=True)
    path = os.path.join(runs, f"{RUN_ID}.json")
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n")
    os.replace(temporary, path)
    print(f"bound .bmad-plus/nexus/runs/{RUN_ID}.json: run {RUN_ID}, task {TASK_ID}, accepted and verified here")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
