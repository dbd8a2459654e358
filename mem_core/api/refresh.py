"""Keeping ``.bmad/memory/brief.md`` current: ``mem write`` and ``mem
remember`` call :func:`refresh_brief` after they stored something.

Cheap when there is no brief file (one ``stat``; nothing else is imported).
A refresh that fails never fails the write: it is one line in the hooks log
(:mod:`mem_core.files.hookslog`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

__all__ = ["refresh_brief"]

_BRIEF = os.path.join(".bmad", "memory", "brief.md")


def refresh_brief(project: str, kernel: Kernel | None = None) -> bool:
    """Rewrite the project's brief file with the budget it was written with,
    if the file exists; true when it was rewritten. Never raises."""
    path = os.path.join(project, _BRIEF)
    if not os.path.isfile(path):
        return False
    try:
        from mem_core.api.brief import write_brief, written_budget

        with open(path, encoding="utf-8", errors="replace") as fh:
            budget = written_budget(fh.readline())
        write_brief(directory=project, budget=budget, kernel=kernel)
        return True
    except Exception as exc:  # a refresh never fails the write that asked for it
        from mem_core.files.hookslog import log_line

        log_line(project, "brief", f"refreshing {_BRIEF} failed: {exc}")
        return False
