"""``mem verify``: sign a structured memory as true, as you (a human)."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Human, Json, Mind, Ref, User


def verify(
    ctx: typer.Context,
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    human: Human = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Sign a memory as true with your human key: asks its passphrase on the terminal (where no
    human key is trusted, asks you to confirm there; that reads as verified (terminal))."""
    from mem_core.memories.service import verify as run

    result = run(ref, mind=mind, user=user, human=human, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.verify)


def register(app: typer.Typer) -> None:
    app.command()(verify)
