"""typer declaration of ``mem reinforce`` (help texts; the body is in
:mod:`mem_cli.actions.reinforce`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli.actions import reinforce as actions
from mem_cli.options import Accept, Ci, Directory, Eval, Json, Signal

Value = Optional[str]


def reinforce(
    directory: Directory = None,
    pattern: Annotated[
        Value, typer.Option(help="Pattern id to reinforce: its heading in patterns.md (required).", metavar="ID")
    ] = None,
    eval_: Eval = None,
    accept: Accept = None,
    ci: Ci = None,
    signal: Signal = None,
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
