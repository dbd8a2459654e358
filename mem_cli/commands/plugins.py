"""``mem plugins``: what is loaded, from where, and what it provides."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Json


def plugins(ctx: typer.Context, json: Json = False) -> None:
    """List the plugins: name, provider, version, what each provides; broken ones with their error."""
    from mem_core.kernel.report import plugins_report

    report = plugins_report(kernel=ctx.obj)
    if json:
        output.out_json(report)
        return
    output.out(render.plugins(report))


def register(app: typer.Typer) -> None:
    app.command()(plugins)
