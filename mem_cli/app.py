"""The ``mem`` application: typer commands, argument compatibility with
``bmad-plus mem``, and the single place where failures become messages."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import typer

from mem_core.errors import ExitCode, MemError

from . import output
from .commands import journal, plugins

try:  # typer >= 0.22 vendors click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

app = typer.Typer(
    name="mem",
    help=(
        "Memory with evidence for coding agents: recall notes and events, journal work, "
        "reinforce patterns, bind lessons to verified outcomes."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)

for _module in (journal, plugins):
    _module.register(app)

#: The options every action of ``bmad-plus mem`` accepts (commander declares
#: them on the ``mem`` command itself); all take a value except ``--json``.
REFERENCE_OPTIONS = frozenset(
    {
        "-d", "--directory", "--scope", "--portfolio", "--limit", "--ranking", "--context-scope",
        "--input", "--agent", "--cli", "--model", "--task", "--outcome", "--pattern", "--eval",
        "--accept", "--ci", "--evidence",
    }
)  # fmt: skip
FLAGS = frozenset({"--json"})

#: The options each of the five actions uses; the others are accepted and ignored.
ACTION_OPTIONS: dict[str, frozenset[str]] = {
    "recall": frozenset({"-d", "--directory", "--scope", "--portfolio", "--limit", "--ranking", "--context-scope", "--json"}),
    "write": frozenset({"-d", "--directory", "--agent", "--cli", "--model", "--task", "--outcome", "--eval", "--accept", "--ci", "--signal", "--json"}),
    "reinforce": frozenset({"-d", "--directory", "--pattern", "--eval", "--accept", "--ci", "--signal", "--evidence", "--json"}),
    "observe": frozenset({"-d", "--directory", "--input", "--json"}),
    "outcomes": frozenset({"-d", "--directory", "--json"}),
}  # fmt: skip
VALUE_OPTIONS = REFERENCE_OPTIONS | {"--signal"}


def command_names() -> list[str]:
    names = []
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        names.append(name)
    return names


class _Parsed:
    def __init__(self) -> None:
        self.action: str | None = None
        self.args: list[str] = []
        self.json = False


def _split(args: Sequence[str]) -> _Parsed:
    """Find the action (the first positional word, options may precede it) and
    keep what the action uses, as commander would have parsed it."""
    parsed = _Parsed()
    options: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            positionals.extend(args[i + 1 :])
            break
        if token.startswith("-") and token != "-":
            name, eq, _ = token.partition("=")
            attached = bool(eq) or (name.startswith("-") and not name.startswith("--") and len(name) > 2)
            if not name.startswith("--") and len(name) > 2:  # -dVALUE
                name = name[:2]
            if name in VALUE_OPTIONS and not attached and i + 1 < len(args):
                options.append((name, [token, args[i + 1]]))  # type: ignore[arg-type]
                i += 2
                continue
            if name in FLAGS and not eq:
                parsed.json = True
            options.append((name, [token]))  # type: ignore[arg-type]
            i += 1
            continue
        if parsed.action is None:
            parsed.action = token
        else:
            positionals.append(token)
        i += 1
    own = ACTION_OPTIONS.get(parsed.action or "")
    kept: list[str] = []
    for name, tokens in options:  # type: ignore[misc]
        if own is not None and name in REFERENCE_OPTIONS | FLAGS and name not in own:
            continue  # accepted by every bmad-plus mem action, meaningless here
        kept.extend(tokens)
    if own is not None and parsed.action != "recall":
        positionals = []
    parsed.args = kept + (["--", *positionals] if positionals else [])
    return parsed


def _usage_message(exc: Exception) -> str:
    if isinstance(exc, click_exceptions.NoSuchOption):
        return f"unknown option '{exc.option_name}'"
    if isinstance(exc, click_exceptions.BadOptionUsage) and "requires an argument" in exc.format_message():
        return f"option '{exc.option_name}' argument missing"
    if isinstance(exc, click_exceptions.MissingParameter) and exc.param is not None:
        return f"missing required argument '{exc.param.name}'"
    return exc.format_message()  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mem``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    parsed = _split(args)
    names = command_names()
    if parsed.action is None:
        if any(a in ("--help", "-h", "--version") for a in args) or not args:
            return _run(args, "mem", parsed.json, help_exit=not args)
        output.err("mem: missing action — expected " + " | ".join(names))
        return ExitCode.FAILURE
    if parsed.action not in names:
        output.err(f"mem: unknown action '{parsed.action}' — expected " + " | ".join(names))
        return ExitCode.FAILURE
    return _run([parsed.action, *parsed.args], parsed.action, parsed.json)


def _run(args: list[str], action: str, json_mode: bool, help_exit: bool = False) -> int:
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="mem", standalone_mode=False)
    except MemError as exc:
        output.error(action, exc.message, json_mode)
        return exc.exit_code
    except click_exceptions.NoArgsIsHelpError as exc:
        output.out(exc.format_message())
        return ExitCode.FAILURE
    except click_exceptions.UsageError as exc:
        output.error(action, _usage_message(exc), json_mode)
        return ExitCode.FAILURE
    except click_exceptions.Abort:
        output.error(action, "aborted", json_mode)
        return ExitCode.FAILURE
    except KeyboardInterrupt:
        output.error(action, "interrupted", json_mode)
        return ExitCode.FAILURE
    except Exception as exc:  # never a traceback, unless MEM_DEBUG=1
        if os.environ.get("MEM_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        output.error(action, str(exc) or type(exc).__name__, json_mode)
        return ExitCode.FAILURE
    if help_exit:
        return ExitCode.FAILURE
    return int(result) if isinstance(result, int) else ExitCode.OK
