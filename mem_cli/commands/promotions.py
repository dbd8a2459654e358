"""``mem promotions``: the promotions ``mem reinforce`` proposed (read-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, PROJECT
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_cli import render
    from mem_core.reinforcement.views import proposed_promotions

    result = proposed_promotions(values["directory"])
    output.show(result, values["json"], render.promotions)


COMMAND = Command(
    "promotions",
    "The proposed promotions not decided yet, with the pattern's current score and the evidence ids (read-only).",
    group=PROJECT,
    run=run,
    options=(DIRECTORY, JSON),
)
