"""``mem reinforce``: fold reward signals into a pattern score (mem-cli.md §4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import given_signals

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

HELP = "Apply a reward to a pattern score (promotions are PROPOSED only, never applied)."


def run(values: Mapping[str, Any], kernel: Kernel | None = None) -> None:
    """Text lines are printed one by one, as the reference prints them: when a
    stored score cannot be formatted, the lines before it are already out."""
    from mem_core.reinforcement.api import reinforce

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
