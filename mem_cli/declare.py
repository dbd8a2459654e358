"""How a command is declared: once, in its module under :mod:`mem_cli.commands`.

A command module sets ``COMMAND = Command(...)``: its name, help text, the
group it is listed under in ``mem --help``, its positional arguments, its
options and its handler. Everything else is made from that declaration:

- the parser of the five agent-facing actions (:mod:`mem_cli.compat`, which
  reads a line as ``bmad-plus mem``'s commander reads it) and that of the
  structured-memory commands' plain lines (:func:`mem_cli.compat.parse_command`);
- the typer (click) command (:mod:`mem_cli.app`), which writes ``--help``,
  click's errors for every other line, and shell completion.

No typer here: this module is on the start-up path of ``mem write``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

__all__ = ["Option", "Argument", "Command", "Handler"]

#: a command's body: the values by dest (every option and argument; flags
#: false and values ``None`` when not given), the kernel if one was built,
#: and the settings a kernel would be built from when none was
Handler = Callable[["Mapping[str, Any]", "Kernel | None", "Settings | None"], "int | None"]


class Option:
    """One option.

    ``metavar`` is the value's name as ``--help`` shows it (``PATH``;
    commander shows ``<path>`` in its errors). ``kind`` is the value's type:
    ``bool`` (a flag, the default without a metavar), ``str`` (the default
    with one) or ``int`` (click checks it). ``default`` is the value when
    the option is not given (``None``, false for a flag); ``required``
    options have none. A ``negatable`` flag also has a ``--no-`` form
    (``--insecure-http/--no-insecure-http``). ``signal`` is the name of the reward signal the
    option gives a value to, if any (its help text is the signal's own).
    ``commander`` is false for ``mem``'s own options of the five actions,
    which ``bmad-plus mem`` does not know (no "Did you mean" for them).
    """

    __slots__ = ("dest", "long", "short", "metavar", "help", "multiple", "signal", "commander", "kind", "default",
                 "required", "negatable")  # fmt: skip

    def __init__(
        self,
        dest: str,
        long: str,
        help: str,
        *,
        metavar: str = "",
        short: str = "",
        multiple: bool = False,
        signal: str | None = None,
        commander: bool = True,
        kind: type | None = None,
        default: Any = None,
        required: bool = False,
        negatable: bool = False,
    ) -> None:
        self.dest = dest
        self.long = long
        self.short = short
        self.metavar = metavar
        self.help = help
        self.multiple = multiple
        self.signal = signal
        self.commander = commander
        self.kind: type = kind or (str if metavar else bool)
        self.default = False if self.kind is bool and default is None else default
        self.required = required
        self.negatable = negatable

    @property
    def takes_value(self) -> bool:
        return self.kind is not bool

    @property
    def flags(self) -> str:
        """The option as commander names it in errors (``-d, --directory <path>``)."""
        names = f"{self.short}, {self.long}" if self.short else self.long
        return f"{names} <{self.metavar.lower()}>" if self.takes_value else names

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.short, self.long) if self.short else (self.long,)


class Argument:
    """One positional argument: ``multiple`` takes every remaining word (a
    list), else one word. A ``multiple`` argument is optional unless
    ``required`` (``None`` when no word is given), a single one required
    unless ``required=False``."""

    __slots__ = ("dest", "help", "metavar", "multiple", "required")

    def __init__(
        self, dest: str, help: str, *, metavar: str = "", multiple: bool = False, required: bool | None = None
    ) -> None:
        self.dest = dest
        self.help = help
        self.metavar = metavar
        self.multiple = multiple
        self.required = not multiple if required is None else required


class Command:
    """One command: ``run`` is its handler (see :data:`Handler`), ``group``
    the heading it is listed under in ``mem --help``. A ``light`` command's
    plain lines run without typer, and without a kernel when only the
    default plugins take part: its handler is given the settings instead.

    A command with ``subcommands`` is a group (``mem config set``): its
    handler, if any, runs when no subcommand is named; without one, the
    group alone shows its help. A subcommand's handler finds the group's
    option values in ``values["group"]`` (``mem serve --store x keys list``).
    A subcommand's ``group`` is unused."""

    __slots__ = ("name", "help", "group", "run", "options", "arguments", "light", "subcommands")

    def __init__(
        self,
        name: str,
        help: str,
        *,
        group: str = "",
        run: Handler | None = None,
        options: tuple[Option, ...] = (),
        arguments: tuple[Argument, ...] = (),
        light: bool = False,
        subcommands: tuple[Command, ...] = (),
    ) -> None:
        self.name = name
        self.help = help
        self.group = group
        self.run = run
        self.options = options
        self.arguments = arguments
        self.light = light
        self.subcommands = subcommands

    def defaults(self) -> dict[str, Any]:
        """Every option's value when not given, by dest (reward signals aside)."""
        return {option.dest: option.default for option in self.options if option.signal is None}
