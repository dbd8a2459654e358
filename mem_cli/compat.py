"""Command-line parsing of the five actions, exactly as ``bmad-plus mem``
(commander) parses them.

``bmad-plus mem`` declares every option on the ``mem`` command itself, so each
action accepts all of them (and ignores those it does not use), options may
stand anywhere (before the action, between query words), and an option's
value is the next word even when it starts with ``-`` (``--accept -3``).
Parsing this here, without typer, also keeps the agent-facing hot path fast:
typer is imported only for ``--help`` and for the other commands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["Option", "OPTIONS", "ACTION_OPTIONS", "ACTIONS", "Parsed", "parse"]


class Option:
    """One option: where its value goes and how commander names it in errors."""

    __slots__ = ("dest", "flags", "takes_value", "multiple")

    def __init__(self, dest: str, flags: str, takes_value: bool = True, multiple: bool = False) -> None:
        self.dest = dest
        self.flags = flags
        self.takes_value = takes_value
        self.multiple = multiple


_DIRECTORY = Option("directory", "-d, --directory <path>")

#: every option of ``bmad-plus mem`` (plus ``--signal``, mem's own), by spelling
OPTIONS: dict[str, Option] = {
    "-d": _DIRECTORY,
    "--directory": _DIRECTORY,
    "--scope": Option("scope", "--scope <scope>"),
    "--portfolio": Option("portfolio", "--portfolio <path>"),
    "--limit": Option("limit", "--limit <n>"),
    "--ranking": Option("ranking", "--ranking <mode>"),
    "--context-scope": Option("context_scope", "--context-scope <paths>"),
    "--input": Option("input", "--input <file>"),
    "--agent": Option("agent", "--agent <name>"),
    "--cli": Option("cli", "--cli <name>"),
    "--model": Option("model", "--model <id>"),
    "--task": Option("task", "--task <text>"),
    "--outcome": Option("outcome", "--outcome <outcome>"),
    "--pattern": Option("pattern", "--pattern <id>"),
    "--eval": Option("eval", "--eval <score>"),
    "--accept": Option("accept", "--accept <bool>"),
    "--ci": Option("ci", "--ci <result>"),
    "--evidence": Option("evidence", "--evidence <ids>"),
    "--signal": Option("signal", "--signal <name=value>", multiple=True),
    "--json": Option("json", "--json", takes_value=False),
}

#: the options each action uses (the others are accepted and ignored)
ACTION_OPTIONS: dict[str, tuple[str, ...]] = {
    "recall": ("directory", "scope", "portfolio", "limit", "ranking", "context_scope", "json"),
    "write": ("directory", "agent", "cli", "model", "task", "outcome", "eval", "accept", "ci", "signal", "json"),
    "reinforce": ("directory", "pattern", "eval", "accept", "ci", "signal", "evidence", "json"),
    "observe": ("directory", "input", "json"),
    "outcomes": ("directory", "json"),
}

ACTIONS = tuple(ACTION_OPTIONS)

#: commander takes a word that looks like a negative number for an argument,
#: not an option (``mem recall cache -5``)
_NEGATIVE_NUMBER = re.compile(r"-(?:[0-9]+|[0-9]*\.[0-9]+)(?:e[+-]?[0-9]+)?")


class Parsed:
    """The action, the option values it uses, and the query words."""

    def __init__(self) -> None:
        self.action: str | None = None
        self.values: dict[str, object] = {}
        self.words: list[str] = []
        self.json = False
        self.help = False
        self.rest: list[str] = []  # the arguments after the action, as given
        #: the usage problem commander would report (a missing value at once,
        #: else the first unknown option), and its "(Did you mean …?)" line
        self.problem: str | None = None
        self.suggestion = ""

    def kwargs(self) -> dict[str, object]:
        """Keyword arguments for the action's handler."""
        assert self.action is not None
        wanted = ACTION_OPTIONS[self.action]
        kwargs = {dest: self.values.get(dest, False if dest == "json" else None) for dest in wanted}
        if self.action == "recall":
            kwargs["query"] = self.words
        return kwargs


def parse(args: Sequence[str]) -> Parsed:
    """Parse ``mem`` arguments. The action is the first word that is neither
    an option nor an option's value; the first unknown option or missing value
    is kept in :attr:`Parsed.problem` (it is an error for the five actions;
    other commands are parsed again by typer)."""
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
        if len(token) > 1 and token.startswith("-") and not _NEGATIVE_NUMBER.fullmatch(token):
            if token.startswith("--"):
                name, eq, inline = token.partition("=")
            else:
                name, inline = token[:2], token[2:]
                eq = "=" if inline else ""
            option = OPTIONS.get(name)
            if option is None or (not option.takes_value and eq and token.startswith("--")):
                # commander reports unknown options after the whole line is read
                unknown = unknown or token
                continue
            if not option.takes_value:
                if eq:  # -j=… : an unknown short option in commander
                    unknown = unknown or token
                    continue
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
            if option.multiple:
                items = parsed.values.setdefault(option.dest, [])
                assert isinstance(items, list)
                items.append(value)
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
        parsed.suggestion = suggest(unknown)
    parsed.problem = problem
    return parsed


#: the long options commander knows for ``mem`` (declaration order), then
#: the help option and the program's ``--version``: what it suggests from
_SUGGESTABLE = (
    "--directory", "--scope", "--portfolio", "--limit", "--ranking", "--context-scope", "--input",
    "--agent", "--cli", "--model", "--task", "--outcome", "--pattern", "--eval", "--accept", "--ci",
    "--evidence", "--json", "--help", "--version",
)  # fmt: skip


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


def suggest(flag: str) -> str:
    """commander's "(Did you mean …?)" line for an unknown long option, or ""."""
    if not flag.startswith("--"):
        return ""
    word = flag[2:]
    best = 3
    similar: list[str] = []
    for candidate in (c[2:] for c in _SUGGESTABLE):
        if len(candidate) <= 1:
            continue
        distance = _edit_distance(word, candidate)
        length = max(len(word), len(candidate))
        if (length - distance) / length > 0.4:
            if distance < best:
                best, similar = distance, [candidate]
            elif distance == best:
                similar.append(candidate)
    similar.sort(key=lambda c: (c.replace("-", ""), c))  # localeCompare, for these names
    names = [f"--{c}" for c in similar]
    if len(names) > 1:
        return f"(Did you mean one of {', '.join(names)}?)"
    return f"(Did you mean {names[0]}?)" if names else ""
