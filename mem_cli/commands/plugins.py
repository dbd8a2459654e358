"""``mem plugins``: what is loaded, from where, and what it provides."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json


def plugins(ctx: typer.Context, directory: Directory = None, json: Json = False) -> None:
    """List the plugins: name, provider, version, what each provides; broken ones with their error."""
    from mem_core.kernel.report import plugins_report

    kernel = ctx.obj
    if directory is not None:  # the plugins that project's settings load (its mem.toml `plugins`)
        from mem_cli.app import CommandLine
        from mem_core.kernel import Kernel
        from mem_core.settings import load_settings

        kernel = Kernel(settings=load_settings(directory))
        CommandLine(kernel, "plugins")  # calls its plugins' commands hook: a failing one is shown as broken
    report = plugins_report(kernel=kernel)
    output.show(report, json, render.plugins)


def register(app: typer.Typer) -> None:
    app.command()(plugins)
