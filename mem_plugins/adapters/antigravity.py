"""Antigravity: the rule ``.agents/rules/mem.md`` (``trigger: always_on``) and ``AGENTS.md``;
with ``--scope user``, ``~/.gemini/GEMINI.md`` and the MCP server in ``mcp_config.json``.

Antigravity reads MCP servers from a global ``mcp_config.json`` only, and
with absolute command paths only: ``~/.gemini/antigravity/mcp_config.json``
in older builds, ``~/.gemini/config/mcp_config.json`` in newer ones —
written in whichever of the two directories exists, in both when neither
does. No hooks: where Antigravity reads them is not settled (see
``assistants.md``); the rule and the MCP tools carry everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "antigravity"
FRONTMATTER = "---\ntrigger: always_on\ndescription: How to use mem, this project's memory\n---\n\n"
MCP_CONFIGS = (".gemini/antigravity/mcp_config.json", ".gemini/config/mcp_config.json")


class Antigravity(Adapter):
    name = NAME
    title = "Antigravity"
    help = "Rule .agents/rules/mem.md (always on) and AGENTS.md block; --scope user: mcp_config.json (absolute paths)."
    markers = (".agents/rules", ".agent/rules", ".gemini/antigravity")
    programs = ("antigravity",)

    def edits(self, target: Target) -> list[Edit]:
        from mem_core.plugin import MCP_ARGS, Block, JsonMember, instructions

        if not target.user:
            return [
                Block(".agents/rules/mem.md", instructions(NAME), preamble=FRONTMATTER),
                Block("AGENTS.md", instructions(NAME)),
            ]
        argv = target.absolute_mem_argv()
        server = {"command": argv[0], "args": [*argv[1:], *MCP_ARGS]}
        configs = [path for path in MCP_CONFIGS if target.exists(path.rsplit("/", 1)[0])] or list(MCP_CONFIGS)
        return [
            Block(".gemini/GEMINI.md", instructions(NAME)),
            *(JsonMember(path, ("mcpServers", "mem"), server) for path in configs),
        ]

    def notes(self, target: Target) -> list[str]:
        if target.user:
            return ["Refresh Antigravity's MCP servers (Manage MCP Servers) or restart it to load 'mem'."]
        return [
            "Antigravity reads MCP servers only from its global mcp_config.json: "
            "run `mem adapters install antigravity --scope user` too."
        ]
