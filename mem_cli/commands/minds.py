"""``mem minds``: the minds (memory namespaces) of a store, with their counts."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, User


def minds(ctx: typer.Context, user: User = False, directory: Directory = None, json: Json = False) -> None:
    """List the minds (memory namespaces) that hold memories, with how many each holds."""
    from mem_core.memories.service import list_minds

    result = list_minds(user=user, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.minds)


def register(app: typer.Typer) -> None:
    app.command()(minds)
