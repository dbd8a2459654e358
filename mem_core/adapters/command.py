"""The command an assistant runs to reach ``mem``: chosen at install, read
back from the installed files, and checked by running it.

An assistant starts ``mem`` with its own ``PATH``, often not the shell's
that installed it (a virtual environment not activated there). So install
writes ``mem`` only when ``mem`` on ``PATH`` is the running installation,
else the absolute path of the running ``mem``; ``--command`` chooses.
``mem adapters status`` and ``mem doctor`` run ``<command> --version``.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError

if TYPE_CHECKING:
    from collections.abc import Callable

    from mem_core.adapters.edits import Edit

__all__ = [
    "running_mem",
    "parse_command",
    "command_line",
    "check_command",
    "command_fix",
    "installed_command",
    "TIMEOUT",
]

#: seconds ``<command> --version`` may take before it counts as not running
TIMEOUT = 20.0
#: what a server entry's arguments end with (``mem mcp``)
_SERVER_ARGS = ("mcp",)


def installed_script() -> str | None:
    """The ``mem`` program of this installation: the running one
    (``sys.argv[0]``), else the console script beside this interpreter."""
    import sysconfig

    name = "mem.exe" if os.name == "nt" else "mem"
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == name and os.path.isfile(argv0):
        return os.path.abspath(argv0)
    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(scripts, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def running_mem() -> list[str]:
    """``["mem"]`` when ``mem`` on ``PATH`` is this installation's, else the
    absolute path of this installation's ``mem``, else this Python running
    ``mem_cli``."""
    import shutil

    script = installed_script()
    if script is None:
        return [os.path.abspath(sys.executable), "-m", "mem_cli"]
    found = shutil.which("mem")
    try:
        if found and os.path.samefile(found, script):
            return ["mem"]
    except OSError:
        pass
    return [script]


def parse_command(text: str) -> list[str]:
    """``--command``'s value as a command line (shell quoting)."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise MemError(f"--command: {exc}") from None
    if not argv:
        raise MemError("--command takes the command that runs mem (mem, /path/to/venv/bin/mem …)")
    return argv


def command_line(argv: list[str] | tuple[str, ...]) -> str:
    return shlex.join(argv)


def check_command(argv: list[str], timeout: float = TIMEOUT) -> str | None:
    """Why ``<argv> --version`` does not run ``mem`` (``None``: it does), with
    this process's ``PATH``."""
    import subprocess

    try:
        done = subprocess.run(
            [*argv, "--version"], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        return "not found" + (" on PATH" if os.sep not in argv[0] else "")
    except PermissionError:
        return "not executable"
    except subprocess.TimeoutExpired:
        return f"no answer in {timeout:.0f} s"
    except OSError as exc:
        return exc.strerror or str(exc)
    answer = (done.stdout.decode("utf-8", "replace").strip().splitlines() or [""])[0]
    if done.returncode != 0:
        why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        return f"exit {done.returncode}" + (f": {why}" if why else "")
    if not answer.startswith("mem "):
        return f"it printed {answer[:60]!r}, not mem's version"
    return None


def command_fix(adapter: str) -> str:
    """What to do when the installed command does not run."""
    return (
        f"run `mem adapters install {adapter}` with the mem you use (it writes its absolute path when that mem "
        f"is not the one on PATH), or choose with `mem adapters install {adapter} --command /path/to/mem`"
    )


def installed_command(edits: list[Edit], read: Callable[[Edit], Any]) -> list[str] | None:
    """The ``mem`` command of an installed adapter, from its MCP server
    entry (the first edit whose value has a ``command``; ``read(edit)``: the
    value installed there, ``None`` if none)."""
    for edit in edits:
        value = getattr(edit, "value", None)
        if not isinstance(value, dict) or "command" not in value:
            continue
        found = read(edit)
        if not isinstance(found, dict):
            continue
        command, args = found.get("command"), found.get("args") or []
        argv = list(command) if isinstance(command, list) else [command, *args]
        if not all(isinstance(word, str) for word in argv):
            continue
        if tuple(argv[-len(_SERVER_ARGS) :]) == _SERVER_ARGS:
            argv = argv[: -len(_SERVER_ARGS)]
        return argv or None
    return None
