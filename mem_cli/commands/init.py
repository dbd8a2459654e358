"""``mem init``: make the project's ``.bmad/memory/`` and its commented ``mem.toml``."""

from __future__ import annotations

import typer

from mem_cli import output
from mem_cli.options import Directory, Json


def init(directory: Directory = None, json: Json = False) -> None:
    """Create .bmad/memory/ and a commented mem.toml with the defaults, if missing (safe to repeat)."""
    from mem_core.configure import init_project

    result = init_project(directory)
    if json:
        output.out_json(result)
    elif result.created:
        output.out(f"mem init: created {' and '.join(result.created)} in {result.project}")
    else:
        output.out(f"mem init: {result.config} already exists; nothing changed")


def register(app: typer.Typer) -> None:
    app.command()(init)
