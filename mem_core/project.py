"""Which directory is the project (architecture.md, "Discovery and settings").

The ``-d`` directory when given, exactly as given (absolute, symbolic links
not resolved). Without it, the nearest directory from the working directory
up that holds ``.bmad/`` or ``.agents/``, so that an agent working in
``src/auth/`` reads and writes the same memory as one at the root. The walk
stops at a git root (a directory holding ``.git``, itself still a candidate)
and below the home directory (which is never taken for a project unless it
is the working directory); with nothing found the project is the working
directory.
"""

from __future__ import annotations

import os

__all__ = ["MARKERS", "find_project", "discover"]

#: a directory holding one of these is a project root
MARKERS = (".bmad", ".agents")
GIT = ".git"


def _home() -> str | None:
    home = os.path.expanduser("~")
    return os.path.abspath(home) if home != "~" and os.path.isabs(home) else None


def discover(start: str | None = None) -> tuple[str | None, str | None]:
    """``(root, git_root)`` from ``start`` (default: the working directory)
    up: the nearest directory holding a marker, and the git root where the
    walk stopped (``None`` when it stopped at the home directory or ``/``)."""
    current = os.path.abspath(start or ".")
    home = _home()
    first = True
    while True:
        if not first and current == home:
            return None, None
        first = False
        for marker in MARKERS:
            if os.path.isdir(os.path.join(current, marker)):
                return current, current if os.path.exists(os.path.join(current, GIT)) else None
        if os.path.exists(os.path.join(current, GIT)):
            return None, current
        parent = os.path.dirname(current)
        if parent == current:
            return None, None
        current = parent


def find_project(directory: str | None = None) -> str:
    """The project directory: ``directory`` (``-d``) as an absolute path, or
    the discovered root (see the module's docstring)."""
    if directory is not None:  # as given, even "" (the working directory): -d names the project itself
        return os.path.abspath(directory)
    root, _git_root = discover()
    return root if root is not None else os.path.abspath(".")
