"""``mem remember``: store a structured memory (structured-memory.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Human, Json, Mind, User

Value = Optional[str]


def remember(
    ctx: typer.Context,
    category: Annotated[
        str,
        typer.Argument(
            help="identity | preference | fact | project | skill | mistake | context | note",
            metavar="CATEGORY",
            show_default=False,
        ),
    ],
    key: Annotated[
        str,
        typer.Argument(
            help="Stable snake_case key, unique within (mind, category); storing it again updates.",
            metavar="KEY",
            show_default=False,
        ),
    ],
    content: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="The memory (words are joined with spaces); put -- before it when it starts with -; "
            "- alone reads it from stdin.",
            metavar="[CONTENT]...",
            show_default=False,
        ),
    ] = None,
    text: Annotated[
        Value, typer.Option("--content", help="The memory as one option value (may start with -).", metavar="TEXT")
    ] = None,
    content_file: Annotated[
        Value,
        typer.Option("--content-file", help="Read the memory from this file (UTF-8, at most 16 KiB).", metavar="FILE"),
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option(
            help="A tag (repeatable, or comma-separated); stored lower-case; on an update it replaces the tags.",
            metavar="TAG",
        ),
    ] = None,
    no_tags: Annotated[bool, typer.Option("--no-tags", help="Remove every tag (on an update).")] = False,
    priority: Annotated[
        Value,
        typer.Option(help="low | normal | high | critical.  [default: normal; an update keeps it]", metavar="P"),
    ] = None,
    confidence: Annotated[
        Value,
        typer.Option(help="0 to 1.  [default: 0.7, or 1 with --as-user; an update keeps it]", metavar="C"),
    ] = None,
    expires: Annotated[
        Value,
        typer.Option(
            help="When it expires: an ISO-8601 date or time, or a duration like 7d, 12h, 30m (an update keeps it).",
            metavar="WHEN",
        ),
    ] = None,
    no_expiry: Annotated[bool, typer.Option("--no-expiry", help="Make it never expire (on an update).")] = False,
    mind: Mind = None,
    user: User = False,
    as_user: Annotated[
        bool,
        typer.Option(
            "--as-user",
            help="Store it as said by you (source user), signed with your human key: asks its passphrase on "
            "the terminal (where no human key is trusted, asks you to confirm there).",
        ),
    ] = False,
    human: Human = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Store a structured memory, or update the one with the same category and
    key (what an update does not mention keeps its value)."""
    from mem_core.memories.service import remember as run
    from mem_core.memories.validate import content_of

    result = run(
        category,
        key,
        content_of(content, text, content_file),
        tags=tag,
        priority=priority,
        confidence=confidence,
        expires=expires,
        no_tags=no_tags,
        no_expiry=no_expiry,
        mind=mind,
        user=user,
        as_user=as_user,
        human=human,
        directory=directory,
        kernel=ctx.obj,
    )
    output.show(result, json, render.remember)


def register(app: typer.Typer) -> None:
    app.command()(remember)
