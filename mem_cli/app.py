"""The ``mem`` typer application, made from the commands' declarations.

:func:`mem_cli.main.main` runs the five actions, and the plain lines of the
structured-memory commands, from their declarations without typer
(:mod:`mem_cli.compat`); it comes here for ``--help``, for shell completion,
for every other line and for the commands plugins add. Each declared
command (``COMMAND`` in its module) becomes a typer command here
(:func:`typer_command`): its help, its click errors and its completion are
the declaration's, and it runs the declaration's handler; typer builds it
when a line first needs it, so ``mem --help`` builds none. A module without
a declaration registers its typer command itself (``register(app)``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mem_cli import output
from mem_cli.commands import ACTIONS, COMMANDS
from mem_cli.compat import declared, signal_options
from mem_cli.declare import Command, Option
from mem_cli.options import argument_parameter, option_parameter
from mem_cli.run import run_action
from mem_core.errors import ExitCode, MemError, UsageError

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

try:  # typer >= 0.22 vendors click
    from typer._click import exceptions as click_exceptions
    from typer._click.utils import make_default_short_help
except ImportError:  # pragma: no cover - older typer with click as a dependency
    from click import exceptions as click_exceptions  # type: ignore[no-redef]
    from click.utils import make_default_short_help  # type: ignore[no-redef]

__all__ = ["CommandLine", "make_app", "run_typer", "run_command", "typer_command", "HELP"]

#: every command and subcommand (click contexts inherit them): -h is --help
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
#: the help text of ``mem`` itself
HELP = (
    "Memory with evidence for coding agents: recall notes and events, journal work, "
    "reinforce patterns, bind lessons to verified outcomes, keep structured memories."
)
#: where a group's handler leaves its option values for its subcommand's
#: (``values["group"]``)
GROUP_VALUES = "mem.group"
#: the heading of the commands declared without a group (plugins' commands)
OTHER_GROUP = "Commands"


def _version(value: bool) -> None:
    if value:
        from mem_core.version import __version__

        output.out(f"mem {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Memory with evidence for coding agents."""


class _Commands(MutableMapping[str, Any]):
    """A group's commands by name: the built-in ones first, in their
    :data:`COMMANDS` order, each made by typer from its declaration when it is
    first looked up (:meth:`CommandLine.build`), then the ones added to the
    typer app (plugins' commands), as they came."""

    def __init__(self, cli: CommandLine, added: Mapping[str, Any]) -> None:
        self._cli = cli
        self._built: dict[str, Any] = {}
        self._added = {name: command for name, command in added.items() if name not in cli.builtins}
        self._built.update((name, command) for name, command in added.items() if name in cli.builtins)

    def __getitem__(self, name: str) -> Any:
        if name in self._added:
            return self._added[name]
        if name not in self._cli.builtins:
            raise KeyError(name)
        command = self._built.get(name)
        if command is None:
            command = self._built[name] = self._cli.build(name)
        return command

    def __setitem__(self, name: str, command: Any) -> None:
        (self._built if name in self._cli.builtins else self._added)[name] = command

    def __delitem__(self, name: str) -> None:
        del (self._built if name in self._cli.builtins else self._added)[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._cli.builtins
        yield from self._added

    def __len__(self) -> int:
        return len(self._cli.builtins) + len(self._added)


def _ordered_group(cli: CommandLine) -> type:
    """typer's group class for ``cli``: the built-in commands first, in
    :data:`COMMANDS` order, each built when first needed (``mem --help``
    lists them from their declarations and builds none), then plugins'
    commands as they came; ``--help`` lists them under their declared groups,
    in the order the groups first appear."""
    from typer.core import TyperGroup

    class OrderedGroup(TyperGroup):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.commands = _Commands(cli, self.commands)  # type: ignore[assignment]

        def list_commands(self, ctx: Any) -> list[str]:
            return list(self.commands)

        def format_commands(self, ctx: Any, formatter: Any) -> None:
            groups: dict[str, list[tuple[str, str]]] = {}
            for name in self.list_commands(ctx):
                row = cli.listed(name)
                if row is None:
                    command = self.commands[name]
                    if command.hidden:
                        continue
                    # each command's whole first sentence, wrapped: cut to one line it ended mid-word
                    row = (
                        getattr(command, "rich_help_panel", None) or OTHER_GROUP,
                        command.get_short_help_str(FIRST_SENTENCE),
                    )
                groups.setdefault(row[0], []).append((name, row[1]))
            for heading, rows in groups.items():
                with formatter.section(heading):
                    formatter.write_dl(rows)

    return OrderedGroup


#: long enough for any command's first sentence (click cuts the short help at its limit)
FIRST_SENTENCE = 400


def typer_command(
    command: Command, kernel: Kernel | None, signals: Sequence[tuple[Option, str]] = ()
) -> Callable[..., Any]:
    """The typer function of a declared command: its parameters are the
    declaration's arguments and options (a reward signal's options, with
    their help text, in ``signals``, where ``--signal`` stands), and it calls
    the declaration's handler with the values by dest."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("ctx", keyword, annotation=typer.Context)]
    default: Any
    for argument in command.arguments:
        kind, default = argument_parameter(argument)
        parameters.append(inspect.Parameter(argument.dest, keyword, annotation=kind, default=default))
    options: list[tuple[Option, str]] = []
    for option in command.options:
        if option.signal is not None:
            continue  # all signal options come together, before --signal
        if option.dest == "signal":
            options.extend(signals)
        options.append((option, option.help))
    by_parameter: dict[str, Option] = {}
    for number, (option, text) in enumerate(options):
        name = option.dest if option.signal is None else f"signal_{number}"
        by_parameter[name] = option
        kind, default = option_parameter(option, text)
        parameters.append(inspect.Parameter(name, keyword, annotation=kind, default=default))
    takes_signals = any(option.signal for option in command.options)

    def body(ctx: typer.Context, **given: Any) -> Any:
        values: dict[str, Any] = {}
        chosen: dict[str, str] = {}
        for name, value in given.items():
            option = by_parameter.get(name)
            if option is None:  # a positional argument
                values[name] = value
            elif option.signal is not None:
                if value is not None:
                    chosen[option.signal] = value
            else:
                values[option.dest] = value
        if takes_signals:
            values["signals"] = chosen
        if ctx.invoked_subcommand is not None:  # a group's options, for its subcommand (mem serve --store x keys list)
            ctx.meta[GROUP_VALUES] = values
            return None
        values["group"] = ctx.meta.get(GROUP_VALUES, {})
        assert command.run is not None
        return command.run(values, kernel, None)

    body.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    body.__name__ = body.__qualname__ = command.name.replace("-", "_")
    return body


class CommandLine:
    """The typer application for one kernel: the built-in commands, then the
    commands of every plugin implementing ``mem_register_commands(app)``.

    A plugin whose hook raises, or adds a command typer cannot build or one
    whose name is taken, has its commands left out and is named in
    :attr:`broken`; the other commands are unaffected. ``kernel=None`` builds
    the app without plugins (no signal options beyond the declared ones, no
    plugin commands). Typer builds a built-in command when a line first looks
    it up (typer's start-up cost grows with every parameter it builds):
    ``mem --help`` lists them from their declarations and builds none.
    ``only`` (a built-in command's name) makes the application of that
    command alone, without plugins' commands: a built-in command's name
    cannot be a plugin's.
    """

    def __init__(self, kernel: Kernel | None, only: str | None = None) -> None:
        self.kernel = kernel
        self.broken: list[str] = []
        if only is not None and only not in COMMANDS:
            only = None
        #: the built-in commands of this application, each built by typer when
        #: first looked up (:meth:`build`)
        self.builtins: tuple[str, ...] = COMMANDS if only is None else (only,)
        self._signal_options: list[tuple[Option, str]] | None = None
        self.app = typer.Typer(
            name="mem",
            help=HELP,
            cls=_ordered_group(self),
            no_args_is_help=True,
            # typer's --install-completion / --show-completion (the completion
            # itself runs through here too: main() sends _MEM_COMPLETE to typer)
            add_completion=True,
            context_settings=CONTEXT_SETTINGS,
            pretty_exceptions_show_locals=False,
            rich_markup_mode=None,
        )
        self.app.callback()(_root)
        if kernel is not None and only in (None, "plugins"):  # `mem plugins` shows a failing commands hook
            self._add_plugin_commands(kernel)

    def commands(self) -> list[str]:
        """Every command name, built-in ones first."""
        return list(typer.main.get_command(self.app).commands)  # type: ignore[attr-defined]

    def build(self, name: str) -> Any:
        """The click command of built-in command ``name``, made by typer from
        its declaration (or by its module's ``register(app)``)."""
        holder = typer.Typer(add_completion=False, rich_markup_mode=None)
        command = declared(name)
        if command is None:
            importlib.import_module(f"mem_cli.commands.{name}").register(holder)
        else:
            self.add(command, self._signals() if name in ACTIONS else (), app=holder)
        built = typer.main.get_command(holder)
        return built.commands[name] if holder.registered_groups else built  # type: ignore[attr-defined]

    def listed(self, name: str) -> tuple[str, str] | None:
        """The heading and the line ``mem --help`` lists built-in command
        ``name`` with, from its declaration, as click makes them from the
        command typer builds (without building it); ``None`` for a plugin's
        command or one without a declaration."""
        command = declared(name) if name in self.builtins else None
        if command is None:
            return None
        short = make_default_short_help(inspect.cleandoc(command.help), FIRST_SENTENCE) if command.help else ""
        return command.group or OTHER_GROUP, short.strip()

    def add(self, command: Command, signals: Sequence[tuple[Option, str]] = (), app: typer.Typer | None = None) -> None:
        """Add a declared command (a group, with its subcommands) to ``app``
        (default: this application)."""
        app = self.app if app is None else app
        if command.subcommands:
            app.add_typer(self._group(command), rich_help_panel=command.group)
        else:
            function = typer_command(command, self.kernel, signals)
            app.command(name=command.name, help=command.help, rich_help_panel=command.group)(function)

    def _group(self, command: Command) -> typer.Typer:
        """The typer group of a declared command with subcommands."""
        group = typer.Typer(
            name=command.name,
            help=command.help,
            invoke_without_command=command.run is not None,
            no_args_is_help=command.run is None,
            add_completion=False,
            rich_markup_mode=None,
        )
        if command.run is not None:
            group.callback(invoke_without_command=True)(typer_command(command, self.kernel))
        for sub in command.subcommands:
            if sub.subcommands:
                group.add_typer(self._group(sub))
            else:
                group.command(name=sub.name, help=sub.help)(typer_command(sub, self.kernel))
        return group

    def _signals(self) -> list[tuple[Option, str]]:
        """Every reward signal option with its help text: the declared ones
        (``--eval`` …) and those of the plugins' signals (asked once)."""
        if self._signal_options is None:
            self._signal_options = self._read_signals()
        return self._signal_options

    def _read_signals(self) -> list[tuple[Option, str]]:
        from mem_cli.commands import SIGNAL_OPTIONS

        registry: Any = None
        extra: tuple[Option, ...] = ()
        if self.kernel is not None:
            try:
                registry = self.kernel.reward_signals
                extra = signal_options(self.kernel)
            except MemError:  # a broken signal plugin: the declared options still work
                registry = None
        found = []
        for option in (*(o for o in SIGNAL_OPTIONS if o.signal), *extra):
            assert option.signal is not None
            if registry is not None and option.signal in registry:
                text = getattr(registry.get(option.signal), "help", "") or option.help
            else:
                text = option.help or f"Reward signal '{option.signal}' (not registered)."
            found.append((option, text))
        return found

    def _add_plugin_commands(self, kernel: Kernel) -> None:
        from mem_cli.plugin_commands import add_plugin_commands

        self.broken.extend(add_plugin_commands(self.app, kernel))


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


def run_typer(
    args: Sequence[str], action: str, json_mode: bool, kernel: Kernel | None = None, plugins: bool = True
) -> int:
    """Run the typer application on ``args``; returns the exit code.
    ``plugins=False`` builds it without a kernel: no plugin's command or
    reward signal option (where the caller knows none can take part)."""
    only = args[0] if args and action and args[0] == action else None
    return run_action(
        action, lambda: _invoke(CommandLine(kernel or (_kernel() if plugins else None), only), args), json_mode
    )


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
