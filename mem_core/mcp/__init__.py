"""``mem mcp``: an MCP server over the ``mem_core`` API (see docs/mcp.md).

:mod:`.tools` defines the tools (plain data, no SDK import); :mod:`.server`
runs them on the MCP Python SDK, which is imported only there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["serve", "MemServer", "TOOLS"]


def __getattr__(name: str) -> Any:
    if name in ("serve", "MemServer"):
        from mem_core.mcp import server

        return getattr(server, name)
    if name == "TOOLS":
        from mem_core.mcp.tools import TOOLS

        return TOOLS
    raise AttributeError(f"module 'mem_core.mcp' has no attribute {name!r}")
