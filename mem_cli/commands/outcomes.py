"""``mem outcomes``: every receipt and its status (mem-cli.md §6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

HELP = (
    "List every stored receipt and whether it is still current evidence\n"
    "(accepted-current, superseded, contradictory, stale-…)."
)


def run(values: Mapping[str, Any], kernel: Kernel | None = None) -> None:
    from mem_core.evidence.api import outcomes

    result = outcomes(directory=values["directory"], kernel=kernel)
    if values["json"]:
        output.out_json(result)
        return
    from mem_cli import render

    output.out(render.outcomes(result))
