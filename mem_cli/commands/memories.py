"""``mem memories``: list, filter or search structured memories."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, User

Value = Optional[str]


def memories(
    ctx: typer.Context,
    category: Annotated[Value, typer.Option(help="Only this category.", metavar="C")] = None,
    tag: Annotated[
        Value,
        typer.Option(
            help="Only memories with this tag (case-insensitive); with --search, search within it.", metavar="TAG"
        ),
    ] = None,
    search: Annotated[
        Value,
        typer.Option(
            help="Full-text search over key, content and tags: memories holding some of the words, best first (accents and case ignored; caching finds cache, config finds configuration).",
            metavar="TEXT",
        ),
    ] = None,
    expiring: Annotated[
        Value,
        typer.Option(
            help="Only those expiring within this duration (7d, 12h, 30m), expired ones included, soonest first.",
            metavar="DURATION",
        ),
    ] = None,
    include_expired: Annotated[bool, typer.Option("--include-expired", help="Also list expired memories.")] = False,
    source: Annotated[Value, typer.Option(help="Only memories stored by user | agent.", metavar="S")] = None,
    priority: Annotated[Value, typer.Option(help="Only this priority.", metavar="P")] = None,
    unverified: Annotated[bool, typer.Option("--unverified", help="Only memories no human has verified yet.")] = False,
    mind: Mind = None,
    user: User = False,
    limit: Annotated[Value, typer.Option(help="At most this many.", metavar="N")] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """List, filter or search structured memories, or show what expires soon."""
    from mem_core.memories.api import list_memories

    result = list_memories(
        category=category,
        tag=tag,
        search=search,
        expiring=expiring,
        include_expired=include_expired,
        source=source,
        priority=priority,
        verified=False if unverified else None,
        mind=mind,
        user=user,
        limit=limit,
        directory=directory,
        kernel=ctx.obj,
    )
    if json:
        output.out_json(result)
        return
    output.out(render.memories(result))


def register(app: typer.Typer) -> None:
    app.command()(memories)
