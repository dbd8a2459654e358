"""Running one command body: the one place that maps failures to messages
and exit codes (shared by the fast path and typer)."""

from __future__ import annotations

from collections.abc import Callable

from mem_cli import output
from mem_core.errors import ExitCode, MemError

__all__ = ["run_action", "usage_error", "failure_message"]


def run_action(action: str, call: Callable[[], int | None], json_mode: bool) -> int:
    """Run one command body (its result, if an int, is the exit code); every
    failure becomes its one-line message."""
    from mem_core.files import notices

    prefix = f"mem {action}: " if action else "mem: "
    notifier = notices.set_notifier(lambda text: output.err(prefix + output.one_line(text)))
    try:
        result = call()
    except MemError as exc:
        for note in exc.notes:
            output.err(prefix + output.one_line(note))
        output.error(action, exc.message, json_mode)
        return int(exc.exit_code)
    except BrokenPipeError:  # e.g. `mem recall x | head -1`
        return output.broken_pipe()
    except KeyboardInterrupt:
        output.error(action, "interrupted", json_mode)
        return ExitCode.FAILURE
    except Exception as exc:  # never a traceback, unless MEM_DEBUG=1
        from mem_core.settings import debug_enabled

        if debug_enabled():
            import traceback

            traceback.print_exc()
        output.error(action, failure_message(exc), json_mode)
        return ExitCode.FAILURE
    finally:
        notices.set_notifier(notifier)
    return int(result) if isinstance(result, int) else ExitCode.OK


def failure_message(exc: BaseException) -> str:
    """The one-line message of an unexpected failure: a full disk in mem's
    words, any other system error as Node words it, Python's own recursion
    text never."""
    from mem_core.files.paths import os_failure

    if isinstance(exc, OSError):
        if isinstance(exc.filename, str):
            return os_failure(exc, "open", exc.filename)
        return os_failure(exc, "write", "").rsplit(", write ''", 1)[0]
    if isinstance(exc, RecursionError):
        return "Input is nested too deeply."
    return str(exc) or type(exc).__name__


def usage_error(message: str, suggestion: str, json_mode: bool) -> int:
    """A command-line error, worded as commander (``bmad-plus mem``) words it
    (``error: …`` on stderr, with its "Did you mean" line); ``{"error": …}``
    with ``--json``."""
    if json_mode:
        output.error("", message, True)
    else:
        output.err("error: " + output.one_line(message) + ("\n" + suggestion if suggestion else ""))
    return ExitCode.FAILURE
