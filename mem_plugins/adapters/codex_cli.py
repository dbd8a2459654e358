"""Codex CLI: ``AGENTS.md``, ``[mcp_servers.mem]`` in ``.codex/config.toml``, hooks in ``.codex/hooks.json``.

With ``--scope user``: the same under ``~/.codex/``. Codex reads a
project's ``.codex/`` only in a trusted project. ``required = true`` makes
Codex wait for the server (a first request can otherwise leave before it is
up) and ``default_tools_approval_mode = "approve"`` lets a headless run call
its tools. ``Stop`` (the end of a turn; Codex has no session-end event)
runs the session-end hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "codex-cli"
EVENTS = (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt-submit"), ("Stop", "session-end"))
#: besides the command: Codex waits for the server, and a headless run may call its tools
SERVER = {"required": True, "default_tools_approval_mode": "approve"}


class CodexCli(Adapter):
    name = NAME
    title = "Codex CLI"
    help = "AGENTS.md block, [mcp_servers.mem] in .codex/config.toml, SessionStart/UserPromptSubmit/Stop hooks."
    markers = (".codex",)
    programs = ("codex",)

    def edits(self, target: Target) -> list[Edit]:
        from functools import partial

        from mem_core.plugin import Block, JsonItem, TomlTable, hook_command, instructions, is_hook_command

        ours = partial(is_hook_command, assistant=NAME)
        command, args = target.mcp_server()
        edits: list[Edit] = [
            Block(".codex/AGENTS.md" if target.user else "AGENTS.md", instructions(NAME)),
            TomlTable(".codex/config.toml", ("mcp_servers", "mem"), {"command": command, "args": args, **SERVER}),
        ]
        for event, mem_event in EVENTS:
            hook = {"type": "command", "command": hook_command(mem_event, NAME, target.mem_argv()), "timeout": 10}
            edits.append(JsonItem(".codex/hooks.json", ("hooks", event), {"hooks": [hook]}, ours))
        return edits

    def notes(self, target: Target) -> list[str]:
        if target.user:
            return []
        return [
            "Codex reads .codex/config.toml and .codex/hooks.json only in a trusted project: trust this project "
            f'when Codex asks (it records [projects."{target.project}"] trust_level = "trusted" in ~/.codex/config.toml).'
        ]
