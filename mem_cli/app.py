"""The ``mem`` typer application: every command with its help text.

:func:`mem_cli.main.main` is the entry point; it runs the five actions
directly and comes here for ``--help`` and for the other commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from mem_cli import output
from mem_cli.commands import evidence, journal, mcp, memories, plugins, reinforce
from mem_cli.compat import ACTION_OPTIONS, OPTIONS
from mem_core.errors import ExitCode, MemError, UsageError

try:  # typer >= 0.22 vendors click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

app = typer.Typer(
    name="mem",
    help=(
        "Memory with evidence for coding agents: recall notes and events, journal work, "
        "reinforce patterns, bind lessons to verified outcomes, keep structured memories."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from mem_core import __version__

        output.out(f"mem {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Memory with evidence for coding agents."""


for _module in (journal, reinforce, evidence, memories, plugins, mcp):
    _module.register(app)


def typer_args(action: str, values: dict[str, object], words: list[str]) -> list[str]:
    """Arguments for typer that carry what the compat parser found for one of
    the five actions (the options it does not use are left out)."""
    spelling = {option.dest: name for name, option in OPTIONS.items() if name.startswith("--")}
    args = [action]
    for dest in ACTION_OPTIONS.get(action, ()):
        if dest not in values:
            continue
        value = values[dest]
        if value is True:
            args.append(spelling[dest])
        elif isinstance(value, list):
            for item in value:
                args.extend([spelling[dest], item])
        else:
            args.extend([spelling[dest], str(value)])
    if action == "recall" and words:
        args.extend(["--", *words])
    return args


def _usage_message(exc: Exception) -> str:
    if isinstance(exc, click_exceptions.NoSuchOption):
        return f"unknown option '{exc.option_name}'"
    if isinstance(exc, click_exceptions.BadOptionUsage) and "requires an argument" in exc.format_message():
        return f"option '{exc.option_name}' argument missing"
    if isinstance(exc, click_exceptions.MissingParameter) and exc.param is not None:
        return f"missing required argument '{exc.param.name}'"
    return exc.format_message()  # type: ignore[attr-defined]


def run_typer(args: Sequence[str], action: str, json_mode: bool) -> int:
    """Run the typer application on ``args``; returns the exit code."""
    from mem_cli.main import run_action

    def call() -> int:
        command = typer.main.get_command(app)
        try:
            result = command.main(args=list(args), prog_name="mem", standalone_mode=False)
        except click_exceptions.NoArgsIsHelpError as exc:
            output.out(exc.format_message())
            return ExitCode.FAILURE
        except click_exceptions.UsageError as exc:
            raise UsageError(_usage_message(exc)) from None
        except typer.Abort:
            raise MemError("aborted") from None
        return int(result) if isinstance(result, int) else ExitCode.OK

    return run_action(action, call, json_mode)
