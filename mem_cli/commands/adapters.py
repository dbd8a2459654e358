"""``mem adapters``: wire ``mem`` into coding assistants (list, install, remove, status)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.commands import INTEGRATION
from mem_cli.options import Directory, Json

Names = Annotated[
    list[str], typer.Argument(help="Adapters: claude-code, codex-cli, gemini-cli, cursor, opencode, aider, antigravity …",
                              metavar="NAME...", show_default=False)
]  # fmt: skip
Scope = Annotated[
    str,
    typer.Option(help="project: the project's files | user: your own files under the home directory.", metavar="SCOPE"),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Change nothing; print the unified diff of what would change.")]


def list_command(ctx: typer.Context, scope: Scope = "project", directory: Directory = None, json: Json = False) -> None:
    """Every adapter: detected here, installed, the files it would touch."""
    from mem_core.adapters.api import list_adapters

    report = list_adapters(directory, scope=scope, kernel=ctx.obj)
    output.show(report, json, render.adapters_list)


def install(
    ctx: typer.Context,
    names: Names,
    scope: Scope = "project",
    dry_run: DryRun = False,
    approve: Annotated[
        bool,
        typer.Option(
            "--approve",
            help="Also approve what the assistant would ask about (Claude Code: the project's mem MCP server).",
        ),
    ] = False,
    command: Annotated[
        Optional[str],
        typer.Option(
            "--command",
            help="The command the assistant runs to start mem (default: mem when the mem on PATH is this one, "
            "else this mem's absolute path).",
            metavar="COMMAND",
        ),
    ] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Write the instruction block, the hooks and the MCP entry of each NAME (twice changes nothing)."""
    from mem_core.adapters.api import install_adapters

    result = install_adapters(
        directory, names, scope=scope, dry_run=dry_run, approve=approve, command=command, kernel=ctx.obj
    )
    output.show(result, json, render.adapters_change)


def remove(
    ctx: typer.Context,
    names: Names,
    scope: Scope = "project",
    dry_run: DryRun = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Take out what install wrote for each NAME; files only mem touched come back byte for byte."""
    from mem_core.adapters.api import remove_adapters

    result = remove_adapters(directory, names, scope=scope, dry_run=dry_run, kernel=ctx.obj)
    output.show(result, json, render.adapters_change)


def status(ctx: typer.Context, scope: Scope = "project", directory: Directory = None, json: Json = False) -> None:
    """The installed adapters: their files, what is missing, what you must still do."""
    from mem_core.adapters.api import adapters_status

    report = adapters_status(directory, scope=scope, kernel=ctx.obj)
    output.show(report, json, render.adapters_status)


def register(parent: typer.Typer) -> None:
    app = typer.Typer(
        name="adapters",
        help="Wire mem into coding assistants: instruction block, hooks, MCP server entry.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,
    )
    app.command("list")(list_command)
    for command in (install, remove, status):
        app.command()(command)
    parent.add_typer(app, name="adapters", rich_help_panel=INTEGRATION)
