"""``mem context``: the context summary of a mind, for an LLM."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, User


def context(
    ctx: typer.Context,
    mind: Mind = None,
    user: User = False,
    limit: Annotated[
        Optional[str], typer.Option(help="Show at most this many memories (the counts stay totals).", metavar="N")
    ] = None,
    budget: Annotated[
        Optional[str],
        typer.Option(
            help="At most this many tokens (estimated; the blocks past it are counted).  "
            "[default: the context_budget setting, 1500]",
            metavar="TOKENS",
        ),
    ] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """The context summary of a mind: plain text for an LLM, critical first, expired left out."""
    from mem_core.memories.service import context_summary

    result = context_summary(mind=mind, user=user, limit=limit, budget=budget, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.context)


def register(app: typer.Typer) -> None:
    app.command()(context)
