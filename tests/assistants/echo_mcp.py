"""A trivial stdio MCP server for the assistants' tests (``mcp`` Python SDK 1.x).

One tool, ``echo``: it answers ``ECHO-RESULT-<text>`` so that a test can find the
result in the request the assistant sends next and in its printed answer. Every
call is appended to the file named by ``ECHO_MCP_LOG`` (one JSON line), so a
test can also see the server really ran. Run: ``python echo_mcp.py``.
"""

from __future__ import annotations

import json
import os

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

PREFIX = "ECHO-RESULT-"

server = FastMCP("echo", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Echo the given text back, prefixed with ECHO-RESULT-."""
    log = os.environ.get("ECHO_MCP_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "echo", "text": text}) + "\n")
    return PREFIX + text


if __name__ == "__main__":
    server.run("stdio")
