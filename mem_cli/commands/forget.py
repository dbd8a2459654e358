"""``mem forget``: delete a structured memory (its history keeps a tombstone)."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, Ref, User


def forget(
    ctx: typer.Context,
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Delete a structured memory (its history keeps a tombstone); one a human
    confirmed is deleted only after you confirm on the terminal."""
    from mem_core.memories.api import forget as run

    result = run(ref, mind=mind, user=user, directory=directory, kernel=ctx.obj)
    if json:
        output.out_json(result)
        return
    output.out(render.forget(result))


def register(app: typer.Typer) -> None:
    app.command()(forget)
