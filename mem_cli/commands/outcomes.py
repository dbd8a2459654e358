"""``mem outcomes``: every receipt and its status (mem-cli.md §6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import AGENT, DIRECTORY, JSON, show
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.evidence import outcomes

    result = outcomes(directory=values["directory"], kernel=kernel)
    show(result, values["json"], "outcomes")


COMMAND = Command(
    "outcomes",
    "List every stored receipt and whether it is still current evidence "
    "(accepted-current, superseded, contradictory, stale-…).",
    group=AGENT,
    run=run,
    options=(DIRECTORY, JSON),
)
