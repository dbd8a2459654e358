"""``mem write``: append one event to the journal (mem-cli.md §3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import AGENT, DIRECTORY, JSON, SIGNAL_OPTIONS, given_signals, show
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.write import write

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
    show(result, values["json"], "write")


COMMAND = Command(
    "write",
    "Append a structured event to .bmad/memory/journal.ndjson.",
    group=AGENT,
    run=run,
    options=(
        DIRECTORY,
        Option("agent", "--agent", "Agent that produced the event (required).", metavar="NAME"),
        Option(
            "cli", "--cli",
            "Driving assistant: claude-code, gemini-cli, codex-cli, cursor, opencode, aider, antigravity …",
            metavar="NAME",
        ),
        Option("model", "--model", "Model id, recorded as is.", metavar="ID"),
        Option("task", "--task", "What was attempted.", metavar="TEXT"),
        Option("outcome", "--outcome", "success | failure | partial | abandoned", metavar="OUTCOME"),
        *SIGNAL_OPTIONS,
        JSON,
    ),
)  # fmt: skip
