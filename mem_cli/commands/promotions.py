"""``mem promotions``: the promotions ``mem reinforce`` proposed and the
decisions on them; ``mem promotions accept|reject ID --reason TEXT``: a
human's decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, HUMAN, JSON, PROJECT, show
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.views import proposed_promotions

    result = proposed_promotions(values["directory"])
    show(result, values["json"], "promotions")


def _decision(name: str, verb: str) -> Command:
    """``mem promotions accept|reject``: one subcommand per decision."""

    def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
        from mem_core.api.decisions import decide

        result = decide(
            values["promotion_id"], name, values["reason"], human=values["human"], directory=values["directory"]
        )
        show(result, values["json"], "decision")

    return Command(
        name,
        f"{verb} a proposed promotion {_ASKS}",
        run=run,
        arguments=(_PROMOTION_ID,),
        options=(_REASON, HUMAN, DIRECTORY, JSON),
    )


_PROMOTION_ID = Argument("promotion_id", "The promotion's id (mem promotions).", metavar="ID")
_REASON = Option("reason", "--reason", "Why (kept with the decision).", metavar="TEXT")
_ASKS = (
    "as you (a human): asks your human key's passphrase on the terminal (where no human key is trusted, asks you "
    "to confirm there)."
)

COMMAND = Command(
    "promotions",
    "The proposed promotions not decided yet, with the pattern's current score and the evidence ids, and the "
    "decisions taken; accept or reject one (a human only).",
    group=PROJECT,
    run=run,
    options=(DIRECTORY, JSON),
    subcommands=(_decision("accept", "Approve"), _decision("reject", "Reject")),
)
