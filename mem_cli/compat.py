"""The parser of ``mem``'s command lines, from the commands' declarations
(``COMMAND`` in each module of :mod:`mem_cli.commands`).

:func:`parse` reads a line exactly as ``bmad-plus mem`` (commander) reads
it, and words its errors as commander does: the five actions' contract.
:func:`parse_command` reads the plain lines of the other declared commands
as click reads them; a line it is not sure of is left to the typer command
made from the same declaration (:mod:`mem_cli.app`), which words click's
errors and the help.

``bmad-plus mem`` declares every option on the ``mem`` command itself, so each
action accepts all of them (and ignores those it does not use), options may
stand anywhere (before the action, between query words), and an option's
value is the next word even when it starts with ``-`` (``--accept -3``).
Parsing this here, without typer, also keeps the agent-facing hot path fast:
typer is imported only for ``--help`` and for the other commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from mem_cli.commands import ACTIONS
from mem_cli.declare import Command, Option
from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = [
    "Parsed",
    "parse",
    "parse_command",
    "declared",
    "signal_options",
    "suggest",
    "similar",
    "did_you_mean",
    "SIGNAL_ACTIONS",
]


def declared(name: str) -> Command | None:
    """The declaration of built-in command ``name``, or ``None`` for a
    command its module does not declare (registered with typer by hand)."""
    return getattr(import_module(f"mem_cli.commands.{name}"), "COMMAND", None)


#: each action's declaration
_ACTIONS: dict[str, Command] = {}
for _name in ACTIONS:
    _ACTIONS[_name] = import_module(f"mem_cli.commands.{_name}").COMMAND

#: every option of the five actions by spelling (``-d`` and ``--directory``
#: …): ``bmad-plus mem`` declares them all on ``mem`` itself, so each action
#: takes every one (and ignores those it does not use)
OPTIONS: dict[str, Option] = {
    spelling: option for command in _ACTIONS.values() for option in command.options for spelling in option.spellings
}

#: the actions that take reward signals
SIGNAL_ACTIONS: tuple[str, ...] = tuple(
    name for name, command in _ACTIONS.items() if any(o.signal for o in command.options)
)

#: the long options commander knows for ``mem``, then the help option and
#: the program's ``--version``: what it suggests from
SUGGESTABLE: tuple[str, ...] = (
    *dict.fromkeys(o.long for o in OPTIONS.values() if o.commander),
    "--help",
    "--version",
)

#: commander takes a word that looks like a negative number for an argument,
#: not an option (``mem recall cache -5``)
_NEGATIVE_NUMBER = lazy(r"-(?:[0-9]+|[0-9]*\.[0-9]+)(?:e[+-]?[0-9]+)?")
#: what the second character of a negative number can be (an option's is
#: none of them: the pattern is compiled only for a value like ``-3``)
_NUMBER_START = frozenset("0123456789.")


class Parsed:
    """The action, the option values given, and the query words."""

    def __init__(self) -> None:
        self.action: str | None = None
        self.values: dict[str, Any] = {}  # option dest -> value
        self.signals: dict[str, str] = {}  # reward signal name -> text of its own option
        self.words: list[str] = []
        self.json = False
        self.help = False
        self.rest: list[str] = []  # the arguments after the action, as given
        #: the long options not in the table (``--review``), in order: a
        #: plugin's reward signal may own one of them
        self.unknown_long: list[str] = []
        #: the usage problem commander would report (a missing value at once,
        #: else the first unknown option), and its "(Did you mean …?)" line
        self.problem: str | None = None
        self.suggestion = ""

    def command_values(self) -> dict[str, Any]:
        """What the action's command module takes: every option it uses (by
        dest; ``None``, or false for ``--json``, when not given), the reward
        signals given by their own options (``signals``) and, for recall, the
        query words (``query``)."""
        assert self.action is not None
        command = _ACTIONS[self.action]
        values: dict[str, Any] = {}
        for option in command.options:
            if option.signal is None:
                values[option.dest] = self.values.get(option.dest, option.default)
        if self.action in SIGNAL_ACTIONS:
            values["signals"] = dict(self.signals)
        for argument in command.arguments:  # recall's query: every word
            values[argument.dest] = self.words
        return values


def parse(args: Sequence[str], extra: Sequence[Option] = ()) -> Parsed:
    """Parse ``mem`` arguments as commander does. The action is the first word that is neither
    an option nor an option's value; the first unknown option or missing value
    is kept in :attr:`Parsed.problem` (it is an error for the five actions;
    other commands are parsed again by typer). ``extra`` are more options
    (the reward signals plugins register), known to every action as the
    table's are."""
    options = OPTIONS if not extra else {**OPTIONS, **{o.long: o for o in extra}}
    parsed = Parsed()
    problem: str | None = None
    unknown: str | None = None
    action_index = -1
    i = 0
    words: list[str] = []
    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            words.extend(args[i:])
            if parsed.action is None and words:
                parsed.action = words.pop(0)
                action_index = i
            break
        if token in ("-h", "--help"):
            parsed.help = True
            continue
        if len(token) > 1 and token[0] == "-" and not (token[1] in _NUMBER_START and _NEGATIVE_NUMBER.fullmatch(token)):
            if token.startswith("--"):
                name, eq, inline = token.partition("=")
            else:
                name, inline = token[:2], token[2:]
                eq = "=" if inline else ""
            option = options.get(name)
            if option is None or (not option.takes_value and eq):
                # commander reports unknown options after the whole line is read
                # (``--json=1``, ``-j=…``: unknown too)
                unknown = unknown or token
                if option is None and token.startswith("--"):
                    parsed.unknown_long.append(name)
                continue
            if not option.takes_value:
                parsed.values[option.dest] = True
                parsed.json = parsed.json or option.dest == "json"
                continue
            if eq:
                value = inline
            elif i < len(args):
                value = args[i]
                i += 1
            else:  # commander fails at once on a missing value
                problem = problem or f"option '{option.flags}' argument missing"
                continue
            if option.signal is not None:
                parsed.signals[option.signal] = value
            elif option.multiple:
                parsed.values.setdefault(option.dest, []).append(value)
            else:
                parsed.values[option.dest] = value
            continue
        if parsed.action is None:
            parsed.action = token
            action_index = i - 1
        else:
            words.append(token)
    parsed.words = words
    if parsed.action is not None:
        parsed.rest = list(args[:action_index]) + list(args[action_index + 1 :])
    if problem is None and unknown is not None:
        problem = f"unknown option '{unknown}'"
        parsed.suggestion = suggest(unknown, tuple(o.long for o in extra))
    parsed.problem = problem
    return parsed


def _edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Damerau-Levenshtein without
    substring re-edits), as commander computes it; 3 is "too far"."""
    if abs(len(a) - len(b)) > 3:
        return max(len(a), len(b))
    d = [[i] + [0] * len(b) for i in range(len(a) + 1)]
    d[0] = list(range(len(b) + 1))
    for j in range(1, len(b) + 1):
        for i in range(1, len(a) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def similar(word: str, candidates: Sequence[str]) -> list[str]:
    """The candidates closest to ``word`` as commander chooses them: the
    smallest edit distance below 3 among those sharing more than 40 % of
    their length with it, sorted."""
    best = 3
    found: list[str] = []
    for candidate in candidates:
        if len(candidate) <= 1:
            continue
        distance = _edit_distance(word, candidate)
        length = max(len(word), len(candidate))
        if (length - distance) / length > 0.4:
            if distance < best:
                best, found = distance, [candidate]
            elif distance == best:
                found.append(candidate)
    found.sort(key=lambda c: (c.replace("-", ""), c))  # localeCompare, for these names
    return found


def did_you_mean(names: Sequence[str]) -> str:
    """``(Did you mean x?)`` / ``(Did you mean one of x, y?)``, or "" for none."""
    if len(names) > 1:
        return f"(Did you mean one of {', '.join(names)}?)"
    return f"(Did you mean {names[0]}?)" if names else ""


def suggest(flag: str, extra: Sequence[str] = ()) -> str:
    """commander's "(Did you mean …?)" line for an unknown long option, or ""
    (``extra``: more long options to suggest from, the plugins' signals)."""
    if not flag.startswith("--"):
        return ""
    found = similar(flag[2:], [c[2:] for c in (*SUGGESTABLE, *extra)])
    return did_you_mean([f"--{c}" for c in found])


def parse_command(command: Command, args: Sequence[str]) -> dict[str, Any] | None:
    """The values (by dest; see :meth:`Command.defaults`) of ``command``'s
    arguments as click reads them, or ``None`` for a line this parser leaves
    to typer: ``-h``/``--help``, an unknown option, a missing value, option
    or argument, ``--flag=x``, a short option joined to its value, a number
    to check, a word too many."""
    spec = {spelling: option for option in command.options for spelling in option.spellings}
    values = command.defaults()
    words: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            words.extend(args[i:])
            break
        if len(token) < 2 or not token.startswith("-"):
            words.append(token)
            continue
        name, eq, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        option = spec.get(name)
        if option is None or option.kind not in (str, bool):  # click checks a number's value
            return None
        if not option.takes_value:
            if eq:
                return None
            values[option.dest] = True
            continue
        if eq:
            value = inline
        elif i < len(args):  # the next word, whatever it is (click takes `--content -x`)
            value = args[i]
            i += 1
        else:
            return None
        values[option.dest] = [*(values[option.dest] or []), value] if option.multiple else value
    if any(option.required and values[option.dest] is None for option in command.options):
        return None
    for argument in command.arguments:
        if argument.multiple:
            values[argument.dest] = words or None
            words = []
        else:
            values[argument.dest] = words.pop(0) if words else None
        if argument.required and values[argument.dest] is None:
            return None
    return None if words else values


#: a reward signal name usable as an option (``--review``, ``--review-score``)
_OPTION_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def signal_options(kernel: Kernel) -> tuple[Option, ...]:
    """The options of the reward signals that plugins register beyond the
    declared ones (``--<name> <value>``, help text from the signal). A signal
    whose name is not an option name, or is the name of another option, gets
    none (``--signal NAME=VALUE`` still reaches it)."""
    built_in = {option.signal for option in OPTIONS.values() if option.signal}
    taken = {*OPTIONS, "--help", "--version"}
    options = []
    registry = kernel.reward_signals
    for name, cls in registry.items():
        if name in built_in or not _OPTION_NAME.fullmatch(name) or f"--{name}" in taken:
            continue
        help_text = getattr(cls, "help", "") or f"Reward signal '{name}' (plugin {registry.provider(name)})."
        options.append(Option(f"signal:{name}", f"--{name}", str(help_text), metavar="VALUE", signal=name))
    return tuple(options)
