"""typer declaration of ``mem reinforce`` (help texts; the body is in
:mod:`mem_cli.actions.reinforce`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..actions import reinforce as actions
from ..options import Directory, Json

Value = Optional[str]


def reinforce(
    directory: Directory = None,
    pattern: Annotated[
        Value, typer.Option(help="Pattern id to reinforce: its heading in patterns.md (required).", metavar="ID")
    ] = None,
    eval_: Annotated[
        Value, typer.Option("--eval", help="Reward signal: eval suite score in [0,1] (weight 0.5).", metavar="SCORE")
    ] = None,
    accept: Annotated[
        Value, typer.Option(help="Reward signal: true | false | yes | no | [0,1] (weight 0.3).", metavar="BOOL")
    ] = None,
    ci: Annotated[
        Value, typer.Option(help="Reward signal: pass | fail | [0,1] (weight 0.2).", metavar="RESULT")
    ] = None,
    signal: Annotated[
        Optional[list[str]],
        typer.Option(
            help="A plugin's reward signal, NAME=VALUE (repeatable); see `mem plugins`.", metavar="NAME=VALUE"
        ),
    ] = None,
    evidence: Annotated[
        Value,
        typer.Option(
            help="Comma-separated journal event ids backing the reinforcement (copied into a promotion).", metavar="IDS"
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Apply a reward to a pattern score (promotions are PROPOSED only, never applied)."""
    actions.reinforce(directory, pattern, eval_, accept, ci, signal, evidence, json)


def register(app: typer.Typer) -> None:
    app.command()(reinforce)
