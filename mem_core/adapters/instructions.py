"""The instruction block every adapter writes, and the hook command lines.

One text for the assistants that reach ``mem`` through its MCP server (so
that ``AGENTS.md``, shared by Codex CLI, OpenCode and Antigravity, holds one
block whichever of them installed it), one for those that run the command
line (Aider).
"""

from __future__ import annotations

from typing import Any

__all__ = ["instructions", "hook_command", "is_hook_command", "HOOK_EVENTS", "MCP_ARGS"]

#: ``mem hook <event>``: the three lifecycle events every hook configuration maps to
HOOK_EVENTS = ("session-start", "prompt-submit", "session-end")

#: the MCP server, named ``mem`` in every assistant's configuration
MCP_ARGS = ["mcp"]

_MCP = """\
## Project memory (mem)

This project keeps its memory with `mem`; its tools come from the `mem` MCP server.
- At the start of a session, read the brief (the session brief in your context, else the `brief` tool).
- Before you change an area, call `recall` with words about it (feature, file, error) and follow the decisions and lessons it returns.
- When a task ends, call `write` once: what you attempted and its outcome (success, failure, partial, abandoned).
- Keep a durable fact or decision with `remember`; `reinforce` a pattern that worked.
- `mem verify` and `--as-user` are for the human: never confirm a memory or store one as the user yourself.
"""

_CLI = """\
## Project memory (mem)

This project keeps its memory with `mem` (a command line tool); `.bmad/memory/brief.md` is its brief for this session.
- Before you change an area, run `mem recall <words about it>` and follow the decisions and lessons it returns.
- When a task ends, run `mem write --agent {name} --cli {name} --task "<what you attempted>" --outcome success|failure|partial|abandoned`.
- Keep a durable fact or decision with `mem remember`; `mem reinforce --pattern <id>` a pattern that worked.
- `mem verify` and `--as-user` are for the human: never confirm a memory or store one as the user yourself.
"""


def instructions(name: str, *, mcp: bool = True) -> str:
    """The block's text for assistant ``name``: through the MCP tools, or
    (``mcp=False``) through the command line."""
    return _MCP if mcp else _CLI.format(name=name)


def hook_command(event: str, assistant: str, mem: list[str] | tuple[str, ...] = ("mem",)) -> str:
    """The command line an assistant's hook runs (``mem hook session-start
    --assistant claude-code``); ``mem``: the command that runs ``mem``
    (:meth:`~mem_core.adapters.interfaces.Target.mem_argv`)."""
    import shlex

    return f"{shlex.join(mem)} hook {event} --assistant {assistant}"


def is_hook_command(value: Any, assistant: str) -> bool:
    """Whether a JSON value (a hook entry) runs one of ``mem``'s hooks for ``assistant``."""
    if isinstance(value, str):
        words = value.split()
        return len(words) >= 4 and words[-2:] == ["--assistant", assistant] and "hook" in words
    if isinstance(value, dict):
        return any(is_hook_command(item, assistant) for item in value.values())
    if isinstance(value, list):
        return any(is_hook_command(item, assistant) for item in value)
    return False
