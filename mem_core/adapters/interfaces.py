"""The assistant-adapter plugin interface (``mem_register_adapters``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

__all__ = ["Adapter"]


class Adapter(ABC):
    """Wires ``mem`` into one coding assistant (Claude Code, Codex CLI …):
    its instruction file, its lifecycle hooks, its MCP server entry.

    ``name`` is what ``--assistant`` takes; ``title`` the assistant's own
    name. :meth:`files` says which project files the adapter manages, so that
    a person can see what it will touch before it does.

    Example usage::

        from mem_core.plugin import Adapter, hookimpl

        class Notepad(Adapter):
            name = "notepad"
            title = "Notepad Agent"

            def files(self, project):
                return ["NOTEPAD.md"]

        @hookimpl
        def mem_register_adapters():
            return [Notepad]
    """

    name: ClassVar[str]
    title: ClassVar[str] = ""
    help: ClassVar[str] = ""

    @abstractmethod
    def files(self, project: str) -> list[str]:
        """The project-relative paths this adapter writes or edits."""
