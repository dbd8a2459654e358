"""``mem forget``: delete a structured memory (its history keeps a tombstone)."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Human, Json, Mind, Ref, User


def forget(
    ctx: typer.Context,
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    human: Human = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Delete a structured memory (its history keeps a tombstone); one a human
    confirmed is deleted only with you at the terminal (your human key's passphrase, or a yes
    where no human key is trusted)."""
    from mem_core.memories.service import forget as run

    result = run(ref, mind=mind, user=user, human=human, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.forget)


def register(app: typer.Typer) -> None:
    app.command()(forget)
