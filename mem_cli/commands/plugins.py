"""``mem plugins``: what is loaded, from where, and what it provides."""

from __future__ import annotations

import typer

from mem_cli import output
from mem_cli.options import Json


def plugins(json: Json = False) -> None:
    """List the plugins: name, provider, version, what each provides; broken ones with their error."""
    from mem_core.kernel.report import plugins_report

    report = plugins_report()
    if json:
        output.out_json(report)
        return
    lines = [f"mem plugins: {len(report.plugins)} plugin(s)"]
    for row in report.plugins:
        provides = ", ".join(f"{p['kind']} {p['name']}" for p in row["provides"]) or "-"
        version = f" {row['version']}" if row["version"] else ""
        lines.append(f"  {row['name']} ({row['origin']}: {row['provider']}{version}): {provides}")
        if row["error"]:
            lines.append(f"    BROKEN: {row['error']}")
    output.out("\n".join(lines))


def register(app: typer.Typer) -> None:
    app.command()(plugins)
