"""``mem recall`` and ``mem write``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_core.jsonfmt import to_fixed

from .. import output
from ..options import Directory, Json

Value = Optional[str]


def recall(
    query: Annotated[Optional[list[str]], typer.Argument(help="Words to look for (joined with spaces).", show_default=False)] = None,
    directory: Directory = None,
    scope: Annotated[Value, typer.Option(help="project | portfolio (portfolio adds <portfolio>/memory/).", metavar="SCOPE")] = None,
    portfolio: Annotated[Value, typer.Option(help="Portfolio brain directory, searched with --scope portfolio.", metavar="PATH")] = None,
    limit: Annotated[Value, typer.Option(help="How many results to keep.  [default: 8]", metavar="N")] = None,
    ranking: Annotated[Value, typer.Option(help="lexical (default) | evidence | a plugin's ranker.", metavar="MODE")] = None,
    context_scope: Annotated[Value, typer.Option("--context-scope", help="Comma-separated project paths the question is about (evidence ranking).", metavar="PATHS")] = None,
    json: Json = False,
) -> None:
    """Ranked retrieval over the journal, the Markdown notes and the other note sources."""
    from mem_core.api import recall as run

    result = run(
        " ".join(query or []),
        directory=directory,
        scope=scope,
        portfolio=portfolio,
        limit=limit,
        ranking=ranking,
        context_scope=context_scope,
    )
    if json:
        output.out_json(result)
        return
    from mem_core.text import one_line

    for skipped in result.skipped:
        output.err(f"mem recall: skipped {skipped['path']}: {skipped['reason']}")
    if not result.results:
        output.out(f'mem recall: no matches for "{result.query}" (scope: {result.scope})')
        return
    lines = [f'mem recall: {len(result.results)} match(es) for "{result.query}" (scope: {result.scope})']
    for i, hit in enumerate(result.results, 1):
        fields = hit.fields
        if fields["kind"] == "event":
            origin = f"event {_s(fields['source'])}#{_s(fields['ref'])}"
        else:
            origin = f"{fields['kind']} {_s(fields['source'])} § {_s(fields['ref'])}"
        lines.append(f"  {i}. [{to_fixed(hit.score, 3)}] {origin}")
        lines.append(f"     {one_line(_s(fields['text']))}")
    output.out("\n".join(lines))


def _s(value: object) -> str:
    from mem_core.jsvalues import js_string

    return js_string(value)


def write(
    directory: Directory = None,
    agent: Annotated[Value, typer.Option(help="Agent that produced the event (required).", metavar="NAME")] = None,
    cli: Annotated[Value, typer.Option(help="Driving assistant: claude-code, gemini-cli, codex-cli, cursor, opencode, aider, antigravity …", metavar="NAME")] = None,
    model: Annotated[Value, typer.Option(help="Model id, recorded as is.", metavar="ID")] = None,
    task: Annotated[Value, typer.Option(help="What was attempted.", metavar="TEXT")] = None,
    outcome: Annotated[Value, typer.Option(help="success | failure | partial | abandoned", metavar="OUTCOME")] = None,
    eval_: Annotated[Value, typer.Option("--eval", help="Reward signal: eval suite score in [0,1].", metavar="SCORE")] = None,
    accept: Annotated[Value, typer.Option(help="Reward signal: true | false | yes | no | [0,1].", metavar="BOOL")] = None,
    ci: Annotated[Value, typer.Option(help="Reward signal: pass | fail | [0,1].", metavar="RESULT")] = None,
    signal: Annotated[Optional[list[str]], typer.Option(help="A plugin's reward signal, NAME=VALUE (repeatable).", metavar="NAME=VALUE")] = None,
    json: Json = False,
) -> None:
    """Append a structured event to .bmad/memory/journal.ndjson."""
    from mem_core.api import write as run

    result = run(
        agent=agent,
        directory=directory,
        cli=cli,
        model=model,
        task=task,
        outcome=outcome,
        signals=signal_options(eval_, accept, ci, signal),
    )
    if json:
        output.out_json(result)
        return
    from mem_core.text import one_line

    event = result.written
    lines = [
        f"mem write: event {event['id']} appended ({event['ts']})",
        f"  agent={event['agent']} cli={event['cli'] or '-'} model={event['model'] or '-'} outcome={event['outcome'] or '-'}",
    ]
    if event["task"]:
        lines.append(f"  task: {one_line(event['task'])}")
    output.out("\n".join(lines))


def signal_options(
    eval_: str | None, accept: str | None, ci: str | None, extra: list[str] | None
) -> dict[str, str]:
    """The reward-signal options given, by signal name."""
    from mem_core.errors import UsageError

    given = {name: value for name, value in (("eval", eval_), ("accept", accept), ("ci", ci)) if value is not None}
    for item in extra or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--signal takes NAME=VALUE, got '{item}'")
        given[name.strip()] = value
    return given


def register(app: typer.Typer) -> None:
    app.command()(recall)
    app.command()(write)
