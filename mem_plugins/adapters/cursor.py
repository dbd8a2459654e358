"""Cursor: the rule ``.cursor/rules/mem.mdc`` (``alwaysApply: true``), ``.cursor/mcp.json``, ``.cursor/hooks.json``.

With ``--scope user``: ``~/.cursor/mcp.json`` and ``~/.cursor/hooks.json``
(Cursor keeps user rules in its settings, not in files). Hook support
varies by version (some report "Unknown hook type"); the rule file, which
every version reads, carries the instructions either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "cursor"
EVENTS = (("sessionStart", "session-start"), ("beforeSubmitPrompt", "prompt-submit"), ("stop", "session-end"))
FRONTMATTER = "---\ndescription: How to use mem, this project's memory\nglobs:\nalwaysApply: true\n---\n\n"


class Cursor(Adapter):
    name = NAME
    title = "Cursor"
    help = "Rule .cursor/rules/mem.mdc (alwaysApply), mcpServers.mem in .cursor/mcp.json, hooks in .cursor/hooks.json."
    markers = (".cursor", ".cursorrules")
    programs = ("cursor", "cursor-agent")

    def edits(self, target: Target) -> list[Edit]:
        from functools import partial

        from mem_core.plugin import Block, JsonItem, JsonMember, hook_command, instructions, is_hook_command

        ours = partial(is_hook_command, assistant=NAME)
        edits: list[Edit] = []
        if not target.user:
            edits.append(Block(".cursor/rules/mem.mdc", instructions(NAME), preamble=FRONTMATTER))
        command, args = target.mcp_server()
        edits.append(JsonMember(".cursor/mcp.json", ("mcpServers", "mem"), {"command": command, "args": args}))
        for event, mem_event in EVENTS:
            item = {"command": hook_command(mem_event, NAME, target.mem_argv())}
            edits.append(JsonItem(".cursor/hooks.json", ("hooks", event), item, ours, base={"version": 1}))
        return edits

    def notes(self, target: Target) -> list[str]:
        notes = ["Cursor asks before it starts a new MCP server: enable 'mem' in Cursor's MCP settings."]
        if target.user:
            notes.append(
                "Cursor keeps user rules in its settings: `mem adapters install cursor` writes the project's rule."
            )
        return notes
