"""``mem --help`` without typer: the top-level help, rendered as typer
(click) renders it when the output is not a terminal, byte for byte.

typer costs more start-up time than a whole ``mem recall``; the top-level
help is static but for its width (``COLUMNS``, 50 to 78 columns) and the
commands plugins add. So :func:`top_help` renders it from this table, with
click's layout (a two-column definition list, paragraphs wrapped by
:mod:`textwrap`, a command's help shortened to its first sentence or to what
fits), and :func:`mem_cli.main.main` prints it only when no plugin is in
play and stdout is not a terminal; everything else goes to typer.
``tests/cli/test_help_text.py`` holds it to typer's own output at every
width, and this table to the commands' help texts.
"""

from __future__ import annotations

import os

__all__ = ["HELP", "OPTIONS", "SUMMARIES", "help_width", "top_help", "short_help"]

#: the help text of ``mem`` itself (the typer application's)
HELP = (
    "Memory with evidence for coding agents: recall notes and events, journal work, "
    "reinforce patterns, bind lessons to verified outcomes, keep structured memories."
)

#: the top-level options, as typer lists them
OPTIONS: tuple[tuple[str, str], ...] = (
    ("--version", "Print the version and exit."),
    ("--install-completion", "Install completion for the current shell."),
    ("--show-completion", "Show completion for the current shell, to copy it or customize the installation."),
    ("-h, --help", "Show this message and exit."),
)

#: the first paragraph of each built-in command's help, in ``COMMANDS`` order
SUMMARIES: dict[str, str] = {
    "recall": "Ranked retrieval over the journal, the Markdown notes and the other note sources.",
    "write": "Append a structured event to .bmad/memory/journal.ndjson.",
    "reinforce": "Apply a reward to a pattern score (promotions are PROPOSED only, never applied).",
    "observe": "Bind a lesson to accepted, independently verified work: append one receipt to .bmad/memory/outcomes.ndjson, only if every check passes.",
    "outcomes": "List every stored receipt and whether it is still current evidence (accepted-current, superseded, contradictory, stale-…).",
    "remember": "Store a structured memory, or update the one with the same category and key (what an update does not mention keeps its value).",
    "memories": "List, filter or search structured memories, or show what expires soon; `mem memories history|restore|export|import|migrate` for the rest of their lifecycle.",
    "forget": "Delete a structured memory (its history keeps a tombstone); one a human confirmed is deleted only with you at the terminal (your human key's passphrase, or a yes where no human key is trusted).",
    "verify": "Sign a memory as true with your human key: asks its passphrase on the terminal (where no human key is trusted, asks you to confirm there; that reads as verified (terminal)).",
    "context": "The context summary of a mind: plain text for an LLM, critical first, expired left out.",
    "plugins": "List the plugins: name, provider, version, what each provides; broken ones with their error.",
    "mcp": "Run an MCP server (stdio by default) whose tools are mem's commands, on this project.",
    "init": "Create .bmad/memory/ with a commented mem.toml, and .agents/memory/{decisions,lessons,patterns}.md with an example section each, if missing (never overwrites a file; safe to repeat); list the assistants detected.",
    "brief": "The session brief: critical/high memories, note headings, recent failures, proposed promotions.",
    "hook": "Run an assistant's hook: read its hook JSON on stdin, print what it expects (session-start: the brief; prompt-submit: relevant memory; session-end: journals the session). Always exits 0; failures go to .bmad/memory/hooks.log.",
    "config": "Show every effective setting and where it came from; `mem config set KEY VALUE` changes one.",
    "adapters": "Wire mem into coding assistants: instruction block, hooks, MCP server entry.",
    "minds": "List the minds (memory namespaces) that hold memories, with how many each holds.",
    "scores": "The pattern scores `mem reinforce` keeps: Elo, mean, updates, last update; highest Elo first (read-only).",
    "promotions": "The proposed promotions not decided yet, with the pattern's current score and the evidence ids, and the decisions taken; accept or reject one (a human only).",
    "doctor": "Check the project's memory: the writer lock (owner, host, alive, age), the final line and size of each store, pattern-scores.json, the memory store backend, broken plugins and installed adapters. Exit 0 when nothing is an error. --fix repairs what is provably safe (a stale lock, a torn final line moved to <store>.torn-<ts>, temporary files left by killed writers) and leaves a live lock.",
    "archive": "Move the oldest whole lines of the journal and the promotions store to .bmad/memory/archive/<store>-<first ts>-<last ts>.ndjson under the writer lock (nothing lost, nothing duplicated, safe to kill); recall still reads the archived events.",
    "human": "Human keys: the proof of a human that `mem verify` and `remember --as-user` ask for.",
    "portfolio": "The portfolio: the projects `mem recall --scope all` recalls together, and their brain.",
    "serve": "The team server: JSON over HTTP for agents (agent keys) and humans (human keys), with an audit log.",
}


def help_width() -> int:
    """click's help width: the terminal's (``COLUMNS``, else the terminal of
    stdout, else 80 columns), at most 80, minus 2, at least 50."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def short_help(text: str, limit: int) -> str:
    """A command's help shortened as click shortens it: its first sentence
    if that fits in ``limit`` characters, else the words that fit and ``...``."""
    words = text.split()
    if not words:
        return ""
    total = 0
    last = len(words) - 1
    index = 0
    for index, word in enumerate(words):
        total += len(word) + (index > 0)
        if total > limit:
            break
        if word[-1] == ".":
            return " ".join(words[: index + 1])
        if total == limit and index != last:
            break
    else:
        return " ".join(words)
    total += 3
    while index > 0:
        total -= len(words[index]) + (index > 0)
        if total <= limit:
            break
        index -= 1
    return " ".join(words[:index]) + "..."


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` wrapped as click wraps a paragraph (a word longer than the
    line is cut where the line ends, as click's wrapper cuts it)."""
    import textwrap

    class Wrapper(textwrap.TextWrapper):
        def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
            space_left = max(width - cur_len, 1)
            last = reversed_chunks[-1]
            cur_line.append(last[:space_left])
            reversed_chunks[-1] = last[space_left:]

    wrapper = Wrapper(width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False)
    return wrapper.wrap(" ".join(text.split()))


def _definitions(rows: list[tuple[str, str]], width: int) -> list[str]:
    """click's definition list, indented by two columns."""
    first_col = min(max(len(first) for first, _ in rows), 30) + 2
    text_width = max(width - first_col - 2, 10)
    lines = []
    for first, second in rows:
        wrapped = _wrap(second, text_width)
        if not wrapped:
            lines.append(f"  {first}")
            continue
        if len(first) <= first_col - 2:
            lines.append(f"  {first}{' ' * (first_col - len(first))}{wrapped[0]}")
        else:
            lines.append(f"  {first}")
            lines.append(f"{' ' * (first_col + 2)}{wrapped[0]}")
        lines.extend(f"{' ' * (first_col + 2)}{line}" for line in wrapped[1:])
    return lines


def top_help(width: int | None = None) -> str:
    """The text of ``mem --help`` (no final newline) at ``width`` columns
    (default: :func:`help_width`), for the built-in commands."""
    width = help_width() if width is None else width
    lines = ["Usage: mem [OPTIONS] COMMAND [ARGS]...", ""]
    lines.extend(_wrap(HELP, width, "  "))
    lines.extend(["", "Options:", *_definitions(list(OPTIONS), width)])
    limit = width - 6 - max(len(name) for name in SUMMARIES)
    commands = [(name, short_help(text, limit)) for name, text in SUMMARIES.items()]
    lines.extend(["", "Commands:", *_definitions(commands, width)])
    return "\n".join(lines)


def can_render(args: list[str]) -> bool:
    """Whether ``mem <args>`` is the top-level help this module renders:
    ``--help`` or ``-h`` alone, stdout not a terminal, and no plugin that
    could add a command (:func:`mem_core.memories.backend.plugins_free` for
    the settings the typer path builds its kernel from)."""
    import sys

    if args not in (["--help"], ["-h"]) or "_MEM_COMPLETE" in os.environ:
        return False
    from mem_cli.table import COMMANDS

    if tuple(SUMMARIES) != COMMANDS:  # a command this table does not know yet: typer's help is the truth
        return False
    try:
        if sys.stdout.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    from mem_core.errors import MemError
    from mem_core.memories.backend import plugins_free
    from mem_core.settings import load_settings

    try:
        return plugins_free(load_settings())
    except MemError:
        return False
