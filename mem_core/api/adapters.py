"""The API behind ``mem adapters``: list, install, remove, status.

Every command reads each file it touches once, runs every edit of every
named adapter on those texts in memory, and only then writes: each changed
file through a fsynced temporary file renamed over it, each file left empty
of everything but ``mem``'s deleted, and the directories that leaves empty
removed. A file that cannot be edited (not valid JSON or TOML, a broken
marker block) stops the command before anything is written. ``dry_run``
writes nothing and gives the unified diff of what would change.

Removing one adapter keeps what another installed adapter shares with it
(the ``mem`` block of ``AGENTS.md`` stays while Codex CLI, OpenCode or
Antigravity still uses it).
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING, Any

from mem_core.adapters.interfaces import SCOPES, Adapter, Target
from mem_core.errors import MemError
from mem_core.files.io import atomic_write

if TYPE_CHECKING:
    from mem_core.adapters.edits import Edit
    from mem_core.kernel import Kernel

__all__ = [
    "AdapterChange",
    "AdapterReport",
    "install_adapters",
    "remove_adapters",
    "list_adapters",
    "adapters_status",
]


def _kernel(kernel: Kernel | None) -> Kernel:
    if kernel is not None:
        return kernel
    from mem_core.kernel import Kernel

    return Kernel()


def _target(
    project: str | None, scope: str, home: str | None, approve: bool = False, command: str | None = None
) -> Target:
    if scope not in SCOPES:
        raise MemError(f"unknown scope '{scope}' (expected project | user)")
    from mem_core.project import find_project

    where = find_project(project)
    if not os.path.isdir(where):
        raise MemError(f"project directory not found: {where}")
    home = home if home is not None else os.path.expanduser("~")
    if scope == "user" and (not os.path.isabs(home) or not os.path.isdir(home)):
        raise MemError(f"home directory not found: {home}")
    if command is not None:
        from mem_core.adapters.command import parse_command

        return Target(where, home, scope, approve=approve, command=parse_command(command))
    return Target(where, home, scope, approve=approve)


def _adapters(kernel: Kernel, names: list[str] | tuple[str, ...] | None) -> list[Adapter]:
    registry = kernel.adapters
    known = registry.names()
    if names is None:
        return [registry.get(name)() for name in known]
    if not names:
        raise MemError("name at least one adapter: " + " | ".join(known))
    chosen = []
    for name in dict.fromkeys(names):
        if name not in registry:
            raise MemError(f"unknown adapter '{name}' (expected {' | '.join(known)})")
        chosen.append(registry.get(name)())
    return chosen


def _check_scope(adapters: list[Adapter], target: Target) -> None:
    for adapter in adapters:
        if target.scope not in adapter.scopes:
            raise MemError(
                f"{adapter.name} has no {target.scope}-level files; install it with --scope {adapter.scopes[0]}"
            )


class _Files:
    """The texts of the files one command touches: read once, edited in memory, written at the end."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.before: dict[str, str | None] = {}
        self.after: dict[str, str | None] = {}
        self.labels: dict[str, str] = {}

    def _real(self, relative: str) -> str:
        path = self.target.path(relative)
        return os.path.realpath(path) if os.path.islink(path) else path  # CLAUDE.md -> AGENTS.md edits the target

    def get(self, relative: str) -> str | None:
        path = self._real(relative)
        if path not in self.before:
            self.labels[path] = self.target.label(relative)
            self.before[path] = self.after[path] = _read(path, self.labels[path])
        return self.after[path]

    def run(self, edit: Edit, action: str) -> None:
        path = self._real(edit.path)
        text = self.get(edit.path)
        label = self.labels[path]
        self.after[path] = edit.apply(text, label) if action == "install" else edit.revert(text, label)

    def replace(self, relative: str, text: str) -> None:
        """Set the new text of one file (not an adapter's edit: the git files)."""
        self.get(relative)
        self.after[self._real(relative)] = text

    def present(self, edit: Edit) -> bool:
        path = self._real(edit.path)
        return edit.present(self.get(edit.path), self.labels[path])

    def installed(self, edit: Edit) -> Any:
        path = self._real(edit.path)
        return edit.installed(self.get(edit.path), self.labels[path])

    def edits(self, adapter: Adapter, target: Target) -> tuple[list[Edit], list[str] | None]:
        """``adapter``'s edits as installed here: with the command its files
        hold (so another command than the default still counts as installed),
        and that command (``None``: none installed)."""
        from mem_core.adapters.command import installed_command

        edits = adapter.edits(target)
        try:
            command = installed_command(edits, self.installed)
        except MemError:
            return edits, None
        if command is not None and command != target.mem_argv():
            edits = adapter.edits(target.with_command(command))
        return edits, command

    def changes(self) -> list[tuple[str, str, str | None, str | None]]:
        """``(path, label, before, after)`` of each changed file, in the order first touched."""
        return [
            (p, self.labels[p], self.before[p], self.after[p]) for p in self.before if self.before[p] != self.after[p]
        ]


def _read(path: str, label: str) -> str | None:
    if not os.path.lexists(path):
        return None
    if not os.path.isfile(path):
        raise MemError(f"{label} is not a regular file; nothing was changed")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise MemError(f"cannot read {label}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(f"{label} is not UTF-8 text; nothing was changed") from None


def _diff(path: str, label: str, before: str | None, after: str | None) -> str:
    """The unified diff of one file: ``a/``, ``b/`` and the project-relative
    path; the absolute path for a user's file."""
    old = [] if before is None else before.splitlines(keepends=True)
    new = [] if after is None else after.splitlines(keepends=True)
    a, b = (path, path) if label.startswith("~/") else (f"a/{label}", f"b/{label}")
    lines = difflib.unified_diff(old, new, "/dev/null" if before is None else a, "/dev/null" if after is None else b)
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _write(path: str, text: str, root: str) -> None:
    _makedirs(os.path.dirname(path), root)
    try:
        atomic_write(path, text.encode("utf-8"))  # the file keeps its permissions
    except OSError as exc:
        raise MemError(f"cannot write {path}: {exc.strerror or exc}") from None


def _makedirs(directory: str, root: str) -> None:
    if os.path.isdir(directory):
        return
    parent = os.path.dirname(directory)
    if parent != directory and directory != root:
        _makedirs(parent, root)
    try:
        os.mkdir(directory)
    except FileExistsError:
        pass
    except OSError as exc:
        raise MemError(f"cannot create {directory}: {exc.strerror or exc}") from None


def _delete(path: str, root: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise MemError(f"cannot delete {path}: {exc.strerror or exc}") from None
    directory = os.path.dirname(path)
    root = os.path.abspath(root)
    while directory.startswith(root + os.sep) and directory != root:
        try:
            os.rmdir(directory)  # only an empty one
        except OSError:
            break
        directory = os.path.dirname(directory)


# -- results ----------------------------------------------------------------------------


class AdapterChange:
    """What ``install`` or ``remove`` did (or, with ``dry_run``, would do):
    each file changed (``created``, ``updated``, ``deleted``), each
    adapter's files, what the user must still do, and the unified diff."""

    def __init__(
        self,
        action: str,
        target: Target,
        dry_run: bool,
        adapters: list[dict[str, Any]],
        files: list[dict[str, str]],
        diff: str,
    ) -> None:
        self.action = action
        self.target = target
        self.dry_run = dry_run
        self.adapters = adapters
        self.files = files
        self.diff = diff

    @property
    def changed(self) -> bool:
        return bool(self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "project": self.target.project,
            "scope": self.target.scope,
            "dryRun": self.dry_run,
            "adapters": self.adapters,
            "files": self.files,
            "diff": self.diff,
        }


class AdapterReport:
    """Every adapter (``list``) or the installed ones (``status``): name,
    title, detected, installed (``yes`` | ``partly`` | ``no``), its files."""

    def __init__(self, target: Target, rows: list[dict[str, Any]]) -> None:
        self.target = target
        self.rows = rows

    def to_json(self) -> dict[str, Any]:
        return {"project": self.target.project, "scope": self.target.scope, "adapters": self.rows}


def _state(files: _Files, edits: list[Edit], shared: set[Any]) -> str:
    """``yes`` (every edit there), ``partly`` (some, not counting what other
    adapters share: ``AGENTS.md``'s block alone does not make Codex CLI
    installed) or ``no``; ``unknown: …`` when a file cannot be read."""
    try:
        present = [files.present(edit) for edit in edits]
    except MemError as exc:
        return f"unknown: {exc.message}"
    if present and all(present):
        return "yes"
    return "partly" if any(p for p, e in zip(present, edits, strict=True) if e.key not in shared) else "no"


def _change(action: str, target: Target, files: _Files, adapters: list[Adapter], dry_run: bool) -> AdapterChange:
    changes = files.changes()
    rows = []
    for _path, label, before, after in changes:
        kind = "created" if before is None else "deleted" if after is None else "updated"
        rows.append({"path": label, "change": kind})
    changed = {row["path"] for row in rows}
    summary = []
    for adapter in adapters:
        labels = list(dict.fromkeys(target.label(edit.path) for edit in adapter.edits(target)))
        summary.append(
            {
                "name": adapter.name,
                "files": [label for label in labels if label in changed],
                "notes": adapter.notes(target) if action == "install" else [],
            }
        )
    diff = "".join(_diff(path, label, before, after) for path, label, before, after in changes)
    if not dry_run:
        for path, _label, _before, after in changes:
            if after is None:
                _delete(path, target.root)
            else:
                _write(path, after, target.root)
    return AdapterChange(action, target, dry_run, summary, rows, diff)


# -- the commands -----------------------------------------------------------------------


def install_adapters(
    project: str | None,
    names: list[str] | tuple[str, ...],
    *,
    scope: str = "project",
    home: str | None = None,
    dry_run: bool = False,
    approve: bool = False,
    command: str | None = None,
    kernel: Kernel | None = None,
) -> AdapterChange:
    """Wire ``mem`` into the named assistants: their instruction blocks,
    hooks and MCP entries, in the project (``scope="project"``) or in the
    user's files under ``home`` (``scope="user"``; default: the home
    directory). ``command`` runs ``mem`` (a command line; default:
    :meth:`Target.mem_argv`). ``approve`` also writes what the assistant would otherwise
    ask about (Claude Code's approval of the project's ``mem`` server).
    In the project, ``.gitignore`` and ``.gitattributes`` get the lines they
    lack (:mod:`mem_core.files.gitfiles`; ``remove`` leaves them).
    Installing again changes nothing."""
    target = _target(project, scope, home, approve, command)
    adapters = _adapters(_kernel(kernel), names)
    _check_scope(adapters, target)
    files = _Files(target)
    for adapter in adapters:
        for edit in adapter.edits(target):
            files.run(edit, "install")
    if not target.user:
        from mem_core.files.gitfiles import GIT_FILES, git_file_texts

        for name, text in git_file_texts({name: files.get(name) for name in GIT_FILES}).items():
            files.replace(name, text)
    change = _change("install", target, files, adapters, dry_run)
    if not dry_run:
        for adapter, row in zip(adapters, change.adapters, strict=True):
            row["done"] = adapter.after_install(target)
            row["notes"] = adapter.notes(target)  # after what it did
    return change


def remove_adapters(
    project: str | None,
    names: list[str] | tuple[str, ...],
    *,
    scope: str = "project",
    home: str | None = None,
    dry_run: bool = False,
    kernel: Kernel | None = None,
) -> AdapterChange:
    """Take out everything the named adapters installed (for ``scope``),
    keeping what another installed adapter shares; a file that only ``mem``
    touched comes back byte for byte, a file it created is deleted."""
    target = _target(project, scope, home, approve=True)  # approve: so its edits include the approval
    kernel = _kernel(kernel)
    adapters = _adapters(kernel, names)
    _check_scope(adapters, target)
    removing = {adapter.name for adapter in adapters}
    files = _Files(target)
    mine = {edit.key for adapter in adapters for edit in files.edits(adapter, target)[0]}
    kept: set[Any] = set()
    for other in _adapters(kernel, None):
        if other.name in removing or target.scope not in other.scopes:
            continue
        edits = files.edits(other, target)[0]
        if any(files.present(edit) for edit in edits if edit.key not in mine):
            kept.update(edit.key for edit in edits)
    for adapter in adapters:
        for edit in files.edits(adapter, target)[0]:
            if edit.key not in kept:
                files.run(edit, "remove")
    return _change("remove", target, files, adapters, dry_run)


def _rows(target: Target, adapters: list[Adapter], only_installed: bool) -> list[dict[str, Any]]:
    from mem_core.adapters.command import check_command, command_fix, command_line

    files = _Files(target)
    rows = []
    usable = [adapter for adapter in adapters if target.scope in adapter.scopes]
    installed = {adapter.name: files.edits(adapter, target) for adapter in usable}
    counts: dict[Any, int] = {}
    for adapter in usable:
        for key in {edit.key for edit in installed[adapter.name][0]}:
            counts[key] = counts.get(key, 0) + 1
    shared = {key for key, count in counts.items() if count > 1}
    checked: dict[str, str | None] = {}
    for adapter in usable:
        edits, command = installed[adapter.name]
        state = _state(files, edits, shared)
        if only_installed and state == "no":
            continue
        row: dict[str, Any] = {
            "name": adapter.name,
            "title": adapter.title,
            "detected": adapter.detect(target),
            "installed": state,
            "files": list(dict.fromkeys(target.label(edit.path) for edit in edits)),
        }
        if only_installed:
            row["missing"] = (
                []
                if state.startswith("unknown")
                else list(dict.fromkeys(target.label(e.path) for e in edits if not files.present(e)))
            )
            row["notes"] = adapter.notes(target)
            if command is not None:
                line = command_line(command)
                if line not in checked:
                    checked[line] = check_command(command)
                row["command"] = {"line": line, "problem": checked[line], "fix": command_fix(adapter.name)}
            else:
                row["command"] = None
            row["problems"] = adapter.problems(target)
        rows.append(row)
    return rows


def list_adapters(
    project: str | None = None, *, scope: str = "project", home: str | None = None, kernel: Kernel | None = None
) -> AdapterReport:
    """Every registered adapter: detected, installed, the files it would touch."""
    target = _target(project, scope, home)
    return AdapterReport(target, _rows(target, _adapters(_kernel(kernel), None), False))


def adapters_status(
    project: str | None = None, *, scope: str = "project", home: str | None = None, kernel: Kernel | None = None
) -> AdapterReport:
    """The adapters installed (wholly or partly): their files, what is missing, what the user must still do."""
    target = _target(project, scope, home)
    return AdapterReport(target, _rows(target, _adapters(_kernel(kernel), None), True))
