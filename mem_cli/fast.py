"""The fast path of ``mem remember``, ``mem memories`` and ``mem context``:
their command lines parsed as typer (click) parses them, without typer, and
run on :mod:`mem_core.memories.service`.

The parser owns only the lines it is sure of: the options these commands
declare in :mod:`mem_cli.commands` (their typer definitions, which a test
holds this table to), values given as the next word or after ``=``, ``-d``
as its own word, ``--`` and the positional arguments of ``remember``. Any
other line — ``-h``/``--help``, an unknown or misspelled option, a missing
value or argument, ``--flag=x``, combined short options, a subcommand or a
word after ``mem memories`` — goes to typer, which words the help, the error
and its "Did you mean" hint exactly as before (:func:`run_fast` returns
``None``). So does every line where a plugin may be involved: the kernel the
typer path builds (from the working directory's settings) would hold a
plugin, or a plugin store might be chosen (:func:`mem_core.memories.backend.plugins_free`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from mem_cli import output

if TYPE_CHECKING:
    from typing import Any

__all__ = ["FAST_COMMANDS", "FAST_OPTIONS", "parse", "run_fast"]

#: each command's options: spelling -> (parameter name, takes a value, repeatable)
_Spec = dict[str, tuple[str, bool, bool]]

_COMMON: _Spec = {
    "--mind": ("mind", True, False),
    "--user": ("user", False, False),
    "--directory": ("directory", True, False),
    "-d": ("directory", True, False),
    "--json": ("json", False, False),
}

FAST_OPTIONS: dict[str, _Spec] = {
    "remember": {
        "--content": ("text", True, False),
        "--content-file": ("content_file", True, False),
        "--tag": ("tag", True, True),
        "--no-tags": ("no_tags", False, False),
        "--priority": ("priority", True, False),
        "--confidence": ("confidence", True, False),
        "--expires": ("expires", True, False),
        "--no-expiry": ("no_expiry", False, False),
        "--as-user": ("as_user", False, False),
        "--human": ("human", True, False),
        **_COMMON,
    },
    "memories": {
        "--category": ("category", True, False),
        "--tag": ("tag", True, False),
        "--search": ("search", True, False),
        "--expiring": ("expiring", True, False),
        "--include-expired": ("include_expired", False, False),
        "--source": ("source", True, False),
        "--priority": ("priority", True, False),
        "--unverified": ("unverified", False, False),
        "--limit": ("limit", True, False),
        **_COMMON,
    },
    "context": {
        "--limit": ("limit", True, False),
        "--budget": ("budget", True, False),
        **_COMMON,
    },
}

FAST_COMMANDS = tuple(FAST_OPTIONS)


def parse(command: str, args: Sequence[str]) -> tuple[dict[str, Any], list[str]] | None:
    """The option values (by parameter name; flags false and values ``None``
    when not given) and the positional words of ``command``'s arguments, as
    click reads them; ``None`` for a line this parser does not own."""
    spec = FAST_OPTIONS[command]
    values: dict[str, Any] = {name: (None if takes else False) for name, takes, _ in spec.values()}
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
        if option is None:
            return None  # -h, --help, an unknown option, -dPATH …: typer's
        dest, takes_value, multiple = option
        if not takes_value:
            if eq:
                return None
            values[dest] = True
            continue
        if eq:
            value = inline
        elif i < len(args):  # the next word, whatever it is (click takes `--content -x`)
            value = args[i]
            i += 1
        else:
            return None
        if multiple:
            values[dest] = [*(values[dest] or []), value]
        else:
            values[dest] = value
    return values, words


def run_fast(command: str, args: Sequence[str], json_mode: bool) -> int | None:
    """Run ``mem <command> <args>`` on the fast path; ``None`` when typer
    must (see the module's docstring)."""
    parsed = parse(command, args)
    if parsed is None:
        return None
    values, words = parsed
    if command == "remember":
        if len(words) < 2:
            return None  # typer's "missing required argument"
    elif words:
        return None  # a subcommand of `mem memories`, or typer's error
    from mem_core.errors import MemError
    from mem_core.memories.backend import plugins_free
    from mem_core.settings import load_settings

    try:
        settings = load_settings()  # what the typer path builds its kernel from
    except MemError:
        return None  # typer's path reports it as it always did
    if not plugins_free(settings):
        return None
    from mem_cli.run import run_action

    body = _BODIES[command]
    return run_action(command, lambda: body(values, words, settings), json_mode)


def _remember(values: dict[str, Any], words: list[str], settings: Any) -> None:
    from mem_cli import render
    from mem_core.memories.service import remember
    from mem_core.memories.validate import content_of

    result = remember(
        words[0],
        words[1],
        content_of(words[2:] or None, values["text"], values["content_file"]),
        tags=values["tag"],
        priority=values["priority"],
        confidence=values["confidence"],
        expires=values["expires"],
        no_tags=values["no_tags"],
        no_expiry=values["no_expiry"],
        mind=values["mind"],
        user=values["user"],
        as_user=values["as_user"],
        human=values["human"],
        directory=values["directory"],
        kernel_settings=settings,
    )
    output.show(result, values["json"], render.remember)


def _memories(values: dict[str, Any], words: list[str], settings: Any) -> None:
    from mem_cli import render
    from mem_core.memories.service import list_memories

    result = list_memories(
        category=values["category"],
        tag=values["tag"],
        search=values["search"],
        expiring=values["expiring"],
        include_expired=values["include_expired"],
        source=values["source"],
        priority=values["priority"],
        verified=False if values["unverified"] else None,
        mind=values["mind"],
        user=values["user"],
        limit=values["limit"],
        directory=values["directory"],
        kernel_settings=settings,
    )
    output.show(result, values["json"], render.memories)


def _context(values: dict[str, Any], words: list[str], settings: Any) -> None:
    from mem_cli import render
    from mem_core.memories.service import context_summary

    result = context_summary(
        mind=values["mind"],
        user=values["user"],
        limit=values["limit"],
        budget=values["budget"],
        directory=values["directory"],
        kernel_settings=settings,
    )
    output.show(result, values["json"], render.context)


_BODIES: dict[str, Callable[[dict[str, Any], list[str], Any], None]] = {
    "remember": _remember,
    "memories": _memories,
    "context": _context,
}
