"""``mem hook <event> --assistant <name>``: an assistant's lifecycle hook
(docs/brief.md). It always exits 0: a hook fails open.

``main.py`` runs it without typer (:func:`run_fast`): a hook runs at every
prompt and fails open, so a line typer would refuse is logged, not refused.
``mem hook --help`` is typer's, made from the declaration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mem_cli.commands import INTEGRATION
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

HELP = (
    "Run an assistant's hook: read its hook JSON on stdin, print what it expects "
    "(session-start: the brief; prompt-submit: relevant memory; session-end: journals the session). "
    "Always exits 0; failures go to .bmad/memory/hooks.log."
)


def run_fast(args: Sequence[str]) -> int:
    """``mem hook`` from its arguments (after ``hook``), without typer."""
    from mem_core.hooks.runner import run_hook

    event: str | None = None
    assistant: str | None = None
    problem: str | None = None
    items = list(args)
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if item == "--assistant" and i < len(items):
            assistant = items[i]
            i += 1
        elif item.startswith("--assistant="):
            assistant = item.partition("=")[2]
        elif event is None and not item.startswith("-"):
            event = item
        else:
            problem = problem or f"unexpected argument {item!r}"
    if problem is not None or event is None:
        from mem_core.files.hookslog import log_line

        log_line(None, "hook", problem or "missing the event (session-start | prompt-submit | session-end)")
        return 0
    return run_hook(event, assistant)


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> int:
    from mem_core.hooks.runner import run_hook

    return run_hook(values["event"], values["assistant"])


COMMAND = Command(
    "hook",
    HELP,
    group=INTEGRATION,
    run=run,
    arguments=(
        Argument(
            "event",
            "session-start | prompt-submit | session-end, or the assistant's own event name "
            "(SessionStart, UserPromptSubmit, BeforeAgent, beforeSubmitPrompt, SessionEnd, Stop …).",
            metavar="EVENT",
        ),
    ),
    options=(
        Option(
            "assistant",
            "--assistant",
            "claude-code | codex-cli | gemini-cli | cursor | opencode | aider | antigravity",
            metavar="NAME",
        ),
    ),
)
