"""Claude Code: ``CLAUDE.md``, hooks in ``.claude/settings.json``, the MCP server in ``.mcp.json``.

With ``--scope user``: ``~/.claude/CLAUDE.md``, ``~/.claude/settings.json``
and the user's MCP servers in ``~/.claude.json``. A project's MCP servers
wait for the user's approval; ``--approve`` adds ``mem`` to
``enabledMcpjsonServers`` in ``.claude/settings.local.json`` (the personal
settings; the shared ``.claude/settings.json`` cannot approve), which
approves ``mem`` alone rather than every server a ``.mcp.json`` may list
later (``enableAllProjectMcpServers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "claude-code"
#: Claude Code's hook events for mem's three (timeouts in seconds)
EVENTS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("SessionStart", "session-start", {"matcher": "startup|resume|clear|compact"}),
    ("UserPromptSubmit", "prompt-submit", {}),
    ("SessionEnd", "session-end", {}),
)


class ClaudeCode(Adapter):
    name = NAME
    title = "Claude Code"
    help = "CLAUDE.md block, SessionStart/UserPromptSubmit/SessionEnd hooks, the mem MCP server (.mcp.json)."
    markers = (".claude", "CLAUDE.md", ".mcp.json")
    programs = ("claude",)

    def edits(self, target: Target) -> list[Edit]:
        from functools import partial

        from mem_core.plugin import Block, JsonItem, JsonMember, hook_command, instructions, is_hook_command

        ours = partial(is_hook_command, assistant=NAME)
        mem = target.mem_argv()
        settings = ".claude/settings.json"
        edits: list[Edit] = [Block(".claude/CLAUDE.md" if target.user else "CLAUDE.md", instructions(NAME))]
        for event, mem_event, extra in EVENTS:
            hook = {"type": "command", "command": hook_command(mem_event, NAME, mem), "timeout": 10}
            edits.append(JsonItem(settings, ("hooks", event), {**extra, "hooks": [hook]}, ours))
        command, args = target.mcp_server()
        server = {"type": "stdio", "command": command, "args": args, "env": {}}
        edits.append(JsonMember(".claude.json" if target.user else ".mcp.json", ("mcpServers", "mem"), server))
        if target.approve and not target.user:
            edits.append(JsonItem(".claude/settings.local.json", ("enabledMcpjsonServers",), "mem", "mem".__eq__))
        return edits

    def notes(self, target: Target) -> list[str]:
        if target.user:
            return []
        if target.approve:
            # Claude Code 2.1.3xx keeps a project's MCP servers "Pending approval"
            # (`claude mcp list`) until the folder itself is trusted
            return [
                "Claude Code (2.1.3xx) honours the project's approval only in a folder you trust: run `claude` "
                "in it once and accept the trust dialog."
            ]
        return [
            "Claude Code starts a project's MCP servers only once approved: accept 'mem' when it asks, or run "
            "`mem adapters install claude-code --approve` (adds it to enabledMcpjsonServers in "
            ".claude/settings.local.json)."
        ]
