"""Aider: a ``CONVENTIONS.md`` block and ``.aider.conf.yml`` ``read:`` entries for it and the brief.

Aider has no MCP client and no lifecycle hooks: it reads the files named
in ``read:`` as read-only context, so it gets the instructions (run ``mem``
on the command line) and ``.bmad/memory/brief.md``, which ``mem brief
--write`` keeps current (each ``mem write`` and ``mem remember`` refreshes
it). Project scope only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.adapters.interfaces import Adapter
from mem_core.plugin import hookimpl

if TYPE_CHECKING:
    from mem_core.adapters.edits import Edit
    from mem_core.adapters.interfaces import Target

NAME = "aider"
CONVENTIONS = "CONVENTIONS.md"
BRIEF = ".bmad/memory/brief.md"


class Aider(Adapter):
    name = NAME
    title = "Aider"
    help = "CONVENTIONS.md block; .aider.conf.yml read: CONVENTIONS.md and the brief .bmad/memory/brief.md."
    markers = (".aider.conf.yml", ".aider.chat.history.md")
    programs = ("aider",)
    scopes = ("project",)

    def edits(self, target: Target) -> list[Edit]:
        from mem_core.adapters.edits import Block, YamlListItems
        from mem_core.adapters.instructions import instructions

        return [
            Block(CONVENTIONS, instructions(NAME, mcp=False)),
            YamlListItems(".aider.conf.yml", "read", [CONVENTIONS, BRIEF]),
        ]

    def notes(self, target: Target) -> list[str]:
        if target.exists(BRIEF):
            return []
        return [f"Run `mem brief --write` once to create {BRIEF} (mem write and mem remember keep it current)."]


@hookimpl
def mem_register_adapters() -> list[type[Adapter]]:
    return [Aider]
