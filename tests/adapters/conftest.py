"""Fixtures of the adapter tests: a project, a throwaway HOME, a byte-exact
snapshot of a directory tree, and install/remove through the API."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

NAMES = ("claude-code", "codex-cli", "gemini-cli", "cursor", "opencode", "aider", "antigravity")


#: written by ``mem init`` and every install, kept by ``remove`` (tests/cli/test_git_files.py)
GIT_FILES = (".gitignore", ".gitattributes")
#: the project's memory: the aider adapter writes its brief there (test_adapter_aider.py)
MEMORY = ".bmad"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (``None``) under ``root``, but
    the project's git files and its memory."""
    found: dict[str, bytes | None] = {}
    for base, dirs, files in os.walk(root):
        if base == str(root) and MEMORY in dirs:
            dirs.remove(MEMORY)
        for name in dirs:
            found[os.path.relpath(os.path.join(base, name), root)] = None
        for name in files:
            if base == str(root) and name in GIT_FILES:
                continue
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found


def write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))


class Adapters:
    """``install``/``remove``/``status`` of :mod:`mem_core.api.adapters` on
    one project and one HOME, with a fresh kernel of the default plugins."""

    def __init__(self, project: Path, home: Path) -> None:
        from mem_core.kernel import Kernel, make_plugin_manager

        self.project = project
        self.home = home
        self.kernel = Kernel(make_plugin_manager(entry_points=False))

    def root(self, scope: str) -> Path:
        return self.home if scope == "user" else self.project

    def install(self, *names: str, scope: str = "project", **options: Any):
        """Writing the command ``mem`` unless told (tests/adapters/test_adapter_command.py
        tests the default)."""
        from mem_core.api.adapters import install_adapters

        options.setdefault("command", "mem")
        return install_adapters(
            str(self.project), list(names), scope=scope, home=str(self.home), kernel=self.kernel, **options
        )

    def remove(self, *names: str, scope: str = "project", **options: Any):
        from mem_core.api.adapters import remove_adapters

        return remove_adapters(
            str(self.project), list(names), scope=scope, home=str(self.home), kernel=self.kernel, **options
        )

    def status(self, scope: str = "project"):
        from mem_core.api.adapters import adapters_status

        rows = adapters_status(str(self.project), scope=scope, home=str(self.home), kernel=self.kernel).rows
        return {row["name"]: row for row in rows}

    def read(self, relative: str, scope: str = "project") -> str:
        return (self.root(scope) / relative).read_text(encoding="utf-8")

    def round_trip(self, name: str, files: dict[str, str] | None = None, scope: str = "project", **options: Any):
        """Write ``files``, install ``name`` twice (the second changes no
        byte), check it is installed, remove it: the tree is as before, byte
        for byte. Returns the tree as installed."""
        root = self.root(scope)
        write_files(root, files or {})
        before = snapshot(root)
        first = self.install(name, scope=scope, **options)
        assert first.files, "the first install changes something"
        installed = snapshot(root)
        assert installed != before
        again = self.install(name, scope=scope, **options)
        assert again.files == [] and again.diff == ""
        assert snapshot(root) == installed, "installing twice changes nothing"
        assert self.status(scope)[name]["installed"] == "yes"
        removed = self.remove(name, scope=scope)
        assert removed.files
        assert snapshot(root) == before, "remove gives every file back byte for byte"
        assert name not in self.status(scope)
        return installed


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME (also ``$HOME``, so nothing reaches the real one)."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def adapters(project: Path, home: Path) -> Adapters:
    """On a project whose ``.gitignore`` and ``.gitattributes`` are complete
    (as ``mem init`` leaves them), so an install touches the assistant's
    files only (tests/cli/test_git_files.py checks the git files)."""
    from mem_core.files.gitfiles import ensure_git_files

    ensure_git_files(str(project))
    return Adapters(project, home)


@pytest.fixture
def tree():
    """:func:`snapshot`, for the test modules."""
    return snapshot


@pytest.fixture
def put():
    """:func:`write_files`, for the test modules."""
    return write_files
