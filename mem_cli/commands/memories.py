"""``mem memories``: list, filter or search structured memories; its
subcommands show a memory's history, restore a version, and move a store
(``export``, ``import``, ``migrate``)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, Ref, User

Value = Optional[str]

memories_app = typer.Typer(
    name="memories",
    help="List, filter or search structured memories, or show what expires soon; "
    "`mem memories history|restore|export|import|migrate` for the rest of their lifecycle.",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)


@memories_app.callback(invoke_without_command=True)
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
    """List, filter or search structured memories, or show what expires soon.
    Subcommands: history, restore, export, import, migrate."""
    if ctx.invoked_subcommand is not None:
        return
    from mem_core.memories.service import list_memories

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
    output.show(result, json, render.memories)


@memories_app.command("history")
def history(
    ctx: typer.Context,
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Every version of a memory, oldest first: created, updated, verified,
    restored, and the tombstone of a forgotten one (name that by its id)."""
    from mem_core.memories.service import memory_history

    result = memory_history(ref, mind=mind, user=user, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.history)


@memories_app.command("restore")
def restore(
    ctx: typer.Context,
    ref: Ref,
    version: Annotated[
        str,
        typer.Argument(help="The version to bring back (its number in `mem memories history`).", metavar="VERSION"),
    ],
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Bring back a version of a memory (its content, tags, priority,
    confidence, expiry), stored by an agent: unverified. A forgotten memory
    comes back by its id. A memory a human stated only a human can change."""
    from mem_core.memories.service import restore as run

    result = run(ref, version, mind=mind, user=user, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.restore)


@memories_app.command("export")
def export(
    ctx: typer.Context,
    to: Annotated[
        str,
        typer.Option(
            "--output", "-o", help="The file to write (replaced atomically), or - for stdout.", metavar="FILE"
        ),
    ] = "-",
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Write every memory (forgotten ones too) with its history and its
    signatures as JSON Lines, one memory per line, for `mem memories import`."""
    from mem_core.memories.transfer import export_memories

    result = export_memories(None if to == "-" else to, user=user, directory=directory, kernel=ctx.obj)
    if to == "-":
        if result.text:  # JSON Lines: nothing at all for an empty store
            output.out(result.text.removesuffix("\n"))
        return
    output.show(result, json, render.exported)


@memories_app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(
            help="A file `mem memories export` wrote (JSON Lines), or - for stdin.", metavar="FILE", show_default=False
        ),
    ],
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Read memories from an export into this store, in one transaction:
    memories already there (by id) are left as they are; each keeps its
    source and history, and reads verified only where a signature proves it."""
    from mem_core.memories.transfer import import_memories

    result = import_memories(None if source == "-" else source, user=user, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.imported)


@memories_app.command("migrate")
def migrate(
    ctx: typer.Context,
    to: Annotated[
        str, typer.Option("--to", help="The backend to move the store to: postgres | sqlite.", metavar="BACKEND")
    ],
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Copy the store to another backend, check the copy (counts, content
    hashes, history), then select the new backend in the config file. The
    old store is kept: this says what to delete."""
    from mem_core.memories.transfer import migrate_store

    result = migrate_store(to, user=user, directory=directory, kernel=ctx.obj)
    output.show(result, json, render.migrated)


def register(app: typer.Typer) -> None:
    app.add_typer(memories_app)
