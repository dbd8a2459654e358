"""``mem verify``: mark a structured memory as verified by you."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, Ref, User


def verify(
    ctx: typer.Context,
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Mark a memory as verified by you; asks you to confirm on the terminal."""
    from mem_core.memories.api import verify as run

    result = run(ref, mind=mind, user=user, directory=directory, kernel=ctx.obj)
    if json:
        output.out_json(result)
        return
    output.out(render.verify(result))


def register(app: typer.Typer) -> None:
    app.command()(verify)
