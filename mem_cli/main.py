"""The ``mem`` entry point.

Every command is declared once, in its module (``COMMAND``). The five
agent-facing actions are parsed from their declarations by
:mod:`mem_cli.compat` and run directly (no typer import, no plugin manager
on that path unless an option is not declared and may be a plugin's reward
signal); so are the plain lines of the other declared commands when only
the default plugins take part. ``--help``, shell completion, every other
line and the commands plugins add go to the typer application made from
the same declarations (:mod:`mem_cli.app`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import ACTIONS, COMMANDS
from mem_cli.compat import Parsed, declared, parse, parse_command
from mem_cli.run import run_action, usage_error

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

__all__ = ["main", "COMMANDS"]

_COMPLETION = "--install-completion"
#: the variable a shell's completion script sets when it asks ``mem`` for completions
_COMPLETE_VAR = "_MEM_COMPLETE"


def _node_text(arg: str) -> str:
    """An argument as Node.js sees it: bytes that are not UTF-8 (which Python
    keeps as lone surrogates) become U+FFFD."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:  # a lone surrogate no command line gives (a caller's argv)
            return arg.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return arg


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mem`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    args = [_node_text(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    if not args or _COMPLETION in args or "--show-completion" in args or _COMPLETE_VAR in os.environ:
        # `mem` alone shows the help; shell completion is typer's
        from mem_cli.app import run_typer

        return run_typer(args or ["--help"], "", "--json" in args)
    if args == ["--version"]:  # as typer's --version prints it, without building it or the kernel
        from mem_core.version import __version__

        output.out(f"mem {__version__}")
        return 0
    if args[:1] == ["hook"] and "--help" not in args and "-h" not in args:
        # a hook runs at every prompt: no typer, and it always exits 0 (it fails open)
        from mem_cli.commands.hook import run_fast

        return run_fast(args[1:])
    if args[:1] == ["mcp"] and not any(arg in ("--help", "-h") or arg.startswith("--http") for arg in args):
        # an assistant waits for the handshake: answer it while the rest loads (mem_core.mcp.early)
        from mem_core.mcp.early import start

        start()
    parsed = parse(args)
    kernel: Kernel | None = None
    if parsed.unknown_long and (parsed.action is None or parsed.action in ACTIONS or parsed.action not in COMMANDS):
        # an option the table does not know: perhaps a plugin's reward signal
        kernel, parsed = _with_plugin_signals(args, parsed)
    action = parsed.action
    if action is None:
        if parsed.help or "--version" in args:
            from mem_cli.app import run_typer

            # the list of commands needs a kernel only where a plugin may add one
            return run_typer(args, "mem", parsed.json, kernel, plugins=not _plugins_free(args))
        return usage_error(parsed.problem or "missing required argument 'action'", parsed.suggestion, parsed.json)
    if action not in ACTIONS:
        # beyond the five actions, `--json` anywhere asks for JSON, even where
        # a parse error comes before typer sees it (`--priority -- --json`)
        json_mode = parsed.json or "--json" in args
        if action in COMMANDS:
            code = _run_declared(action, parsed.rest, json_mode)
            if code is not None:
                return code
        else:
            from mem_cli.app import run_command

            return run_command(action, [action, *parsed.rest], json_mode, kernel)
        from mem_cli.app import run_typer

        return run_typer([action, *parsed.rest], action, json_mode, kernel)
    if parsed.help:
        from mem_cli.app import run_typer

        return run_typer([action, "--help"], action, parsed.json, kernel)
    if parsed.problem:
        return usage_error(parsed.problem, parsed.suggestion, parsed.json)
    command = declared(action)
    assert command is not None and command.run is not None
    run, values = command.run, parsed.command_values()
    return run_action(action, lambda: run(values, kernel, None), parsed.json)


def _plugins_free(args: list[str]) -> bool:
    """Whether ``args`` ask for the list of commands (``--help`` alone) and
    only the default plugins take part: then no plugin adds a command."""
    if args not in (["--help"], ["-h"]):
        return False
    from mem_core.api.backend import plugins_free
    from mem_core.errors import MemError
    from mem_core.settings import load_settings

    try:
        return plugins_free(load_settings())
    except MemError:
        return False


def _run_declared(name: str, args: list[str], json_mode: bool) -> int | None:
    """Run built-in command ``name`` from its declaration, without typer;
    ``None`` when typer must: the command is not declared or may involve a
    plugin, or the line is one :func:`mem_cli.compat.parse_command` leaves
    to click (help, errors, subcommands)."""
    command = declared(name)
    if command is None or not command.light or command.run is None:
        return None
    run = command.run
    values = parse_command(command, args)
    if values is None:
        return None
    from mem_core.api.backend import plugins_free
    from mem_core.errors import MemError
    from mem_core.settings import load_settings

    try:
        settings = load_settings()  # what the typer path builds its kernel from
    except MemError:
        return None  # typer's path reports it as it always did
    if not plugins_free(settings):
        return None
    return run_action(name, lambda: run(values, None, settings), json_mode)


def _with_plugin_signals(args: list[str], parsed: Parsed) -> tuple[Kernel | None, Parsed]:
    """The kernel, and ``args`` parsed again with an option for each reward
    signal plugins register (``--review``): commander would know them as it
    knows ``--eval``. Without a kernel (a broken plugin under
    ``MEM_STRICT_PLUGINS=1``), or if a signal plugin fails, ``parsed`` stands."""
    from mem_cli.compat import signal_options
    from mem_core.errors import MemError
    from mem_core.kernel import Kernel

    try:
        kernel = Kernel()
    except MemError:
        return None, parsed
    try:
        extra = signal_options(kernel)
    except MemError:
        return kernel, parsed
    return kernel, (parse(args, extra) if extra else parsed)
