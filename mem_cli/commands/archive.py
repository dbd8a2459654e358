"""``mem archive``: move the oldest lines of the journal or the promotions
store to ``.bmad/memory/archive/`` before the store is full (recall keeps
reading them)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output
from mem_cli.options import Directory, Json


def archive(
    ctx: typer.Context,
    store: Annotated[
        Optional[str],
        typer.Option(
            help="Archive only this store: journal or promotions (the outcome store is never archived).  "
            "[default: both]",
            metavar="STORE",
        ),
    ] = None,
    keep: Annotated[
        Optional[str],
        typer.Option(
            help="Keep at most this many bytes of the newest whole lines, whatever the store's size.  "
            "[default: archive only a store over 75 % of 2 MiB, keeping 1 MiB]",
            metavar="BYTES",
        ),
    ] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Move the oldest whole lines of the journal and the promotions store to
    .bmad/memory/archive/<store>-<first ts>-<last ts>.ndjson under the writer
    lock (nothing lost, nothing duplicated, safe to kill); recall still reads
    the archived events."""
    from mem_core.journal.archive import archive as run

    result = run(store=store, keep=keep, directory=directory, kernel=ctx.obj)
    if json:
        output.out_json(result)
        return
    lines = []
    for entry in result.stores:
        if entry["completed"]:
            lines.append(f"{entry['store']}: finished an interrupted archive ({entry['completed']})")
        if entry["file"]:
            lines.append(
                f"{entry['store']}: archived {entry['archived_lines']} lines ({entry['archived_bytes']} bytes) "
                f"to {entry['file']}; kept {entry['kept_lines']} lines ({entry['kept_bytes']} bytes)"
            )
        elif not entry["completed"]:
            lines.append(f"{entry['store']}: nothing to archive ({entry['kept_bytes']} bytes)")
    output.out("\n".join(lines))


def register(app: typer.Typer) -> None:
    app.command()(archive)
