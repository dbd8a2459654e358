"""A trivial stdio MCP server for the assistants' tests (``mcp`` Python SDK 1.x).

One tool, ``echo``: it answers ``ECHO-RESULT-<text>`` so that a test can find the
result in the request the assistant sends next and in its printed answer. Every
call is appended to the file given as ``--log PATH`` (one JSON line), so a test
can also see the server really ran (an argument, since not every assistant passes
its environment on to MCP servers). Run: ``python echo_mcp.py [--log PATH]``.
"""

from __future__ import annotations

import json
import sys

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

PREFIX = "ECHO-RESULT-"

LOG = sys.argv[sys.argv.index("--log") + 1] if "--log" in sys.argv[:-1] else None

server = FastMCP("echo", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Echo the given text back, prefixed with ECHO-RESULT-."""
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "echo", "text": text}) + "\n")
    return PREFIX + text


if __name__ == "__main__":
    server.run("stdio")
