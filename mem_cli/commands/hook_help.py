"""The typer form of ``mem hook`` (its ``--help``); the hook itself runs
without typer (:func:`mem_cli.commands.hook.run_fast`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def hook(
    event: Annotated[
        str,
        typer.Argument(
            help="session-start | prompt-submit | session-end, or the assistant's own event name "
            "(SessionStart, UserPromptSubmit, BeforeAgent, beforeSubmitPrompt, SessionEnd, Stop …).",
            metavar="EVENT",
            show_default=False,
        ),
    ],
    assistant: Annotated[
        Optional[str],
        typer.Option(
            help="claude-code | codex-cli | gemini-cli | cursor | opencode | aider | antigravity", metavar="NAME"
        ),
    ] = None,
) -> None:
    from mem_core.hooks.runner import run_hook

    run_hook(event, assistant)
