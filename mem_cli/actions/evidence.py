"""``mem observe`` and ``mem outcomes``: evidence receipts (mem-cli.md §5, §6)."""

from __future__ import annotations

from mem_cli import output


def observe(directory: str | None = None, input: str | None = None, json: bool = False) -> None:
    """Record one receipt; text as ``bmad-plus mem`` prints it."""
    from mem_core.evidence.api import observe as run

    result = run(input, directory=directory)
    if json:
        output.out_json(result)
        return
    output.out(f"mem observe: {result.id} recorded; lesson causality remains unmeasured.")


def outcomes(directory: str | None = None, json: bool = False) -> None:
    """Every receipt and its status, one line each."""
    from mem_core.evidence.api import outcomes as run

    result = run(directory=directory)
    if json:
        output.out_json(result)
        return
    output.out("\n".join(result.lines()) or "mem outcomes: no observations.")
