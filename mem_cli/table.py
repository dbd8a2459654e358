"""The command table: every option of the five actions, declared once.

Both parsers read it: :mod:`mem_cli.compat` (the commander-compatible fast
path, no typer) and :mod:`mem_cli.app` (typer: ``--help``, embedding). Each
:class:`Option` states its spelling, its metavar, its help text, where its
value goes and which actions use it; a reward signal registered by a plugin
gets an option built the same way (:func:`signal_options`).

No typer import here: this module is on the start-up path of ``mem write``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

__all__ = [
    "Option",
    "OPTIONS",
    "TABLE",
    "ACTIONS",
    "ACTION_OPTIONS",
    "ARGUMENTS",
    "OTHER_COMMANDS",
    "COMMANDS",
    "SUGGESTABLE",
    "SIGNAL_ACTIONS",
    "signal_options",
]

#: the actions that take reward signals
SIGNAL_ACTIONS = ("write", "reinforce")


class Option:
    """One option of the five actions.

    ``metavar`` is the value's name (``path``): commander shows it as
    ``<path>`` in its errors, typer as ``PATH`` in ``--help``. ``signal`` is
    the name of the reward signal the option gives a value to, if any (its
    help text is the signal's own). ``commander`` is false for ``mem``'s own
    options, which ``bmad-plus mem`` does not know (no "Did you mean" for them).
    """

    __slots__ = ("dest", "long", "short", "metavar", "help", "actions", "multiple", "signal", "commander")

    def __init__(
        self,
        dest: str,
        long: str,
        help: str,
        actions: tuple[str, ...],
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
        self.actions = actions
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


_ALL = ("recall", "write", "reinforce", "observe", "outcomes")
_SIGNAL_HELP = "A plugin's reward signal, NAME=VALUE (repeatable); see `mem plugins`."

#: every option of ``bmad-plus mem`` (plus ``--signal``, mem's own), in the
#: order ``--help`` lists them
TABLE: tuple[Option, ...] = (
    Option(
        "directory", "--directory", "Project directory (default: current directory).", _ALL, metavar="path", short="-d"
    ),
    Option(
        "scope", "--scope",
        "project | portfolio (adds <portfolio>/memory/) | all (every project of mem portfolio list, and the brain).",
        ("recall",), metavar="scope",
    ),
    Option(
        "portfolio", "--portfolio",
        "Portfolio brain directory, searched with --scope portfolio or all (default: mem portfolio brain).",
        ("recall",), metavar="path",
    ),
    Option("limit", "--limit", "How many results to keep.  [default: 8]", ("recall",), metavar="n"),
    Option(
        "ranking", "--ranking",
        "lexical (default, or the recall_ranking setting) | bm25 (accents, stems, CJK) | evidence "
        "| hybrid (bm25 + embeddings) | a plugin's ranker.",
        ("recall",), metavar="mode",
    ),
    Option(
        "context_scope", "--context-scope", "Comma-separated project paths the question is about (evidence ranking).",
        ("recall",), metavar="paths",
    ),
    Option(
        "input", "--input",
        "Project-relative JSON file: the verified work (runId and taskId for Nexus, or "
        '"verifier" and its fields), memory {file, heading}, scope, interpretation, '
        "optional supersedes / contradicts receipt ids.",
        ("observe",), metavar="file",
    ),
    Option("agent", "--agent", "Agent that produced the event (required).", ("write",), metavar="name"),
    Option(
        "cli", "--cli",
        "Driving assistant: claude-code, gemini-cli, codex-cli, cursor, opencode, aider, antigravity …",
        ("write",), metavar="name",
    ),
    Option("model", "--model", "Model id, recorded as is.", ("write",), metavar="id"),
    Option("task", "--task", "What was attempted.", ("write",), metavar="text"),
    Option("outcome", "--outcome", "success | failure | partial | abandoned", ("write",), metavar="outcome"),
    Option(
        "pattern", "--pattern", "Pattern id to reinforce: its heading in patterns.md (required).", ("reinforce",),
        metavar="id",
    ),
    Option(
        "evidence", "--evidence",
        "Comma-separated journal event ids backing the reinforcement (copied into a promotion).",
        ("reinforce",), metavar="ids",
    ),
    # the default reward signals: commander declares them; their help text is the signal's own
    Option("eval", "--eval", "", SIGNAL_ACTIONS, metavar="score", signal="eval"),
    Option("accept", "--accept", "", SIGNAL_ACTIONS, metavar="bool", signal="accept"),
    Option("ci", "--ci", "", SIGNAL_ACTIONS, metavar="result", signal="ci"),
    Option("signal", "--signal", _SIGNAL_HELP, SIGNAL_ACTIONS, metavar="name=value", multiple=True, commander=False),
    Option("json", "--json", 'Machine-readable JSON output; errors become {"error": ...}.', _ALL),
)  # fmt: skip

#: every option by spelling (``-d`` and ``--directory`` …)
OPTIONS: dict[str, Option] = {spelling: option for option in TABLE for spelling in option.spellings}

ACTIONS: tuple[str, ...] = _ALL

#: the options each action uses (the others are accepted and ignored)
ACTION_OPTIONS: dict[str, tuple[Option, ...]] = {
    action: tuple(option for option in TABLE if action in option.actions) for action in ACTIONS
}

#: the positional argument of an action: (dest, help)
ARGUMENTS: dict[str, tuple[str, str]] = {"recall": ("query", "Words to look for (joined with spaces).")}

#: the built-in commands beyond the five actions (typer only), one module
#: each in :mod:`mem_cli.commands`
OTHER_COMMANDS: tuple[str, ...] = (
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

#: every built-in command, in the order the unknown-action message lists them
COMMANDS: tuple[str, ...] = (*ACTIONS, *OTHER_COMMANDS)

#: the long options commander knows for ``mem``, then the help option and
#: the program's ``--version``: what it suggests from
SUGGESTABLE: tuple[str, ...] = (*(o.long for o in TABLE if o.commander), "--help", "--version")

#: a reward signal name usable as an option (``--review``, ``--review-score``)
_OPTION_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_TAKEN = {*OPTIONS, "--help", "--version"}
_BUILT_IN_SIGNALS = {option.signal for option in TABLE if option.signal}


def signal_options(kernel: Kernel) -> tuple[Option, ...]:
    """The options of the reward signals that plugins register beyond the
    table's (``--<name> <value>``, help text from the signal). A signal whose
    name is not an option name, or is the name of another option, gets none
    (``--signal NAME=VALUE`` still reaches it)."""
    options = []
    registry = kernel.reward_signals
    for name, cls in registry.items():
        if name in _BUILT_IN_SIGNALS or not _OPTION_NAME.fullmatch(name) or f"--{name}" in _TAKEN:
            continue
        help_text = getattr(cls, "help", "") or f"Reward signal '{name}' (plugin {registry.provider(name)})."
        options.append(
            Option(f"signal:{name}", f"--{name}", str(help_text), SIGNAL_ACTIONS, metavar="value", signal=name)
        )
    return tuple(options)
