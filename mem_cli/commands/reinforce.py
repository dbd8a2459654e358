"""``mem reinforce``: fold reward signals into a pattern score (mem-cli.md §4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import AGENT, DIRECTORY, JSON, SIGNAL_OPTIONS, given_signals
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    """Text lines are printed one by one, as the reference prints them: when a
    stored score cannot be formatted, the lines before it are already out."""
    from mem_core.api.reinforce import reinforce

    result = reinforce(
        values["pattern"],
        directory=values["directory"],
        signals=given_signals(values),
        evidence=values["evidence"],
        kernel=kernel,
    )
    if values["json"]:
        output.out_json(result)
        return
    from mem_cli import render

    for line in render.reinforce(result):
        output.out(line)


COMMAND = Command(
    "reinforce",
    "Apply a reward to a pattern score (promotions are PROPOSED only, never applied).",
    group=AGENT,
    run=run,
    options=(
        DIRECTORY,
        Option("pattern", "--pattern", "Pattern id to reinforce: its heading in patterns.md (required).", metavar="ID"),
        Option(
            "evidence", "--evidence",
            "Comma-separated journal event ids backing the reinforcement (copied into a promotion).",
            metavar="IDS",
        ),
        *SIGNAL_OPTIONS,
        JSON,
    ),
)  # fmt: skip
