"""The event journal: ``.bmad/memory/journal.ndjson`` (mem-cli.md §2, §3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mem_core.errors import MemError
from mem_core.files import JOURNAL, append_record, read_text
from mem_core.js.jsonfmt import JSONError, loads
from mem_core.js.strings import js_trim

__all__ = ["JOURNAL", "OUTCOMES", "read_events", "parse_lines", "deterministic_id", "append_event"]

OUTCOMES = ("success", "failure", "partial", "abandoned")


def deterministic_id(*parts: str) -> str:
    """First 12 hex digits of sha256 of the parts joined with NUL."""
    import hashlib

    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def parse_lines(text: str, keep: Callable[[str], bool] | None = None) -> list[dict[str, Any] | None]:
    """The JSON objects of an NDJSON text; blank and corrupt lines (and lines
    that hold something other than an object) are skipped, and so are the
    lines ``keep`` refuses, before they are parsed."""
    lines = [trimmed for trimmed in map(js_trim, text.split("\n")) if trimmed]
    if keep is not None:
        lines = [line for line in lines if keep(line)]
    if not lines:
        return []
    try:  # the common case, every line valid: one parse for the whole file
        values = loads("[" + ",".join(lines) + "]")
    except JSONError:
        values = []
        for line in lines:
            try:
                values.append(loads(line))
            except JSONError:
                continue
    else:
        if len(values) != len(lines):  # a line like `1,2` joined into two values
            values = [v for line in lines for v in _one(line)]
    # JSON `null` is kept: the reference fails on it (`ev.agent` of null),
    # every other non-object is skipped (it can never match a query)
    return [value for value in values if value is None or isinstance(value, dict)]


def _one(line: str) -> list[Any]:
    try:
        return [loads(line)]
    except JSONError:
        return []


def read_events(project: str, keep: Callable[[str], bool] | None = None) -> list[dict[str, Any] | None]:
    """Journal events in file order (missing journal: none); ``keep`` may
    refuse raw lines before they are parsed."""
    text = read_text(project, JOURNAL, missing=True)
    return parse_lines(text, keep) if text else []


def append_event(
    project: str,
    *,
    ts: str,
    agent: str | None,
    cli: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    signals: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Validate and append one event; returns the record as written."""
    if not isinstance(agent, str) or not agent:
        raise MemError("appendEvent: event.agent is required")
    if outcome is not None and outcome not in OUTCOMES:
        raise MemError("appendEvent: event.outcome must be one of " + "|".join(OUTCOMES))
    record: dict[str, Any] = {
        "ts": ts,
        "agent": agent,
        "cli": cli or None,
        "model": model or None,
        "task": task or "",
        "outcome": outcome or None,
        "signals": signals or {},
        "artifactHashes": [],
    }
    record["id"] = deterministic_id(ts, agent, record["task"])
    return append_record(project, JOURNAL, record)
