"""Aider: a ``CONVENTIONS.md`` block and ``.aider.conf.yml`` ``read:`` entries for it and the brief.

Aider has no MCP client and no lifecycle hooks: it reads the files named
in ``read:`` as read-only context, so it gets the instructions (run ``mem``
on the command line) and ``.bmad/memory/brief.md``, which install writes
(``mem brief --write``) and each ``mem write`` and ``mem remember``
refreshes; ``mem adapters status`` and ``mem doctor`` report it missing or
out of date. Project scope only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

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
        from mem_core.plugin import Block, YamlListItems, instructions

        return [
            Block(CONVENTIONS, instructions(NAME, mcp=False)),
            YamlListItems(".aider.conf.yml", "read", [CONVENTIONS, BRIEF]),
        ]

    def notes(self, target: Target) -> list[str]:
        if target.exists(BRIEF):
            return []
        return [f"Run `mem brief --write` once to create {BRIEF} (mem write and mem remember keep it current)."]

    def after_install(self, target: Target) -> list[str]:
        from mem_core.plugin import MemError, brief_state, write_brief

        try:
            if brief_state(target.project) is None:
                return []
            result = write_brief(directory=target.project)
        except MemError as exc:
            return [f"could not write {BRIEF}: {exc.message}; run `mem brief --write`"]
        return [
            f"wrote {BRIEF}, which aider reads ({result.fitted.tokens} of {result.fitted.budget} tokens; "
            "mem write and mem remember keep it current)"
        ]

    def problems(self, target: Target) -> list[str]:
        from mem_core.plugin import MemError, brief_state

        try:
            state = brief_state(target.project)
        except MemError as exc:
            return [f"{BRIEF}, which aider reads, cannot be checked: {exc.message}"]
        if state == "missing":
            return [f"{BRIEF}, which aider reads, is missing: run `mem brief --write`"]
        if state == "stale":
            return [f"{BRIEF}, which aider reads, is out of date: run `mem brief --write`"]
        return []
