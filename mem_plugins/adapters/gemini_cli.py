"""Gemini CLI: ``GEMINI.md``, the MCP server and hooks in ``.gemini/settings.json``.

With ``--scope user``: ``~/.gemini/GEMINI.md`` and ``~/.gemini/settings.json``.
``trust: true`` lets a headless run call the server's tools; Gemini CLI
runs a project's servers and hooks only in a trusted folder. Its hooks
print JSON (``mem hook --assistant gemini-cli`` does); timeouts are in
milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "gemini-cli"
EVENTS = (
    ("SessionStart", "session-start", "mem-brief"),
    ("BeforeAgent", "prompt-submit", "mem-recall"),
    ("SessionEnd", "session-end", "mem-journal"),
)


class GeminiCli(Adapter):
    name = NAME
    title = "Gemini CLI"
    help = "GEMINI.md block, mcpServers.mem (trusted) and SessionStart/BeforeAgent/SessionEnd hooks in .gemini/settings.json."
    markers = (".gemini", "GEMINI.md")
    programs = ("gemini",)

    def edits(self, target: Target) -> list[Edit]:
        from functools import partial

        from mem_core.plugin import Block, JsonItem, JsonMember, hook_command, instructions, is_hook_command

        ours = partial(is_hook_command, assistant=NAME)
        settings = ".gemini/settings.json"
        command, args = target.mcp_server()
        mem = target.mem_argv()
        edits: list[Edit] = [
            Block(".gemini/GEMINI.md" if target.user else "GEMINI.md", instructions(NAME)),
            JsonMember(settings, ("mcpServers", "mem"), {"command": command, "args": args, "trust": True}),
        ]
        for event, mem_event, hook_name in EVENTS:
            hook = {
                "name": hook_name,
                "type": "command",
                "command": hook_command(mem_event, NAME, mem),
                "timeout": 5000,
            }
            edits.append(JsonItem(settings, ("hooks", event), {"hooks": [hook]}, ours))
        return edits

    def notes(self, target: Target) -> list[str]:
        if target.user:
            return []
        return [
            "Gemini CLI runs a project's MCP servers and hooks only in a trusted folder: trust this folder when "
            f'it asks (~/.gemini/trustedFolders.json: {{"{target.project}": "TRUST_FOLDER"}}).'
        ]
