"""One module per command, each declaring it once as ``COMMAND``
(:class:`mem_cli.declare.Command`): options, arguments, help, handler.

This module holds what several commands share: the command list, the
groups ``mem --help`` lists them under, and the options more than one
command declares. No typer here: it is on the start-up path of ``mem write``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

__all__ = [
    "ACTIONS",
    "COMMANDS",
    "AGENT",
    "MEMORIES",
    "PROJECT",
    "INTEGRATION",
    "DIRECTORY",
    "JSON",
    "SIGNAL_OPTIONS",
    "MIND",
    "USER",
    "HUMAN",
    "REF",
    "given_signals",
    "show",
    "one_memory_by_a_human",
]

#: the five agent-facing actions, parsed as ``bmad-plus mem`` parses them
ACTIONS: tuple[str, ...] = ("recall", "write", "reinforce", "observe", "outcomes")

#: every built-in command (its module's name), in the order ``mem --help``
#: and the unknown-action message list them
COMMANDS: tuple[str, ...] = (
    *ACTIONS,
    "remember",
    "memories",
    "forget",
    "verify",
    "context",
    "plugins",
    "mcp",
    "init",
    "brief",
    "hook",
    "config",
    "adapters",
    "minds",
    "scores",
    "promotions",
    "doctor",
    "archive",
    "human",
    "portfolio",
    "serve",
)

# the headings of `mem --help`, by purpose
AGENT = "Agent actions"
MEMORIES = "Structured memories"
PROJECT = "Project"
INTEGRATION = "Assistants and servers"

DIRECTORY = Option(
    "directory", "--directory", "Project directory (default: current directory).", metavar="PATH", short="-d"
)
JSON = Option("json", "--json", 'Machine-readable JSON output; errors become {"error": ...}.')

#: the reward signal options of ``write`` and ``reinforce``: commander
#: declares the default signals' (their help text is the signal's own);
#: ``--signal`` is mem's own
SIGNAL_OPTIONS: tuple[Option, ...] = (
    Option("eval", "--eval", "", metavar="SCORE", signal="eval"),
    Option("accept", "--accept", "", metavar="BOOL", signal="accept"),
    Option("ci", "--ci", "", metavar="RESULT", signal="ci"),
    Option(
        "signal",
        "--signal",
        "A plugin's reward signal, NAME=VALUE (repeatable); see `mem plugins`.",
        metavar="NAME=VALUE",
        multiple=True,
        commander=False,
    ),
)

MIND = Option("mind", "--mind", "The mind (memory namespace) to use.  [default: default]", metavar="NAME")
USER = Option(
    "user",
    "--user",
    "Use the user-level store (memories about you that hold across projects) instead of the project's.",
)

#: which trusted human key proves you (when several are on this machine)
HUMAN = Option(
    "human",
    "--human",
    "The trusted human key whose passphrase you type, when several are on this machine (mem human list).",
    metavar="NAME",
)

#: the memory a command acts on
REF = Argument("ref", "The memory: its id (mem_…) or <category>/<key>.", metavar="REF")


def one_memory_by_a_human(name: str, help: str) -> Command:
    """The command of what a human does to one memory named by its
    reference (``verify``, ``forget``): the service function and the
    renderer of that name, imported only when the command runs."""

    def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
        from mem_core.api import memories

        result = getattr(memories, name)(
            values["ref"],
            mind=values["mind"],
            user=values["user"],
            human=values["human"],
            directory=values["directory"],
            kernel=kernel,
        )
        show(result, values["json"], name)

    return Command(name, help, group=MEMORIES, run=run, arguments=(REF,), options=(MIND, USER, HUMAN, DIRECTORY, JSON))


def show(value: Any, json_mode: bool, renderer: str) -> None:
    """A command's answer (:func:`mem_cli.output.show`): as JSON, or as the
    text of the renderer of that name in :mod:`mem_cli.render`, imported
    only for text."""
    from mem_cli import output

    def text(shown: Any) -> str:
        from mem_cli import render

        rendered: str = getattr(render, renderer)(shown)
        return rendered

    output.show(value, json_mode, text)


def given_signals(values: Mapping[str, Any]) -> dict[str, str]:
    """The reward signals given, by signal name: each signal's own option
    (``--eval``, a plugin's ``--review``), then ``--signal NAME=VALUE``."""
    from mem_core.errors import UsageError

    given = dict(values.get("signals") or {})
    for item in values.get("signal") or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            shown = item.encode("unicode_escape").decode("ascii")  # one line, whatever it holds
            raise UsageError(f"--signal takes NAME=VALUE, got '{shown}'")
        given[name.strip()] = value
    return given
