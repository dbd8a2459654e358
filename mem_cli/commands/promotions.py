"""``mem promotions``: the promotions ``mem reinforce`` proposed (read-only)."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json


def promotions(directory: Directory = None, json: Json = False) -> None:
    """The proposed promotions not decided yet, with the pattern's current score and the evidence ids (read-only)."""
    from mem_core.reinforcement.views import proposed_promotions

    result = proposed_promotions(directory)
    output.show(result, json, render.promotions)


def register(app: typer.Typer) -> None:
    app.command()(promotions)
