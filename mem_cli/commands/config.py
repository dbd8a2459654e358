"""``mem config``: every effective setting and where it came from;
``mem config set KEY VALUE`` writes one to a config file."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from mem_cli import output
from mem_cli.commands import PROJECT
from mem_cli.options import Directory, Json

config_app = typer.Typer(
    name="config",
    help="Show every effective setting and where it came from; `mem config set KEY VALUE` changes one.",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _shown(value: Any) -> str:
    from mem_core.configure import toml_value

    return "(none)" if value is None else toml_value(value)


@config_app.callback(invoke_without_command=True)
def config(ctx: typer.Context, directory: Directory = None, json: Json = False) -> None:
    """Show every effective setting, its value and where it came from (default, a config file, a MEM_* variable)."""
    if ctx.invoked_subcommand is not None:
        return
    from mem_core.configure import config_report

    report = config_report(directory)
    if json:
        output.out_json(report)
        return
    settings = report.settings
    lines = [f"mem config: project {settings.project}"]
    for label, path in (("project config", settings.project_config), ("user config", settings.user_config)):
        lines.append(f"  {label}: {path}" + ("" if os.path.exists(path) else " (none)"))
    for name, value, _layer, source in report.rows():
        lines.append(f"  {name} = {_shown(value)}  ({source})")
    output.out("\n".join(lines))


Key = Annotated[str, typer.Argument(help="The setting (see `mem config`).", metavar="KEY", show_default=False)]
User = Annotated[bool, typer.Option("--user", help="Write the user config file instead of the project's.")]


@config_app.command("set")
def set_(
    ctx: typer.Context,
    key: Key,
    value: Annotated[
        str, typer.Argument(help="Its value (a list: comma-separated).", metavar="VALUE", show_default=False)
    ],
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Set KEY to VALUE in the project's .bmad/memory/mem.toml (--user: the user config file), keeping the rest."""
    from mem_core.configure import set_config

    result = set_config(key, value, user=user, directory=directory, kernel=ctx.obj)
    if json:
        output.out_json(result)
    else:
        output.out(f"mem config: set {result.key} = {_shown(result.value)} in {result.file}")


@config_app.command("unset")
def unset(key: Key, user: User = False, directory: Directory = None, json: Json = False) -> None:
    """Take KEY out of the project's .bmad/memory/mem.toml (--user: the user config file): the default applies again."""
    from mem_core.configure import unset_config

    result = unset_config(key, user=user, directory=directory)
    if json:
        output.out_json(result)
    elif result.changed:
        output.out(f"mem config: unset {result.key} in {result.file}")
    else:
        output.out(f"mem config: {result.key} is not set in {result.file}; nothing changed")


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, rich_help_panel=PROJECT)
