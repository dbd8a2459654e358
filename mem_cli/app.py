"""The ``mem`` typer application: every command with its help text.

:func:`mem_cli.main.main` is the entry point; it runs the five actions
directly (:mod:`mem_cli.compat`) and comes here for ``--help``, for the other
commands and for the commands plugins add. The five actions' typer commands
are built from the command table (:mod:`mem_cli.table`), with one option per
registered reward signal, and run the same command modules as the fast path.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from mem_cli import output
from mem_cli.helptext import HELP
from mem_cli.options import annotation
from mem_cli.run import run_action
from mem_cli.table import (
    ACTION_OPTIONS,
    ACTIONS,
    ARGUMENTS,
    COMMANDS,
    OTHER_COMMANDS,
    SIGNAL_ACTIONS,
    Option,
    signal_options,
)
from mem_core.errors import ExitCode, MemError, UsageError

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

try:  # typer >= 0.22 vendors click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

__all__ = ["CommandLine", "make_app", "run_typer", "run_command"]

COMMANDS_HOOK = "mem_register_commands"
#: every command and subcommand (click contexts inherit them): -h is --help
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _version(value: bool) -> None:
    if value:
        from mem_core import __version__

        output.out(f"mem {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Memory with evidence for coding agents."""


def _ordered_group() -> type:
    """typer's group class with the built-in commands in :data:`COMMANDS`
    order, whether each is a command or a group of subcommands (typer lists
    groups last), and plugins' commands after them as they came."""
    from typer.core import TyperGroup

    class OrderedGroup(TyperGroup):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            order = {name: number for number, name in enumerate(COMMANDS)}
            self.commands = dict(sorted(self.commands.items(), key=lambda item: order.get(item[0], len(order))))

    return OrderedGroup


class CommandLine:
    """The typer application for one kernel: the built-in commands, then the
    commands of every plugin implementing ``mem_register_commands(app)``.

    A plugin whose hook raises, or adds a command typer cannot build or one
    whose name is taken, has its commands left out and is named in
    :attr:`broken`; the other commands are unaffected. ``kernel=None`` builds
    the app without plugins (no signal options beyond the table's, no plugin
    commands). ``only`` (a built-in command's name) builds that command alone:
    typer's start-up cost grows with every parameter it builds, and a built-in
    command's name cannot be a plugin's.
    """

    def __init__(self, kernel: Kernel | None, only: str | None = None) -> None:
        self.kernel = kernel
        self.broken: list[str] = []
        self.app = typer.Typer(
            name="mem",
            help=HELP,
            cls=_ordered_group(),
            no_args_is_help=True,
            # typer's --install-completion / --show-completion (the completion
            # itself runs through here too: main() sends _MEM_COMPLETE to typer)
            add_completion=True,
            context_settings=CONTEXT_SETTINGS,
            pretty_exceptions_show_locals=False,
            rich_markup_mode=None,
        )
        self.app.callback()(_root)
        if only is not None and only not in COMMANDS:
            only = None
        if only is None or only in ACTIONS:
            signals = self._signals()
            for action in ACTIONS if only is None else (only,):
                self._add_action(action, signals)
        for name in OTHER_COMMANDS if only is None else (only,) if only in OTHER_COMMANDS else ():
            importlib.import_module(f"mem_cli.commands.{name}").register(self.app)
        if kernel is not None and only in (None, "plugins"):  # `mem plugins` shows a failing commands hook
            self._add_plugin_commands(kernel)

    def commands(self) -> list[str]:
        """Every command name, built-in ones first."""
        return list(typer.main.get_command(self.app).commands)  # type: ignore[attr-defined]

    # -- the five actions, from the command table ----------------------------------

    def _signals(self) -> dict[str, tuple[Option, str]]:
        """Every reward signal option, by signal name, with its help text:
        the table's (``--eval`` …) and those of the plugins' signals."""
        registry: Any = None
        extra: tuple[Option, ...] = ()
        if self.kernel is not None:
            try:
                registry = self.kernel.reward_signals
                extra = signal_options(self.kernel)
            except MemError:  # a broken signal plugin: the table's options still work
                registry = None
        found = {}
        for option in (*(o for o in ACTION_OPTIONS["write"] if o.signal), *extra):
            assert option.signal is not None
            if registry is not None and option.signal in registry:
                text = getattr(registry.get(option.signal), "help", "") or option.help
            else:
                text = option.help or f"Reward signal '{option.signal}' (not registered)."
            found[option.signal] = (option, text)
        return found

    def _add_action(self, action: str, signals: dict[str, tuple[Option, str]]) -> None:
        options: list[tuple[Option, str]] = []
        for option in ACTION_OPTIONS[action]:
            if option.signal is not None:
                continue  # all signal options come together, before --signal
            if option.dest == "signal":
                options.extend(signals.values())
            options.append((option, option.help))
        parameters = []
        if action in ARGUMENTS:
            dest, text = ARGUMENTS[action]
            kind: Any = Annotated[Optional[list[str]], typer.Argument(help=text, show_default=False)]
            parameters.append(inspect.Parameter(dest, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=None))
        by_parameter: dict[str, Option] = {}
        for number, (option, text) in enumerate(options):
            name = option.dest if option.signal is None else f"signal_{number}"
            by_parameter[name] = option
            default = None if option.takes_value else False
            parameters.append(
                inspect.Parameter(
                    name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation(option, text), default=default
                )
            )
        module = importlib.import_module(f"mem_cli.commands.{action}")
        kernel = self.kernel

        def command(**given: Any) -> None:
            values: dict[str, Any] = {}
            chosen: dict[str, str] = {}
            for name, value in given.items():
                option = by_parameter.get(name)
                if option is None:  # the positional argument
                    values[name] = value
                elif option.signal is not None:
                    if value is not None:
                        chosen[option.signal] = value
                else:
                    values[option.dest] = value
            if action in SIGNAL_ACTIONS:
                values["signals"] = chosen
            module.run(values, kernel)

        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__name__ = command.__qualname__ = action
        self.app.command(name=action, help=module.HELP)(command)

    # -- plugins' commands ---------------------------------------------------------

    def _add_plugin_commands(self, kernel: Kernel) -> None:
        """Call ``mem_register_commands(app=...)`` through the relay, one
        plugin at a time, so that one failing plugin leaves out only its own
        commands."""
        pm = kernel.pm
        impls = getattr(pm.hook, COMMANDS_HOOK).get_hookimpls()
        plugins = [impl.plugin for impl in impls]
        for impl in impls:
            caller = pm.subset_hook_caller(COMMANDS_HOOK, remove_plugins=[p for p in plugins if p is not impl.plugin])
            before = (len(self.app.registered_commands), len(self.app.registered_groups))
            known = len(self.commands())
            try:
                caller(app=self.app, context=kernel.context())
                added = len(self.app.registered_commands) + len(self.app.registered_groups) - sum(before)
                if len(self.commands()) != known + added:
                    raise MemError("it adds a command whose name is already taken")
            except Exception as exc:
                del self.app.registered_commands[before[0] :]
                del self.app.registered_groups[before[1] :]
                self.broken.append(f"plugin '{impl.plugin_name}' failed in {COMMANDS_HOOK}: {exc}")
                why = exc if isinstance(exc, MemError) else f"{type(exc).__name__}: {exc}"
                kernel.report_failure(impl.plugin_name, f"{COMMANDS_HOOK}: {why}")


def make_app(kernel: Kernel | None = None) -> typer.Typer:
    """The typer application of ``mem`` (for embedding and tests); with a
    kernel, with its plugins' signal options and commands."""
    return CommandLine(kernel).app


def _kernel() -> Kernel | None:
    """The kernel for the plugins' options and commands; without one (a
    plugin fails with ``MEM_STRICT_PLUGINS=1``) the built-in commands still work."""
    from mem_core.kernel import Kernel

    try:
        return Kernel()
    except MemError:
        return None


def _hint(word: str, candidates: Sequence[str], prefix: str = "") -> str:
    """`` (Did you mean …?)`` for ``word`` among ``candidates`` (compared
    without ``prefix``, ``--`` for options), or ""."""
    from mem_cli.compat import did_you_mean, similar

    if not word.startswith(prefix):
        return ""
    found = similar(word[len(prefix) :], [c[len(prefix) :] for c in candidates if c.startswith(prefix)])
    hint = did_you_mean([prefix + name for name in found])
    return f" {hint}" if hint else ""


def _long_options(ctx: Any) -> list[str]:
    command = getattr(ctx, "command", None)
    if command is None:
        return []
    names = [name for param in command.get_params(ctx) for name in (*param.opts, *param.secondary_opts)]
    return [name for name in names if name.startswith("--")]


_NO_SUCH_COMMAND = re.compile(r"No such command '(.*)'\.")


def _usage_message(exc: Exception) -> str:
    """A typer (click) usage error in mem's words, with the "Did you mean"
    hint on the same line (the error stays one line, ``--json`` too)."""
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click_exceptions.NoSuchOption):
        return f"unknown option '{exc.option_name}'{_hint(exc.option_name, _long_options(ctx), '--')}"
    unknown = _NO_SUCH_COMMAND.match(exc.format_message())  # type: ignore[attr-defined]
    if unknown is not None:
        names = list(getattr(getattr(ctx, "command", None), "commands", {}) or {})
        return f"unknown command '{unknown.group(1)}'{_hint(unknown.group(1), names)}"
    if isinstance(exc, click_exceptions.BadOptionUsage) and "requires an argument" in exc.format_message():
        return f"option '{exc.option_name}' argument missing"
    if isinstance(exc, click_exceptions.MissingParameter) and exc.param is not None:
        return f"missing required argument '{exc.param.name}'"
    return exc.format_message()  # type: ignore[attr-defined]


def _invoke(cli: CommandLine, args: Sequence[str]) -> int:
    command = typer.main.get_command(cli.app)
    try:
        result = command.main(args=list(args), prog_name="mem", standalone_mode=False, obj=cli.kernel)
    except click_exceptions.NoArgsIsHelpError as exc:
        output.out(exc.format_message())
        return ExitCode.FAILURE
    except click_exceptions.UsageError as exc:
        raise UsageError(_usage_message(exc)) from None
    except typer.Abort:
        raise MemError("aborted") from None
    return int(result) if isinstance(result, int) else ExitCode.OK


def run_typer(args: Sequence[str], action: str, json_mode: bool, kernel: Kernel | None = None) -> int:
    """Run the typer application on ``args``; returns the exit code."""
    only = args[0] if args and action and args[0] == action else None
    return run_action(action, lambda: _invoke(CommandLine(kernel or _kernel(), only), args), json_mode)


def run_command(action: str, args: Sequence[str], json_mode: bool, kernel: Kernel | None = None) -> int:
    """Run ``action``, which is not a built-in command: a plugin's command,
    or the unknown-action error listing every command there is."""
    cli = CommandLine(kernel or _kernel())
    names = cli.commands()
    if action in names:
        return run_action(action, lambda: _invoke(cli, args), json_mode)
    for problem in cli.broken:
        output.err(f"mem: {output.one_line(problem)}")
    listed = [*COMMANDS, *(name for name in names if name not in COMMANDS)]
    output.err(f"mem: unknown action '{output.one_line(action)}' — expected " + " | ".join(listed))
    from mem_cli.compat import did_you_mean, similar

    hint = did_you_mean(similar(action, listed))
    if hint:  # as commander words it for a mistyped command
        output.err(hint)
    return ExitCode.FAILURE
