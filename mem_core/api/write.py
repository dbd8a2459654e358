"""The public Python API behind ``mem write`` (docs/contract.md §3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.clock import now_iso

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = ["WriteResult", "write"]


class WriteResult:
    """The journal record ``write`` appended."""

    def __init__(self, written: dict[str, Any]) -> None:
        self.written = written

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written}

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())


def write(
    *,
    agent: str | None,
    directory: str | None = None,
    cli: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    signals: dict[str, str] | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
    via: str | None = None,
) -> WriteResult:
    """Append one event to the journal (docs/contract.md §3). ``signals`` maps
    signal names (``eval``, ``accept``, ``ci`` or a plugin's) to option text;
    ``via`` marks an event no agent wrote (see
    :func:`mem_core.journal.records.append_event`)."""
    from mem_core.api.signals import parse_signals
    from mem_core.journal.records import append_event
    from mem_core.kernel import resolve

    kernel, settings = resolve(directory, kernel)
    now = now or now_iso()
    recorded = parse_signals(kernel, signals or {})
    event = append_event(
        settings.project,
        ts=now,
        agent=agent,
        cli=cli,
        model=model,
        task=task,
        outcome=outcome,
        signals=recorded,
        via=via,
    )
    from mem_core.api.refresh import refresh_brief

    refresh_brief(settings.project, kernel)  # only if .bmad/memory/brief.md exists; never fails the write
    return WriteResult(event)
