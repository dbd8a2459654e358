"""``mem write``: append one event to the journal (mem-cli.md §3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import given_signals

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

HELP = "Append a structured event to .bmad/memory/journal.ndjson."


def run(values: Mapping[str, Any], kernel: Kernel | None = None) -> None:
    from mem_core.journal.api import write

    result = write(
        agent=values["agent"],
        directory=values["directory"],
        cli=values["cli"],
        model=values["model"],
        task=values["task"],
        outcome=values["outcome"],
        signals=given_signals(values),
        kernel=kernel,
    )
    if values["json"]:
        output.out_json(result)
        return
    from mem_cli import render

    output.out(render.write(result))
