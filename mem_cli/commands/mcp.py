"""``mem mcp``: serve the project's memory to MCP clients (docs/mcp.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli.options import Directory


def mcp(
    directory: Directory = None,
    http: Annotated[
        Optional[str],
        typer.Option(
            help="Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765; port 0 picks one) "
            "instead of stdio.",
            metavar="HOST:PORT",
        ),
    ] = None,
    portfolio: Annotated[
        Optional[str],
        typer.Option(help="Portfolio brain directory, searched by recall with scope portfolio.", metavar="PATH"),
    ] = None,
) -> None:
    """Run an MCP server (stdio by default) whose tools are mem's commands, on this project."""
    from mem_core.mcp.server import serve
    from mem_core.project import find_project

    serve(find_project(directory), http=http, portfolio=portfolio)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
