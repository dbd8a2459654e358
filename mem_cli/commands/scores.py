"""``mem scores``: every pattern's score, highest Elo first (read-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, JSON, PROJECT, show
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.views import pattern_scores

    result = pattern_scores(values["directory"])
    show(result, values["json"], "scores")


COMMAND = Command(
    "scores",
    "The pattern scores `mem reinforce` keeps: Elo, mean, updates, last update; highest Elo first (read-only).",
    group=PROJECT,
    run=run,
    options=(DIRECTORY, JSON),
)
