"""The event journal, ``.bmad/memory/journal.ndjson``: appending one event
(docs/contract.md §3). Recall reads it through the ``journal`` note source."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files import JOURNAL, append_record

if TYPE_CHECKING:
    from typing import Any

__all__ = ["JOURNAL", "OUTCOMES", "deterministic_id", "append_event"]

OUTCOMES = ("success", "failure", "partial", "abandoned")


def deterministic_id(*parts: str) -> str:
    """First 12 hex digits of sha256 of the parts joined with NUL."""
    import hashlib

    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


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
    via: str | None = None,
) -> dict[str, Any]:
    """Validate and append one event; returns the record as written.
    ``via`` names what wrote it when that was not an agent's ``mem write``
    (``session-end``: the hook's echo of a session's first prompt), in a
    last key of its own that the event's text and ``id`` leave out."""
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
    if via is not None:
        record["via"] = via
    return append_record(project, JOURNAL, record)
