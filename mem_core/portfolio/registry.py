"""The portfolio file: the registered projects and the portfolio brain.

``portfolio.json`` in the user config directory of ``mem`` (the directory of
the user config file, :func:`mem_core.settings.user_config_path`: so
``$MEM_USER_CONFIG`` moves it too)::

    {
      "version": 1,
      "projects": ["/home/ada/code/shop", "/home/ada/code/api"],
      "brain": "/home/ada/brain"
    }

``projects`` are real paths (symbolic links resolved), in the order they
were added; ``brain`` is the directory whose ``memory/`` holds the shared
notes, or ``null``. Every change is made under a lock (``portfolio.json.lock``
beside it, :mod:`filelock`) and written atomically
(:func:`mem_core.files.io.atomic_write`); a file that is not a portfolio is
a one-line error naming it and is never overwritten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.layout import AGENTS_MEMORY_DIR, MEMORY_DIR

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PORTFOLIO_FILE",
    "Portfolio",
    "portfolio_path",
    "load_portfolio",
    "brain_path",
    "project_root",
    "add_projects",
    "remove_projects",
    "set_brain",
    "scan_projects",
    "is_project",
    "SKIP_DIRS",
]

PORTFOLIO_FILE = "portfolio.json"
VERSION = 1
MAX_BYTES = 4 * 1024 * 1024
#: folders ``scan`` never descends into
SKIP_DIRS = frozenset(
    ("node_modules", ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", ".tox", "__pycache__", ".cache")
)
#: what makes a directory a project for ``scan``
PROJECT_MARKS = (MEMORY_DIR, AGENTS_MEMORY_DIR)
PROJECT_CONFIG_MARK = "mem.toml"
DEFAULT_DEPTH = 4


class Portfolio:
    """The portfolio as read from its file (``path``)."""

    __slots__ = ("path", "projects", "brain")

    def __init__(self, path: str, projects: list[str], brain: str | None) -> None:
        self.path = path
        self.projects = projects
        self.brain = brain

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "brain": self.brain, "projects": list(self.projects)}

    def data(self) -> bytes:
        document = {"version": VERSION, "projects": self.projects, "brain": self.brain}
        return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def portfolio_path() -> str:
    """Where the portfolio file is (see the module)."""
    from mem_core.settings import user_config_path

    return os.path.join(os.path.dirname(user_config_path()), PORTFOLIO_FILE)


def _corrupt(path: str, why: str) -> MemError:
    return MemError(f"{path}: not a portfolio file ({why}); fix or remove it")


def load_portfolio(path: str | None = None) -> Portfolio:
    """The portfolio at ``path`` (default: :func:`portfolio_path`); an empty
    one when there is no file."""
    path = path or portfolio_path()
    from mem_core.files.io import open_regular

    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return Portfolio(path, [], None)
    except MemError:
        raise _corrupt(path, "not a regular file") from None
    except OSError as exc:
        raise MemError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _corrupt(path, "larger than 4 MiB")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _corrupt(path, "not JSON") from None
    if not isinstance(document, dict) or document.get("version") != VERSION:
        raise _corrupt(path, f"expected an object with version {VERSION}")
    projects = document.get("projects", [])
    brain = document.get("brain")
    if not isinstance(projects, list) or not all(isinstance(p, str) and os.path.isabs(p) for p in projects):
        raise _corrupt(path, "projects must be a list of absolute paths")
    if brain is not None and not (isinstance(brain, str) and os.path.isabs(brain)):
        raise _corrupt(path, "brain must be an absolute path or null")
    return Portfolio(path, list(dict.fromkeys(projects)), brain)


def brain_path() -> str | None:
    """The portfolio brain, or ``None`` (no portfolio file, or no brain in it)."""
    return load_portfolio().brain


def _update(change: Callable[[Portfolio], Any]) -> tuple[Portfolio, Any]:
    """Apply ``change`` to the portfolio under its lock and write it back
    atomically when ``change`` returns a true value."""
    from filelock import FileLock, Timeout

    from mem_core.files.io import atomic_write

    path = portfolio_path()
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise MemError(f"{directory}: cannot create: {exc.strerror or exc}") from None
    try:
        with FileLock(path + ".lock", timeout=2):
            portfolio = load_portfolio(path)
            result = change(portfolio)
            if result:
                try:
                    atomic_write(path, portfolio.data(), mode=0o600)
                except OSError as exc:
                    raise MemError(f"{path}: cannot write: {exc.strerror or exc}") from None
            return portfolio, result
    except Timeout:
        raise MemError(f"{path}.lock: the portfolio is being changed by another mem; try again") from None


def is_project(directory: str) -> bool:
    """Whether ``directory`` holds ``.bmad/memory/``, ``.agents/memory/`` or a ``mem.toml``."""
    return any(os.path.isdir(os.path.join(directory, mark)) for mark in PROJECT_MARKS) or os.path.isfile(
        os.path.join(directory, PROJECT_CONFIG_MARK)
    )


def project_root(directory: str) -> str:
    """The project ``directory`` belongs to, as :mod:`mem_core.project`
    discovers it from there (the nearest folder up holding ``.bmad/`` or
    ``.agents/``, not past a git root; else ``directory`` itself), as a real
    path. ``MemError`` when ``directory`` is not a directory."""
    from mem_core.project import discover

    path = os.path.abspath(os.path.expanduser(directory))
    if not os.path.isdir(path):
        why = "no such directory" if not os.path.lexists(path) else "not a directory"
        raise MemError(f"{directory}: {why}")
    root, _git = discover(path)
    return os.path.realpath(root if root is not None else path)


def add_projects(directories: list[str]) -> tuple[Portfolio, list[str]]:
    """Register the projects of ``directories`` (all checked before any is
    added); returns the portfolio and the roots newly added (an already
    registered one is not an error)."""
    roots = list(dict.fromkeys(project_root(d) for d in directories))

    def change(portfolio: Portfolio) -> list[str]:
        added = [root for root in roots if root not in portfolio.projects]
        portfolio.projects.extend(added)
        return added

    return _update(change)  # type: ignore[return-value]


def _registered_form(directory: str) -> str:
    path = os.path.abspath(os.path.expanduser(directory))
    return os.path.realpath(path) if os.path.lexists(path) else os.path.normpath(path)


def remove_projects(directories: list[str]) -> tuple[Portfolio, list[str]]:
    """Unregister ``directories`` (their paths, or the real paths they
    resolve to; a project that is gone can still be removed). Any of them
    not registered: ``MemError``, and nothing is removed."""

    def change(portfolio: Portfolio) -> list[str]:
        removed: list[str] = []
        for directory in directories:
            candidates = {_registered_form(directory), os.path.normpath(os.path.abspath(directory))}
            found = [p for p in portfolio.projects if p in candidates]
            if not found:
                raise MemError(f"{directory}: not a registered project (see mem portfolio list)")
            removed.extend(p for p in found if p not in removed)
        portfolio.projects[:] = [p for p in portfolio.projects if p not in removed]
        return removed

    return _update(change)  # type: ignore[return-value]


def set_brain(directory: str | None) -> Portfolio:
    """Make ``directory`` (an existing directory; its ``memory/`` holds the
    brain's notes) the portfolio brain; ``None`` unsets it."""
    brain = None
    if directory is not None:
        path = os.path.abspath(os.path.expanduser(directory))
        if not os.path.isdir(path):
            why = "no such directory" if not os.path.lexists(path) else "not a directory"
            raise MemError(f"{directory}: {why}")
        brain = os.path.realpath(path)

    def change(portfolio: Portfolio) -> bool:
        if portfolio.brain == brain:
            return False
        portfolio.brain = brain
        return True

    return _update(change)[0]


def scan_projects(directory: str, depth: int = DEFAULT_DEPTH) -> list[str]:
    """The projects under ``directory`` (itself included), as real paths in
    walk order (sorted names): a folder holding ``.bmad/memory/``,
    ``.agents/memory/`` or a ``mem.toml`` is a project and is not descended
    into; :data:`SKIP_DIRS`, hidden folders, virtual environments (a
    ``pyvenv.cfg``) and symbolic links are never entered; at most ``depth`` levels below ``directory``."""
    if depth < 0:
        raise MemError("--depth must be a whole number >= 0")
    start = os.path.abspath(os.path.expanduser(directory))
    if not os.path.isdir(start):
        why = "no such directory" if not os.path.lexists(start) else "not a directory"
        raise MemError(f"{directory}: {why}")
    return list(_walk(os.path.realpath(start), depth))


def _walk(directory: str, depth: int) -> Iterator[str]:
    if is_project(directory):
        yield directory
        return
    if depth == 0:
        return
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name in SKIP_DIRS or name.startswith("."):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        if os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
            continue  # a virtual environment, whatever its name
        yield from _walk(entry.path, depth - 1)
