"""The assistant-adapter plugin interface (``mem_register_adapters``)."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from mem_core.adapters.edits import Edit

__all__ = ["Adapter", "Target", "SCOPES"]

#: where an adapter writes: the project's files, or the user's (under the home directory)
SCOPES = ("project", "user")


class Target:
    """Where an adapter installs, read-only: ``scope`` is ``project`` (files
    under ``project``) or ``user`` (files under ``home``); :attr:`root` is
    the directory the adapter's paths are relative to. ``approve``: the
    user asked to approve what the assistant would otherwise ask about
    (``install --approve``)."""

    __slots__ = ("_project", "_home", "_scope", "_approve", "_command")

    def __init__(
        self,
        project: str,
        home: str,
        scope: str = "project",
        *,
        approve: bool = False,
        command: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self._project = os.path.abspath(project)
        self._home = os.path.abspath(home)
        self._scope = scope
        self._approve = approve
        self._command = tuple(command) if command else None

    def with_command(self, command: list[str] | tuple[str, ...]) -> Target:
        """This target, writing ``command`` to run ``mem``."""
        return Target(self._project, self._home, self._scope, approve=self._approve, command=command)

    @property
    def project(self) -> str:
        return self._project

    @property
    def home(self) -> str:
        return self._home

    @property
    def scope(self) -> str:
        return self._scope

    @property
    def approve(self) -> bool:
        return self._approve

    @property
    def user(self) -> bool:
        return self._scope == "user"

    @property
    def root(self) -> str:
        return self._home if self.user else self._project

    def label(self, relative: str) -> str:
        """A path as messages and diffs show it (``~/`` for the home directory)."""
        return "~/" + relative if self.user else relative

    def exists(self, relative: str) -> bool:
        return os.path.lexists(os.path.join(self.root, relative))

    def path(self, relative: str) -> str:
        return os.path.join(self.root, *relative.split("/"))

    def mem_argv(self) -> list[str]:
        """The command that runs ``mem``, as the adapters write it: the one
        chosen (``install --command``), else ``mem`` when ``mem`` on ``PATH``
        is the running installation, else the running ``mem``'s absolute
        path (:func:`mem_core.adapters.command.running_mem`)."""
        if self._command:
            return list(self._command)
        from mem_core.adapters.command import running_mem

        return running_mem()

    def mcp_server(self) -> tuple[str, list[str]]:
        """The MCP server's ``command`` and ``args`` (``mem`` ``["mcp"]``)."""
        from mem_core.adapters.instructions import MCP_ARGS

        argv = self.mem_argv()
        return argv[0], [*argv[1:], *MCP_ARGS]

    def absolute_mem_argv(self) -> list[str]:
        """:meth:`mem_argv` with an absolute program, for an assistant that
        takes absolute paths only (Antigravity): a program not found on
        ``PATH`` gives way to the running ``mem``."""
        import shutil

        from mem_core.adapters.command import running_mem

        argv = self.mem_argv()
        if os.path.isabs(argv[0]):
            return argv
        found = shutil.which(argv[0])
        return [os.path.abspath(found), *argv[1:]] if found else running_mem()


class Adapter(ABC):
    """Wires ``mem`` into one coding assistant (Claude Code, Codex CLI …):
    its instruction file, its lifecycle hooks, its MCP server entry.

    ``name`` is what ``--assistant`` takes; ``title`` the assistant's own
    name. :meth:`edits` says what the adapter adds to which file for a
    :class:`Target` (the project, or the user's files): each one an
    :class:`~mem_core.adapters.edits.Edit` that ``mem adapters install``
    applies and ``mem adapters remove`` takes out again, byte for byte.
    ``markers`` (files or directories under the target's root) and
    ``programs`` (executables on ``PATH``) tell whether the assistant is
    there (:meth:`detect`); :meth:`notes` is what the user must still do
    after an install (approve, trust).

    Example usage::

        from mem_core.plugin import Adapter, hookimpl
        from mem_core.adapters.edits import Block

        class Notepad(Adapter):
            name = "notepad"
            title = "Notepad Agent"
            markers = (".notepad",)

            def edits(self, target):
                return [Block("NOTEPAD.md", "Call `mem recall` before you change an area.")]

        @hookimpl
        def mem_register_adapters():
            return [Notepad]
    """

    name: ClassVar[str]
    title: ClassVar[str] = ""
    help: ClassVar[str] = ""
    #: files or directories (relative to the target's root) whose presence means the assistant is used
    markers: ClassVar[tuple[str, ...]] = ()
    #: executables whose presence on ``PATH`` means the assistant is installed
    programs: ClassVar[tuple[str, ...]] = ()
    #: the scopes it can install in (an assistant without user-level files: ``("project",)``)
    scopes: ClassVar[tuple[str, ...]] = SCOPES

    @abstractmethod
    def edits(self, target: Target) -> list[Edit]:
        """What this adapter writes for ``target``, in order."""

    def files(self, project: str, *, scope: str = "project", home: str | None = None) -> list[str]:
        """The paths (relative to the project, or ``~/…`` for the user's
        files) that this adapter writes or edits, each once."""
        target = Target(project, home or os.path.expanduser("~"), scope)
        return list(dict.fromkeys(target.label(edit.path) for edit in self.edits(target)))

    def detect(self, target: Target) -> bool:
        """Whether the assistant seems to be used here: one of its
        :attr:`markers` exists in the project or the home directory, or one
        of its :attr:`programs` is on ``PATH``."""
        import shutil

        roots = dict.fromkeys((target.project, target.home))
        return any(os.path.lexists(os.path.join(root, m)) for root in roots for m in self.markers) or any(
            shutil.which(program) for program in self.programs
        )

    def notes(self, target: Target) -> list[str]:
        """What the user must do themselves after an install (one line each)."""
        return []

    def after_install(self, target: Target) -> list[str]:
        """What the adapter does once its files are written (not on a dry
        run): one line each of what it did. Aider writes the brief its
        ``.aider.conf.yml`` reads."""
        return []

    def problems(self, target: Target) -> list[str]:
        """What keeps the installed adapter from working, beyond its own files
        (a file the assistant reads that is missing): one line each, with
        the fix. ``mem adapters status`` and ``mem doctor`` report them."""
        return []
