"""``mem promotions``: the promotions ``mem reinforce`` proposed and the
decisions on them; ``mem promotions accept|reject ID --reason TEXT``: a
human's decision."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Human, Json

promotions_app = typer.Typer(
    name="promotions",
    help="The proposed promotions not decided yet, with the pattern's current score and the evidence ids, "
    "and the decisions taken; accept or reject one (a human only).",
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
)

PromotionId = Annotated[str, typer.Argument(help="The promotion's id (mem promotions).", metavar="ID",
                                            show_default=False)]  # fmt: skip
Reason = Annotated[Optional[str], typer.Option(help="Why (kept with the decision).", metavar="TEXT")]


@promotions_app.callback()
def promotions(ctx: typer.Context, directory: Directory = None, json: Json = False) -> None:
    """The proposed promotions not decided yet, with the pattern's current score and the evidence ids, and the
    decisions taken (read-only)."""
    if ctx.invoked_subcommand is not None:
        return
    from mem_core.reinforcement.views import proposed_promotions

    result = proposed_promotions(directory)
    output.show(result, json, render.promotions)


def _decide(decision: str, promotion_id: str, reason: str | None, human: str | None, directory: str | None,
            json: bool) -> None:  # fmt: skip
    from mem_core.reinforcement.decisions import decide

    result = decide(promotion_id, decision, reason, human=human, directory=directory)
    output.show(result, json, render.decision)


@promotions_app.command("accept")
def accept(
    promotion_id: PromotionId, reason: Reason = None, human: Human = None, directory: Directory = None,
    json: Json = False,
) -> None:  # fmt: skip
    """Approve a proposed promotion as you (a human): asks your human key's passphrase on the terminal (where no
    human key is trusted, asks you to confirm there)."""
    _decide("accept", promotion_id, reason, human, directory, json)


@promotions_app.command("reject")
def reject(
    promotion_id: PromotionId, reason: Reason = None, human: Human = None, directory: Directory = None,
    json: Json = False,
) -> None:  # fmt: skip
    """Reject a proposed promotion as you (a human): asks your human key's passphrase on the terminal (where no
    human key is trusted, asks you to confirm there)."""
    _decide("reject", promotion_id, reason, human, directory, json)


def register(app: typer.Typer) -> None:
    app.add_typer(promotions_app)
