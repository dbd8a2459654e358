"""The ``mem`` entry point.

The five agent-facing actions are parsed by :mod:`mem_cli.compat` and run
directly (no typer import on that path); ``--help`` and every other command
go to the typer application in :mod:`mem_cli.app`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from mem_cli import output
from mem_cli.compat import ACTIONS, Parsed, parse
from mem_core.errors import ExitCode, MemError

#: every command, in the order the unknown-action message lists them
#: (the five actions first); tests check it against the typer app
COMMANDS: tuple[str, ...] = (*ACTIONS, "remember", "memories", "forget", "verify", "context", "plugins", "mcp")


def _handler(action: str) -> Callable[..., None]:
    if action in ("recall", "write"):
        from mem_cli.actions import journal as module
    elif action == "reinforce":
        from mem_cli.actions import reinforce as module  # type: ignore[no-redef]
    else:
        from mem_cli.actions import evidence as module  # type: ignore[no-redef]
    return getattr(module, action)


def _node_text(arg: str) -> str:
    """An argument as Node.js sees it: bytes that are not UTF-8 (which Python
    keeps as lone surrogates) become U+FFFD."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return arg


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mem`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    args = [_node_text(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    parsed = parse(args)
    action = parsed.action
    if action is None:
        if parsed.help or "--version" in args:
            from mem_cli.app import run_typer

            return run_typer(args, "mem", parsed.json)
        return _usage_error(parsed, parsed.problem or "missing required argument 'action'")
    if action not in COMMANDS:
        output.err(f"mem: unknown action '{action}' — expected " + " | ".join(COMMANDS))
        return ExitCode.FAILURE
    if action not in ACTIONS:
        from mem_cli.app import run_typer

        return run_typer([action, *parsed.rest], action, parsed.json)
    if parsed.help:
        from mem_cli.app import run_typer

        return run_typer([action, "--help"], action, parsed.json)
    if parsed.problem:
        return _usage_error(parsed, parsed.problem)
    return run_action(action, lambda: _handler(action)(**parsed.kwargs()), parsed.json)


def _usage_error(parsed: Parsed, message: str) -> int:
    """A command-line error, worded as commander (``bmad-plus mem``) words it
    (``error: …`` on stderr, with its "Did you mean" line); ``{"error": …}``
    with ``--json``."""
    if parsed.json:
        output.error("", message, True)
    else:
        output.err("error: " + message + ("\n" + parsed.suggestion if parsed.suggestion else ""))
    return ExitCode.FAILURE


def run_action(action: str, call: Callable[[], int | None], json_mode: bool) -> int:
    """Run one command body (its result, if an int, is the exit code); every
    failure becomes its one-line message — the one place that maps errors.

    The cyclic garbage collector is paused meanwhile: a recall allocates one
    candidate per journal event and section and frees them all at exit, and
    collections of that young garbage cost more than a tenth of its time.
    """
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        result = call()
    except MemError as exc:
        for note in exc.notes:
            output.err(f"mem {action}: {note}" if action else f"mem: {note}")
        output.error(action, exc.message, json_mode)
        return int(exc.exit_code)
    except BrokenPipeError:  # e.g. `mem recall x | head -1`
        return output.broken_pipe()
    except KeyboardInterrupt:
        output.error(action, "interrupted", json_mode)
        return ExitCode.FAILURE
    except Exception as exc:  # never a traceback, unless MEM_DEBUG=1
        if os.environ.get("MEM_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        output.error(action, str(exc) or type(exc).__name__, json_mode)
        return ExitCode.FAILURE
    finally:
        if collecting:
            gc.enable()
    return int(result) if isinstance(result, int) else ExitCode.OK
