"""Evidence receipts: ``mem observe``, ``mem outcomes`` and evidence ranking
(docs/contract.md §5, §6, §7).

A receipt binds one exact Markdown section (``{file, heading, textSha256}``)
to accepted, independently verified work that an outcome verifier plugin
describes (its ``source``). Receipts live in ``.bmad/memory/outcomes.ndjson``,
one compact JSON line each, with ``id`` = sha256 of the compact JSON of the
receipt without ``id``; ``bmad-plus mem`` reads and writes the same file.

Records in that file were possibly written by another tool, so they are read
as plain JSON values with JavaScript semantics (:mod:`mem_core.js.record`),
never coerced: what the reference refuses, ``mem`` refuses with the same
message. Nothing here imports pydantic: evidence recall runs this code.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from mem_core.clock import now_iso
from mem_core.errors import MemError
from mem_core.evidence.messages import (
    BOTH,
    CHANGED,
    DUPLICATE,
    EARLIER,
    FULL,
    IDENTITY,
    INCOMPLETE,
    INTEGRITY,
    MEMORY_FILE,
    ONE_SECTION,
    RELATION_LIST,
    RELATION_SCOPE,
    SCOPE_EXCEEDS,
    SCOPE_PATH,
    SCOPE_REQUIRED,
    TOO_MANY,
)
from mem_core.files import OUTCOMES, append_record, is_normalized_relative, read_text, safe_file, writer_lock
from mem_core.files.markdown import split_sections
from mem_core.js.record import (
    UNDEFINED,
    JSTypeError,
    digest,
    join,
    js_sorted,
    js_string,
    opt,
    parse,
    prop,
    same,
    strict_equal,
    truthy,
)
from mem_core.js.strings import js_trim, utf16_len

if TYPE_CHECKING:
    from typing import Any

    from mem_core.evidence.interfaces import OutcomeVerifier
    from mem_core.kernel import Kernel

__all__ = [
    "OUTCOMES",
    "MAX_RECORDS",
    "DEFAULT_VERIFIER",
    "ObserveResult",
    "OutcomesResult",
    "observe",
    "outcomes",
    "inspect_outcomes",
    "read_receipts",
    "receipt_id",
    "required_text",
    "scopes",
    "section_anchor",
    "within",
    "overlaps",
]

MAX_RECORDS = 1000
MAX_RELATIONS = 30
MAX_SCOPE = 30
#: the verifier of an observe input that names none, and of receipts whose
#: ``source.kind`` names no registered verifier (as ``bmad-plus mem`` does)
DEFAULT_VERIFIER = "nexus"

_MEMORY_FILE = re.compile(r"(?:\.agents|\.bmad)/memory/(?:decisions|lessons|patterns)\.md")


# --------------------------------------------------------------------------
# validation shared by observe, outcomes and evidence recall


def required_text(value: Any, label: str, maximum: int = 1000) -> str:
    """A non-blank string of at most ``maximum`` characters, else
    ``<label> must be non-empty bounded text.``"""
    if not isinstance(value, str) or not js_trim(value) or utf16_len(value) > maximum:
        raise MemError(f"{label} must be non-empty bounded text.")
    return value


def _scope_path(value: Any) -> str:
    if not isinstance(value, str) or "\\" in value or not is_normalized_relative(value):
        raise MemError(SCOPE_PATH)
    return value


def scopes(values: Any) -> list[str]:
    """1–30 normalized relative paths, de-duplicated and sorted."""
    if not isinstance(values, list) or not values or len(values) > MAX_SCOPE:
        raise MemError(SCOPE_REQUIRED)
    return js_sorted(dict.fromkeys(_scope_path(v) for v in values))


def _starts_with(child: Any) -> Any:
    if isinstance(child, str):
        return child.startswith
    if child is None or child is UNDEFINED:
        prop(child, "startsWith")
    raise JSTypeError("child.startsWith is not a function")


def within(child: Any, parent: Any) -> bool:
    """``child`` is ``parent`` or lies under it (``parent + "/"`` prefix)."""
    return strict_equal(child, parent) or _starts_with(child)(js_string(parent) + "/")


def _some(values: Any, name: str) -> list[Any]:
    """``values`` as an array for ``values.some(…)``, with V8's errors."""
    if isinstance(values, list):
        return values
    if values is None or values is UNDEFINED:
        prop(values, "some")
    raise JSTypeError(f"{name}.some is not a function")


def overlaps(a: Any, b: Any) -> bool:
    """Some path of ``a`` and some path of ``b`` contain one another."""
    return any(any(within(left, right) or within(right, left) for right in _some(b, "b")) for left in _some(a, "a"))


def _js_unique(values: list[Any]) -> bool:
    """``new Set(values).size === values.length`` (objects are all distinct)."""
    keys: set[tuple[str, Any]] = set()
    for value in values:
        if isinstance(value, (dict, list)):
            keys.add(("object", id(value)))
        elif isinstance(value, bool) or value is None:
            keys.add((type(value).__name__, value))
        elif isinstance(value, (int, float)):
            keys.add(("number", float(value)))
        else:
            keys.add(("string", value))
    return len(keys) == len(values)


def section_anchor(project: str, memory: Any, split: dict[Any, dict[str, list[str]]] | None = None) -> dict[str, Any]:
    """``{file, heading, textSha256}`` of the one section ``memory`` names.

    ``split`` (one per file and invocation) keeps the file's sections by
    heading, keyed by the file's identity (path, size, modification and
    change times, inode, device), so that checking many receipts reads and
    splits each note file once; a file found changed is read afresh."""
    file = prop(memory, "file") if truthy(memory) else UNDEFINED
    if not truthy(memory) or not _MEMORY_FILE.fullmatch(js_string(file)):
        raise MemError(MEMORY_FILE)
    heading = required_text(prop(memory, "heading"), "Memory heading", 300)
    key = None
    if split is not None:
        path = safe_file(project, file)
        try:
            st = os.stat(path)
        except OSError:
            pass
        else:
            key = (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    sections = split.get(key) if split is not None and key is not None else None
    if sections is None:
        sections = {}
        for h, text in split_sections(read_text(project, file) or ""):
            sections.setdefault(h, []).append(text)
        if split is not None and key is not None:
            split.clear()  # the latest version of the file is the one worth keeping
            split[key] = sections
    matches = sections.get(heading, [])
    if len(matches) != 1:
        raise MemError(ONE_SECTION)
    return {"file": file, "heading": heading, "textSha256": digest(js_trim(heading + "\n" + matches[0]))}


def receipt_id(body: dict[str, Any]) -> str:
    """sha256 of the compact JSON of a receipt without its ``id``."""
    return digest(body)


# --------------------------------------------------------------------------
# the receipt store


def read_receipts(project: str) -> list[Any]:
    """Every receipt of ``outcomes.ndjson``, after the integrity rules of §6."""
    text = read_text(project, OUTCOMES, missing=True)
    if text is None:
        return []
    if text and not text.endswith("\n"):
        raise MemError(INCOMPLETE)
    records = [parse(line) for line in text.split("\n") if line]
    if len(records) > MAX_RECORDS:
        raise MemError(TOO_MANY)
    seen: set[str] = set()
    attempts: set[str] = set()
    for record in records:
        if record is None:
            raise JSTypeError("Cannot destructure property 'id' of 'record' as it is null.")
        body = {k: v for k, v in record.items() if k != "id"} if isinstance(record, dict) else {}
        rid = record.get("id", UNDEFINED) if isinstance(record, dict) else UNDEFINED
        if (
            not strict_equal(body.get("schemaVersion", UNDEFINED), 1)
            or body.get("kind") != "accepted-outcome"
            or not strict_equal(rid, digest(body))
            or rid in seen
        ):
            raise MemError(INTEGRITY)
        supersedes, contradicts = record.get("supersedes"), record.get("contradicts")
        if (
            not isinstance(supersedes, list)
            or not isinstance(contradicts, list)
            or any(not (isinstance(ref, str) and ref in seen) for ref in supersedes + contradicts)
        ):
            raise MemError(EARLIER)
        source = record.get("source", UNDEFINED)
        attempt = join([opt(source, "runId"), opt(source, "taskId"), opt(source, "attemptId")], "\0")
        if not truthy(opt(source, "attemptId")) or attempt in attempts:
            raise MemError(IDENTITY)
        attempts.add(attempt)
        seen.add(rid)
    return records


# --------------------------------------------------------------------------
# verifiers


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _input_verifier(kernel: Kernel, value: Any) -> OutcomeVerifier:
    """The verifier an observe input names (``"verifier"``, default ``nexus``)."""
    registry = kernel.outcome_verifiers
    name = prop(value, "verifier")
    if name is UNDEFINED:
        name = DEFAULT_VERIFIER
    if not isinstance(name, str) or name not in registry:
        names = registry.names()
        if not names:
            raise MemError("No outcome verifier is registered.")
        raise MemError(f"Outcome verifier must be {_or(names)}.")
    return registry.get(name)()


class _Rechecker:
    """Re-confirms stored sources, once per distinct source per invocation."""

    def __init__(self, project: str, kernel: Kernel | None) -> None:
        self.project = project
        self.kernel = kernel
        self._verifiers: dict[str, OutcomeVerifier] = {}
        self._done: dict[str | None, tuple[bool, Any]] = {}

    def _verifier(self, source: Any) -> OutcomeVerifier:
        from mem_core.kernel import get_kernel

        self.kernel = get_kernel(self.kernel)  # built only when a receipt needs it
        registry = self.kernel.outcome_verifiers
        kind = opt(source, "kind")
        name = kind if isinstance(kind, str) and kind in registry else DEFAULT_VERIFIER
        if name not in registry:
            raise MemError(f"No outcome verifier '{js_string(kind)}' is registered.")
        if name not in self._verifiers:
            self._verifiers[name] = registry.get(name)()
        return self._verifiers[name]

    def __call__(self, source: Any) -> Any:
        from mem_core.js.record import stringify

        key = stringify(source)
        if key not in self._done:
            try:
                self._done[key] = (True, self._verifier(source).recheck(self.project, source))
            except MemError as exc:
                self._done[key] = (False, exc)
        ok, value = self._done[key]
        if not ok:
            raise value
        return value


def _anchor(record: Any) -> str:
    memory = prop(record, "memory")
    return js_string(prop(memory, "file")) + "\0" + js_string(prop(memory, "heading"))


def inspect_outcomes(
    project: str, *, kernel: Kernel | None = None, context_scope: Any = UNDEFINED
) -> list[dict[str, Any]]:
    """Every receipt with ``eligible`` and ``reason`` (status precedence of §6).

    With ``context_scope`` (evidence recall) a receipt whose scope does not
    overlap it is ``outside-query-scope``.
    """
    selected = None if context_scope is UNDEFINED else scopes(context_scope)
    records = read_receipts(project)
    recheck = _Rechecker(project, kernel)
    superseded = {ref for record in records for ref in record["supersedes"]}
    contradictory: set[str] = set()
    for record in records:
        if record["id"] in superseded:
            continue
        for other in record["contradicts"]:
            if other not in superseded:
                contradictory.add(record["id"])
                contradictory.add(other)
    conflicting = {_anchor(record) for record in records if record["id"] in contradictory}
    split: dict[str, dict[Any, dict[str, list[str]]]] = {}  # file → its sections
    results = []
    for record in records:
        reason: str | None = None
        if record["id"] in superseded:
            reason = "superseded"
        elif _anchor(record) in conflicting:
            reason = "contradictory"
        elif selected is not None and not overlaps(prop(record, "scope"), selected):
            reason = "outside-query-scope"
        else:
            try:
                memory = prop(record, "memory")
                file = js_string(prop(memory, "file")) if truthy(memory) else ""
                if not same(section_anchor(project, memory, split.setdefault(file, {})), memory):
                    reason = "stale-memory-section"
                elif not same(recheck(prop(record, "source")), prop(record, "source")):
                    reason = "stale-outcome-source"
            except MemError as exc:
                reason = "unavailable-or-ineligible-source: " + exc.message
        status = dict(record)
        status["eligible"] = reason is None
        status["reason"] = reason
        results.append(status)
    return results


# --------------------------------------------------------------------------
# the two actions


class ObserveResult:
    """What ``mem observe`` wrote."""

    __slots__ = ("written",)

    def __init__(self, written: dict[str, Any]) -> None:
        self.written = written

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.written == self.written  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"ObserveResult(written={self.written!r})"

    @property
    def id(self) -> str:
        return self.written["id"]

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written}

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())


class OutcomesResult:
    """Every receipt with its current status."""

    __slots__ = ("results",)

    def __init__(self, results: list[dict[str, Any]] | None = None) -> None:
        self.results = [] if results is None else results

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.results == self.results  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"OutcomesResult(results={self.results!r})"

    @property
    def count(self) -> int:
        """How many receipts."""
        return len(self.results)

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.results), "results": self.results}

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())


def observe(
    input_path: str | None,
    *,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> ObserveResult:
    """Record that accepted, verified work backs one memory section (§5).

    ``input_path`` is a project-relative JSON file naming the work (for the
    default Nexus verifier ``runId`` and ``taskId``), the section
    (``memory: {file, heading}``), the ``scope``, the ``interpretation`` and
    optional ``supersedes`` / ``contradicts`` receipt ids. Every check runs
    under the writer lock; nothing is written unless all pass.
    """
    from mem_core.evidence.models import ObserveInput, Receipt
    from mem_core.kernel import Kernel, project_settings

    settings = project_settings(directory, kernel)
    project = settings.project
    now = now or now_iso()
    request = ObserveInput.parse_text(read_text(project, input_path))  # type: ignore[arg-type]
    kernel = kernel if kernel is not None else Kernel(settings=settings)
    with writer_lock(project):
        records = read_receipts(project)
        verifier = _input_verifier(kernel, request.value)
        # an array is an object to JavaScript, with none of the input's fields
        source = verifier.describe(project, request.value if isinstance(request.value, dict) else {})
        if any(
            all(strict_equal(prop(record["source"], k), prop(source, k)) for k in ("runId", "taskId", "attemptId"))
            for record in records
        ):
            raise MemError(DUPLICATE)
        memory = section_anchor(project, request.get("memory"))
        scope = scopes(request.get("scope"))
        task_scope = _some(prop(source, "scope"), "source.scope")
        if any(not any(within(item, parent) for parent in task_scope) for item in scope):
            raise MemError(SCOPE_EXCEEDS)
        relationships: dict[str, list[str]] = {}
        for key in ("supersedes", "contradicts"):
            values = request.get(key)
            if not truthy(values):
                values = []
            if not isinstance(values, list) or len(values) > MAX_RELATIONS or not _js_unique(values):
                raise MemError(RELATION_LIST)
            for rid in values:
                prior = next((r for r in records if strict_equal(r["id"], rid)), None)
                if prior is None or not overlaps(scope, prop(prior, "scope")):
                    raise MemError(RELATION_SCOPE)
            relationships[key] = js_sorted(values)
        if any(rid in relationships["contradicts"] for rid in relationships["supersedes"]):
            raise MemError(BOTH)
        interpretation = required_text(request.get("interpretation"), "Lesson interpretation", 2000)
        receipt = Receipt.create(
            ts=now,
            memory=memory,
            scope=scope,
            source=source,
            interpretation=interpretation,
            supersedes=relationships["supersedes"],
            contradicts=relationships["contradicts"],
        )
        # re-read both sources: never persist a torn observation
        if not same(source, verifier.recheck(project, source)) or not same(
            memory, section_anchor(project, request.get("memory"))
        ):
            raise MemError(CHANGED)
        if len(records) >= MAX_RECORDS:
            raise MemError(FULL)
        written = append_record(project, OUTCOMES, receipt.record())
    return ObserveResult(written)


def outcomes(*, directory: str | None = None, kernel: Kernel | None = None) -> OutcomesResult:
    """Every stored receipt and whether it is still eligible evidence (§6).
    Reads without the writer lock."""
    from mem_core.project import find_project

    return OutcomesResult(inspect_outcomes(find_project(directory), kernel=kernel))
