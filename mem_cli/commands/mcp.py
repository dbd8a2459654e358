"""``mem mcp``: serve the project's memory to MCP clients (docs/mcp.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, INTEGRATION
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.mcp.server import serve
    from mem_core.project import find_project

    serve(find_project(values["directory"]), http=values["http"], portfolio=values["portfolio"])


COMMAND = Command(
    "mcp",
    "Run an MCP server (stdio by default) whose tools are mem's commands, on this project.",
    group=INTEGRATION,
    run=run,
    options=(
        DIRECTORY,
        Option(
            "http",
            "--http",
            "Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765; port 0 picks one) instead of stdio.",
            metavar="HOST:PORT",
        ),
        Option(
            "portfolio",
            "--portfolio",
            "Portfolio brain directory, searched by recall with scope portfolio.",
            metavar="PATH",
        ),
    ),
)
