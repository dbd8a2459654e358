"""The lifecycle subcommands of ``mem memories``: a memory's history, a
version restored, a store moved (``export``, ``import``, ``migrate``). The
listing itself is declared in :mod:`mem_cli.commands.memories`."""

from __future__ import annotations

from typing import Annotated

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json, Mind, Ref, User

memories_app = typer.Typer(
    name="memories",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)


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
