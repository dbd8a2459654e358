"""``mem reinforce``: fold reward signals into a pattern score (mem-cli.md §4)."""

from __future__ import annotations

from mem_cli import output
from mem_cli.actions.journal import signal_options


def reinforce(
    directory: str | None = None,
    pattern: str | None = None,
    eval: str | None = None,
    accept: str | None = None,
    ci: str | None = None,
    signal: list[str] | None = None,
    evidence: str | None = None,
    json: bool = False,
) -> None:
    """Apply a reward to a pattern score; text as ``bmad-plus mem`` prints it.

    Text lines are printed one by one, as the reference prints them: when a
    stored score cannot be formatted, the lines before it are already out.
    """
    from mem_core.reinforcement.api import reinforce as run

    result = run(
        pattern,
        directory=directory,
        signals=signal_options(eval, accept, ci, signal),
        evidence=evidence,
    )
    if json:
        output.out_json(result)
        return
    for line in result.text_lines():
        output.out(line)
