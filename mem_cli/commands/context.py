"""``mem context``: the context summary of a mind, for an LLM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, JSON, MEMORIES, MIND, USER, show
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import context_summary

    result = context_summary(
        mind=values["mind"],
        user=values["user"],
        limit=values["limit"],
        budget=values["budget"],
        directory=values["directory"],
        kernel=kernel,
        kernel_settings=settings,
    )
    show(result, values["json"], "context")


COMMAND = Command(
    "context",
    "The context summary of a mind: plain text for an LLM, critical first, expired left out.",
    group=MEMORIES,
    run=run,
    light=True,
    options=(
        MIND,
        USER,
        Option("limit", "--limit", "Show at most this many memories (the counts stay totals).", metavar="N"),
        Option(
            "budget",
            "--budget",
            "At most this many tokens (estimated; the blocks past it are counted).  "
            "[default: the context_budget setting, 1500]",
            metavar="TOKENS",
        ),
        DIRECTORY,
        JSON,
    ),
)
