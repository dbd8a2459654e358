"""Outcome verifier ``nexus`` (the default): BMAD+ Nexus run state
(docs/contract.md §10).

A Nexus run is ``.bmad-plus/nexus/runs/<runId>.json``, written by BMAD+ Nexus:
``{"schemaVersion": 1, "sha256": <sha256 of JSON.stringify(run)>, "run": {…}}``.
The verifier reads it read-only, exactly as Nexus itself inspects a run, and
confirms that a task is

* **accepted** — ``integration == "accepted"`` with ``acceptedAt``, and an
  integration receipt bound to the last attempt and its verified artifacts;
* **completed** and **independently verified** — the last attempt completed and
  its verification passed every planned check, in order, under the recorded
  ``minimal-local-v1`` environment, without cancellation;
* **current** — protected resources, check binaries, the scope snapshot and the
  artifacts still hash as verified, and every dependency qualifies too.

Messages and refusal order are those of ``bmad-plus mem``. Everything inside
the freshness checks only decides eligibility (Nexus reports it as the
observation's ``evidenceEligible``), so a stale task gets the one message
``Outcome source is not an accepted task with current independently verified
evidence.``
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import re
import stat
from collections.abc import Iterable
from typing import TYPE_CHECKING

from mem_core.plugin import (
    UNDEFINED,
    JSTypeError,
    MemError,
    OutcomeVerifier,
    check_components,
    digest,
    is_normalized_relative,
    js_is_integer,
    js_opt,
    js_reorder,
    js_sorted,
    js_string,
    js_trim,
    json_parse,
    json_same,
    json_stringify,
    open_regular,
    os_error_message,
    prop,
    required_text,
    sha256_hex,
    strict_equal,
    truthy,
    utf16_key,
    utf16_len,
)

if TYPE_CHECKING:
    from typing import Any, ClassVar

__all__ = ["NexusVerifier", "BASE", "RUNS", "LOCK", "RECOVERY_LOCK", "accepted_source", "load_run"]

BASE = ".bmad-plus/nexus"
RUNS = BASE + "/runs"
LOCK = BASE + "/writer.lock"
RECOVERY_LOCK = BASE + "/recovery.lock"
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_RUN_BYTES = 2 * 16 * 1024 * 1024
MAX_SCOPE_FILES = 10_000
ENVIRONMENT_POLICY = "minimal-local-v1"

NOT_ELIGIBLE = "Outcome source is not an accepted task with current independently verified evidence."
NOT_BOUND = "Nexus acceptance does not bind the current attempt and artifacts."
BUSY = "Nexus state is being written or recovered; retry observation after its owner finishes."

_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_RESERVED = re.compile(r"(con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\.|$)", re.IGNORECASE | re.ASCII)
_UNSAFE_CHARS = re.compile(r'[\\:<>"|?*]')


class NexusError(MemError):
    """A refusal of Nexus itself (``Nexus: …``)."""

    def __init__(self, message: str) -> None:
        super().__init__("Nexus: " + message)


class _Stale(Exception):
    """Evidence is not current (the reason is never shown, as in Nexus)."""


# --------------------------------------------------------------------------
# the per-invocation memo: each run file parsed once, each file hashed once


class _Memo:
    """What one verifier instance has read, keyed by file identity.

    ``mem outcomes`` and evidence recall re-check every receipt, and the
    receipts of one run share its run file, its check binaries and often
    their artifacts: each is read and hashed once per invocation. The key is
    the path with the size, modification and change times, inode and device
    of the file as it is found at each use, so a file replaced or edited in
    between is read again — never a stale status. Every path check runs at
    every use, as without the memo.
    """

    def __init__(self) -> None:
        self.runs: dict[tuple[Any, ...], tuple[bool, Any]] = {}
        self.hashes: dict[tuple[Any, ...], str] = {}


_MEMO: contextvars.ContextVar[_Memo | None] = contextvars.ContextVar("nexus_memo", default=None)


def _identity(path: str, st: os.stat_result) -> tuple[Any, ...]:
    return (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _sha256_file(path: str, st: os.stat_result) -> str:
    """Hex sha256 of the file at ``path`` (``st`` its stat), once per identity."""
    memo = _MEMO.get()
    key = _identity(path, st) if memo is not None else None
    if memo is not None and key in memo.hashes:
        return memo.hashes[key]
    with os.fdopen(open_regular(path), "rb") as fh:  # a FIFO never blocks
        found = hashlib.sha256(fh.read()).hexdigest()
    if memo is not None:
        memo.hashes[key] = found  # type: ignore[index]
    return found


# --------------------------------------------------------------------------
# paths: Nexus's ``safeTarget`` and ``relative`` rules


def _resolve(root: str, relative: str) -> str:
    """``path.join(root, relative)`` / ``path.resolve``: normalised, never absolute-reset."""
    return os.path.normpath(root + "/" + relative)


def _safe_target(root: str, file: Any) -> str:
    """The absolute path of ``file`` under ``root``; no symbolic link in any
    existing component from the filesystem root down, every existing parent a
    directory, an existing target a regular file (the store's component rules,
    with Nexus's messages)."""
    if not isinstance(file, str) or "\\" in file or "\0" in file or not is_normalized_relative(file):
        raise MemError("Adapter file must be a relative project path: " + js_string(file))
    target = _resolve(os.path.abspath(root), file)
    check_components(
        target,
        symlink="Adapter path contains a symlink or junction: {path}",
        parent="Adapter parent is not a directory: {path}",
        not_regular="Adapter target is not a regular file: {path}",
    )
    return target


def _relative(value: Any, allow_dot: bool = False) -> str:
    """A portable, normalised project-relative path (Nexus ``relative``)."""
    if allow_dot and value == ".":
        return value
    if not isinstance(value, str) or not js_trim(value) or utf16_len(value) > 500 or "\0" in value:
        raise _Stale("Relative path must be a nonempty bounded string.")
    if (
        _UNSAFE_CHARS.search(value)
        or any(ord(ch) < 32 for ch in value)
        or value.startswith("/")
        or value == ".."
        or value.startswith("../")
    ):
        raise _Stale("Unsafe relative path: " + value)
    for part in value.split("/"):
        if not part or part == "." or part.endswith((".", " ")) or _RESERVED.match(part):
            raise _Stale("Nonportable path: " + value)
    return value


def _directory_at(root: str, file: Any) -> str:
    _relative(file, True)
    target = root if file == "." else _resolve(root, file)
    _safe_target(root, ("" if file == "." else file + "/") + ".nexus-directory-probe")
    if not stat.S_ISDIR(os.stat(target).st_mode):
        raise _Stale("Check cwd is not a directory: " + file)
    return target


def _file_hash(root: str, file: Any, required: bool = True) -> str | None:
    _relative(file)
    target = _safe_target(root, file)
    try:
        st = os.stat(target)
    except (OSError, ValueError):  # what os.path.exists calls missing
        if required:
            raise _Stale("Required file is missing: " + file) from None
        return None
    if st.st_size > MAX_FILE_BYTES:
        raise _Stale("File exceeds the 16 MiB snapshot limit: " + file)
    return _sha256_file(target, st)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Stale("not a list")
    return value


def _files_snapshot(root: str, files: Iterable[Any], required: bool = True) -> dict[str, Any]:
    unique = list(dict.fromkeys(files))
    if not all(isinstance(f, str) for f in unique):
        raise _Stale("path is not a string")
    return js_reorder({f: _file_hash(root, f, required) for f in js_sorted(unique)})


def _scope_snapshot(root: str, scopes: Any) -> dict[str, Any]:
    """``{path: sha256}`` of every regular file under the scope entries."""
    files: list[str] = []

    def walk(file: str) -> None:
        target = _resolve(root, file)
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(st.st_mode):
            raise _Stale("Scope contains a symlink or junction: " + file)
        if stat.S_ISDIR(st.st_mode):
            _directory_at(root, file)
            for name in sorted(os.listdir(target), key=utf16_key):
                walk(file + "/" + name)
        elif stat.S_ISREG(st.st_mode):
            files.append(file)
            if len(files) > MAX_SCOPE_FILES:
                raise _Stale("Scope exceeds the 10000 file snapshot limit.")
        else:
            raise _Stale("Scope contains a non-regular file: " + file)

    for scope in _list(scopes):
        if not isinstance(scope, str):
            raise _Stale("scope is not a string")
        target = _resolve(root, scope)
        if os.path.exists(target) and stat.S_ISREG(os.lstat(target).st_mode):
            _safe_target(root, scope)
            files.append(scope)
        else:
            _safe_target(root, scope + "/.nexus-scope-probe")
            walk(scope)
    return _files_snapshot(root, files)


def _node_binary() -> str | None:
    import shutil  # only for a check command named "node" (2 ms of every outcomes' start-up)

    found = shutil.which("node")
    return os.path.realpath(found) if found else None


def _command_hash(command: Any) -> str:
    """sha256 of the real binary of a check command (``node`` = Node.js itself)."""
    if command == "node":
        command = _node_binary()
    if not isinstance(command, str) or not command.startswith("/"):
        raise _Stale("Check command must be node or an absolute executable path.")
    real = os.path.realpath(command, strict=True)
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise _Stale("Check command is not a regular executable.")
    return _sha256_file(real, st)


# --------------------------------------------------------------------------
# the run file


def _hash_json(value: Any) -> str:
    """``hash(JSON.stringify(value))`` (Node throws for ``undefined``)."""
    text = json_stringify(value)
    if text is None:
        return digest(UNDEFINED)  # raises Node's TypeError
    return sha256_hex(text)


def _root_of(directory: str) -> str:
    root = os.path.abspath(directory)
    _safe_target(root, BASE + "/.probe")
    try:
        st = os.stat(root)
    except OSError as exc:
        raise MemError(os_error_message(exc, "stat", root)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise NexusError("Project directory is not a directory.")
    return os.path.realpath(root)


def _run_file(run_id: Any) -> str:
    if not isinstance(run_id, str) or not _ID.fullmatch(run_id):
        raise NexusError("Run ID must use 1-64 lowercase letters, numbers, _ or -.")
    return f"{RUNS}/{run_id}.json"


def _ids(values: Any, expression: str) -> list[Any]:
    """``values.map((task) => task.id)`` with V8's errors."""
    if values is None or values is UNDEFINED:
        prop(values, "map")
    if not isinstance(values, list):
        raise JSTypeError(f"{expression}.map is not a function")
    return [None if (v := prop(item, "id")) is UNDEFINED else v for item in values]


def load_run(root: str, run_id: Any) -> dict[str, Any]:
    """Read and check ``.bmad-plus/nexus/runs/<runId>.json`` as Nexus does
    (``root`` is the real project path)."""
    target = _safe_target(root, _run_file(run_id))
    try:
        st = os.stat(target)
    except OSError as exc:
        raise MemError(os_error_message(exc, "stat", target)) from None
    memo = _MEMO.get()
    if memo is None:
        return _load_run(root, run_id, target, st.st_size)
    key = (root, run_id, *_identity(target, st))
    if key not in memo.runs:
        try:
            memo.runs[key] = (True, _load_run(root, run_id, target, st.st_size))
        except MemError as exc:
            memo.runs[key] = (False, exc)
    ok, found = memo.runs[key]
    if not ok:
        raise found
    return found  # type: ignore[no-any-return]


def _load_run(root: str, run_id: str, target: str, size: int) -> dict[str, Any]:
    if size > MAX_RUN_BYTES:
        raise NexusError("Run state exceeds the size limit.")
    try:
        with os.fdopen(open_regular(target), "rb") as fh:  # a FIFO never blocks
            text = fh.read().decode("utf-8", "replace")
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", target)) from None
    try:
        envelope = json_parse(text)
    except MemError:
        raise NexusError("Corrupt run state; original bytes were preserved.") from None
    run = js_opt(envelope, "run")
    if (
        not strict_equal(prop(envelope, "schemaVersion"), 1)
        or not truthy(run)
        or not strict_equal(prop(envelope, "sha256"), sha256_hex(json_stringify(run) or ""))
        or not strict_equal(prop(run, "schemaVersion"), 1)
        or not strict_equal(prop(run, "id"), run_id)
        or not strict_equal(prop(run, "project"), root)
        or not js_is_integer(prop(run, "sequence"))
        or not isinstance(prop(run, "tasks"), list)
    ):
        raise NexusError("Corrupt or foreign run state; original bytes were preserved.")
    plan = prop(run, "plan")
    if not strict_equal(prop(run, "planHash"), _hash_json(plan)) or not json_same(
        _ids(run["tasks"], "run.tasks"), _ids(prop(plan, "tasks"), "run.plan.tasks")
    ):
        raise NexusError("Run plan integrity mismatch.")
    seen: set[str] = set()
    for task in run["tasks"]:
        attempts = prop(task, "attempts")
        if not isinstance(attempts, list) or prop(task, "integration") not in ("pending", "accepted", "rejected"):
            raise NexusError("Invalid task lifecycle record.")
        for attempt in attempts:
            attempt_id = prop(attempt, "id")
            rounds = prop(attempt, "verificationRounds")
            if (
                not isinstance(attempt_id, str)
                or attempt_id in seen
                or not strict_equal(prop(attempt, "taskId"), prop(task, "id"))
                or not strict_equal(prop(attempt, "runId"), run["id"])
                or not js_is_integer(rounds)
                or rounds < 0
                or not isinstance(prop(attempt, "verificationHistory"), list)
                or not isinstance(prop(attempt, "reconciliations"), list)
                or prop(attempt, "execution")
                not in ("running", "blocked", "ambiguous", "completed", "failed", "cancelled")
                or prop(prop(attempt, "verification"), "status")
                not in ("pending", "running", "passed", "failed", "ambiguous")
            ):
                raise NexusError("Invalid attempt lifecycle record.")
            seen.add(attempt_id)
    return run


def _current(task: Any) -> Any:
    attempts = prop(task, "attempts")
    return attempts[-1] if attempts else UNDEFINED


def _active(attempt: Any) -> bool:
    return bool(
        truthy(attempt)
        and (
            prop(attempt, "execution") in ("running", "blocked", "ambiguous")
            or prop(prop(attempt, "verification"), "status") in ("running", "ambiguous")
            or prop(prop(attempt, "cancellation"), "status") == "requested"
        )
    )


def _observe_lifecycle(run: dict[str, Any]) -> None:
    """The property reads of Nexus's run inspection that are not guarded: a
    malformed attempt fails the whole inspection with V8's ``TypeError``."""
    for task in run["tasks"]:
        attempt = _current(task)
        if not truthy(attempt):
            continue
        _active(attempt)
        backend = prop(attempt, "backend")
        if prop(backend, "kind") == "process":
            process = js_opt(attempt, "process")
            if js_opt(process, "status") == "finished" and not truthy(prop(process, "collectedAt")):
                js_opt(prop(process, "receipt"), "outcome")


def _definition(run: dict[str, Any], task_id: Any) -> Any:
    for item in prop(prop(run, "plan"), "tasks"):
        if strict_equal(prop(item, "id"), task_id):
            return item
    return UNDEFINED


def _protected_snapshot(root: str, definition: Any) -> None:
    expected = prop(definition, "resourceHashes")
    if not isinstance(expected, dict):
        raise _Stale("resourceHashes is not an object")
    if not json_same(_files_snapshot(root, expected.keys()), expected):
        raise _Stale("Protected verifier or agent resource changed since the plan was created.")
    for check in _list(prop(definition, "checks")):
        _directory_at(root, prop(check, "cwd"))
        if not strict_equal(_command_hash(prop(check, "command")), prop(check, "commandHash")):
            raise _Stale("Verifier executable changed since plan creation.")
    execution = prop(definition, "execution")
    if truthy(execution):
        _directory_at(root, prop(execution, "cwd"))
        if not strict_equal(_command_hash(prop(execution, "command")), prop(execution, "commandHash")):
            raise _Stale("Worker executable changed since plan creation.")


def _evidence_current(
    root: str, run: dict[str, Any], task: Any, verified: set[str], ancestors: frozenset[Any] = frozenset()
) -> None:
    """Nexus ``evidenceCurrent``: raises when the task's evidence is not current."""
    task_id = prop(task, "id")
    if task_id in ancestors:
        raise _Stale("Dependency cycle at " + js_string(task_id))
    if task_id in verified:
        return
    attempt = _current(task)
    verification = prop(attempt, "verification") if truthy(attempt) else UNDEFINED
    if (
        not truthy(attempt)
        or prop(verification, "status") != "passed"
        or not strict_equal(prop(verification, "attemptId"), prop(attempt, "id"))
        or prop(attempt, "execution") != "completed"
        or prop(prop(attempt, "cancellation"), "status") == "requested"
    ):
        raise _Stale("Current attempt has no eligible passed verification.")
    environment = prop(verification, "environment")
    if (
        not truthy(environment)
        or prop(environment, "policy") != ENVIRONMENT_POLICY
        or not strict_equal(prop(environment, "sha256"), _hash_json(prop(environment, "values")))
    ):
        raise _Stale("Verification environment is missing or obsolete; fresh evidence is required.")
    definition = _definition(run, task_id)
    _protected_snapshot(root, definition)
    observed = _scope_snapshot(root, prop(definition, "scope"))
    if not json_same(observed, prop(verification, "scopeHashes")) or not json_same(
        _files_snapshot(root, _list(prop(definition, "artifacts"))), prop(verification, "artifactHashes")
    ):
        raise _Stale("Stale evidence: checked artifacts or write scope changed.")
    checks = _list(prop(verification, "checks"))
    planned = _list(prop(definition, "checks"))
    if not json_same(_ids(checks, "checks"), _ids(planned, "checks")) or any(
        not strict_equal(prop(check, "exitCode"), 0)
        or truthy(prop(check, "error"))
        or truthy(prop(check, "signal"))
        or not strict_equal(prop(check, "attemptId"), prop(attempt, "id"))
        or not json_same(prop(check, "environment"), environment)
        for check in checks
    ):
        raise _Stale("Verification receipt is incomplete.")
    for dependency_id in _list(prop(definition, "dependsOn")):
        if not isinstance(dependency_id, str) or not _ID.fullmatch(dependency_id):
            raise _Stale("Task ID must use 1-64 lowercase letters, numbers, _ or -.")
        dependency = next((t for t in run["tasks"] if strict_equal(prop(t, "id"), dependency_id)), UNDEFINED)
        if not truthy(dependency):
            raise _Stale("Unknown task: " + dependency_id)
        if prop(dependency, "integration") != "accepted":
            raise _Stale("Dependency has not been accepted: " + dependency_id)
        _evidence_current(root, run, dependency, verified, ancestors | {task_id})
    verified.add(task_id)


def _eligible(root: str, run: dict[str, Any], task: Any) -> bool:
    """Nexus's ``evidenceEligible and not stale`` for one task."""
    try:
        _protected_snapshot(root, _definition(run, prop(task, "id")))
        _evidence_current(root, run, task, set())
    except Exception:  # any failure, a malformed record included, means "not current"
        return False
    return True


def _lock_present(root: str, relative: str) -> bool:
    target = _safe_target(root, relative)
    if not os.path.exists(target):
        return False
    try:
        os.close(open_regular(target))  # a FIFO never blocks
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", target)) from None
    return True


def accepted_source(project: str, run_id: Any, task_id: Any) -> dict[str, Any]:
    """The receipt ``source`` for task ``task_id`` of run ``run_id``, or
    :class:`MemError` when it is not accepted, current, verified work."""
    root = _root_of(project)
    run = load_run(root, run_id)
    _observe_lifecycle(run)
    task = next((t for t in run["tasks"] if strict_equal(prop(t, "id"), task_id)), UNDEFINED)
    eligible = truthy(task) and _eligible(root, run, task)
    if _lock_present(root, LOCK) | _lock_present(root, RECOVERY_LOCK):
        raise MemError(BUSY)
    attempt = _current(task) if truthy(task) else UNDEFINED
    if (
        not truthy(task)
        or prop(task, "integration") != "accepted"
        or prop(task, "acceptedAt") in (None, UNDEFINED)
        or not eligible
        or js_opt(attempt, "execution") != "completed"
        or prop(prop(attempt, "verification"), "status") != "passed"
    ):
        raise MemError(NOT_ELIGIBLE)
    receipt = prop(task, "integrationReceipt")
    verification = prop(attempt, "verification")
    if not strict_equal(js_opt(receipt, "attemptId"), prop(attempt, "id")) or not json_same(
        prop(receipt, "artifactHashes"), prop(verification, "artifactHashes")
    ):
        raise MemError(NOT_BOUND)
    definition = _definition(run, task_id)
    baseline = prop(attempt, "baseline")
    source = {
        "kind": NexusVerifier.name,
        "runId": run_id,
        "taskId": task_id,
        "attemptId": prop(attempt, "id"),
        "verificationId": prop(verification, "id"),
        "verificationSha256": digest(verification),
        "acceptedAt": prop(task, "acceptedAt"),
        "artifactHashes": prop(receipt, "artifactHashes"),
        "resourceHashes": prop(definition, "resourceHashes"),
        "scope": prop(definition, "scope"),
        "objective": prop(definition, "objective"),
        "baseline": baseline if truthy(baseline) else None,
    }
    return {key: value for key, value in source.items() if value is not UNDEFINED}


class NexusVerifier(OutcomeVerifier):
    """Accepted, completed, independently verified and current BMAD+ Nexus tasks.

    Observe input: ``{"runId": "<run>", "taskId": "<task>", …}`` naming
    ``.bmad-plus/nexus/runs/<run>.json`` and one of its tasks.
    """

    name: ClassVar[str] = "nexus"
    help: ClassVar[str] = "BMAD+ Nexus run state (.bmad-plus/nexus/runs/<runId>.json)"

    def __init__(self) -> None:
        # one instance per invocation: what its re-checks read, read once
        self._memo = _Memo()

    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:
        # read afresh: observe compares this with a re-check to catch a torn write
        run_id = required_text(prop(request, "runId"), "Run ID")
        task_id = required_text(prop(request, "taskId"), "Task ID")
        return accepted_source(project, run_id, task_id)

    def recheck(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        token = _MEMO.set(self._memo)
        try:
            return accepted_source(project, prop(source, "runId"), prop(source, "taskId"))
        finally:
            _MEMO.reset(token)
