"""typer declarations of ``mem recall`` and ``mem write`` (help texts; the
bodies are in :mod:`mem_cli.actions.journal`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli.actions import journal as actions
from mem_cli.actions.journal import signal_options  # noqa: F401  (re-exported for other commands)
from mem_cli.options import Accept, Ci, Directory, Eval, Json, Signal

Value = Optional[str]


def recall(
    query: Annotated[
        Optional[list[str]], typer.Argument(help="Words to look for (joined with spaces).", show_default=False)
    ] = None,
    directory: Directory = None,
    scope: Annotated[
        Value, typer.Option(help="project | portfolio (portfolio adds <portfolio>/memory/).", metavar="SCOPE")
    ] = None,
    portfolio: Annotated[
        Value, typer.Option(help="Portfolio brain directory, searched with --scope portfolio.", metavar="PATH")
    ] = None,
    limit: Annotated[Value, typer.Option(help="How many results to keep.  [default: 8]", metavar="N")] = None,
    ranking: Annotated[
        Value, typer.Option(help="lexical (default) | evidence | a plugin's ranker.", metavar="MODE")
    ] = None,
    context_scope: Annotated[
        Value,
        typer.Option(
            "--context-scope",
            help="Comma-separated project paths the question is about (evidence ranking).",
            metavar="PATHS",
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Ranked retrieval over the journal, the Markdown notes and the other note sources."""
    actions.recall(query, directory, scope, portfolio, limit, ranking, context_scope, json)


def write(
    directory: Directory = None,
    agent: Annotated[Value, typer.Option(help="Agent that produced the event (required).", metavar="NAME")] = None,
    cli: Annotated[
        Value,
        typer.Option(
            help="Driving assistant: claude-code, gemini-cli, codex-cli, cursor, opencode, aider, antigravity …",
            metavar="NAME",
        ),
    ] = None,
    model: Annotated[Value, typer.Option(help="Model id, recorded as is.", metavar="ID")] = None,
    task: Annotated[Value, typer.Option(help="What was attempted.", metavar="TEXT")] = None,
    outcome: Annotated[Value, typer.Option(help="success | failure | partial | abandoned", metavar="OUTCOME")] = None,
    eval_: Eval = None,
    accept: Accept = None,
    ci: Ci = None,
    signal: Signal = None,
    json: Json = False,
) -> None:
    """Append a structured event to .bmad/memory/journal.ndjson."""
    actions.write(directory, agent, cli, model, task, outcome, eval_, accept, ci, signal, json)


def register(app: typer.Typer) -> None:
    app.command()(recall)
    app.command()(write)
