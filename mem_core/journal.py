"""The event journal: ``.bmad/memory/journal.ndjson`` (mem-cli.md §2, §3)."""

from __future__ import annotations

from typing import Any

from . import store
from .errors import MemError
from .jsonfmt import JSONError, loads
from .text import js_trim

__all__ = ["JOURNAL", "OUTCOMES", "read_events", "parse_lines", "deterministic_id", "append_event"]

JOURNAL = ".bmad/memory/journal.ndjson"
OUTCOMES = ("success", "failure", "partial", "abandoned")


def deterministic_id(*parts: str) -> str:
    """First 12 hex digits of sha256 of the parts joined with NUL."""
    import hashlib

    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def parse_lines(text: str) -> list[dict[str, Any]]:
    """The JSON objects of an NDJSON text; blank and corrupt lines are skipped."""
    records = []
    for line in text.split("\n"):
        trimmed = js_trim(line)
        if not trimmed:
            continue
        try:
            value = loads(trimmed)
        except JSONError:
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


def read_events(project: str) -> list[dict[str, Any]]:
    """Journal events in file order (missing journal: none)."""
    text = store.read_text(project, JOURNAL, missing=True)
    return parse_lines(text) if text else []


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
    return store.append_record(project, JOURNAL, record)
