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

    ``metavar`` is the value's name (``path``): commander shows it as
    ``<path>`` in its errors, click as ``PATH`` in ``--help``; an option
    without one is a flag. ``signal`` is the name of the reward signal the
    option gives a value to, if any (its help text is the signal's own).
    ``commander`` is false for ``mem``'s own options of the five actions,
    which ``bmad-plus mem`` does not know (no "Did you mean" for them).
    """

    __slots__ = ("dest", "long", "short", "metavar", "help", "multiple", "signal", "commander")

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
    ) -> None:
        self.dest = dest
        self.long = long
        self.short = short
        self.metavar = metavar
        self.help = help
        self.multiple = multiple
        self.signal = signal
        self.commander = commander

    @property
    def takes_value(self) -> bool:
        return bool(self.metavar)

    @property
    def flags(self) -> str:
        """The option as commander names it in errors (``-d, --directory <path>``)."""
        names = f"{self.short}, {self.long}" if self.short else self.long
        return f"{names} <{self.metavar}>" if self.metavar else names

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.short, self.long) if self.short else (self.long,)

    @property
    def default(self) -> Any:
        """The value when not given: false for a flag, else ``None``."""
        return None if self.takes_value else False


class Argument:
    """One positional argument: ``multiple`` takes every remaining word (a
    list, ``None`` when none is given), else exactly one (required)."""

    __slots__ = ("dest", "help", "metavar", "multiple")

    def __init__(self, dest: str, help: str, *, metavar: str = "", multiple: bool = False) -> None:
        self.dest = dest
        self.help = help
        self.metavar = metavar
        self.multiple = multiple


class Command:
    """One command: ``run`` is its handler (see :data:`Handler`), ``group``
    the heading it is listed under in ``mem --help``. A ``light`` command's
    plain lines run without typer, and without a kernel when only the
    default plugins take part: its handler is given the settings instead."""

    __slots__ = ("name", "help", "group", "run", "options", "arguments", "light")

    def __init__(
        self,
        name: str,
        help: str,
        *,
        group: str,
        run: Handler,
        options: tuple[Option, ...] = (),
        arguments: tuple[Argument, ...] = (),
        light: bool = False,
    ) -> None:
        self.name = name
        self.help = help
        self.group = group
        self.run = run
        self.options = options
        self.arguments = arguments
        self.light = light

    def defaults(self) -> dict[str, Any]:
        """Every option's value when not given, by dest (reward signals aside)."""
        return {option.dest: option.default for option in self.options if option.signal is None}
