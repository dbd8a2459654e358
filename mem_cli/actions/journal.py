"""``mem recall`` and ``mem write``."""

from __future__ import annotations

from mem_cli import output


def recall(
    query: list[str] | None = None,
    directory: str | None = None,
    scope: str | None = None,
    portfolio: str | None = None,
    limit: str | None = None,
    ranking: str | None = None,
    context_scope: str | None = None,
    json: bool = False,
) -> None:
    """Ranked retrieval; text as ``bmad-plus mem`` prints it (mem-cli.md §2)."""
    from mem_core.retrieval.api import recall as run

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
    from mem_core.js.jsonfmt import to_fixed
    from mem_core.js.values import js_string
    from mem_core.retrieval.text import one_line

    for skipped in result.skipped:
        output.err(f"mem recall: skipped {skipped['path']}: {skipped['reason']}")
    if not result.results:
        output.out(f'mem recall: no matches for "{result.query}" (scope: {result.scope})')
        return
    lines = [f'mem recall: {len(result.results)} match(es) for "{result.query}" (scope: {result.scope})']
    for i, hit in enumerate(result.results, 1):
        fields = hit.fields
        source, ref = js_string(fields["source"]), js_string(fields["ref"])
        origin = f"event {source}#{ref}" if fields["kind"] == "event" else f"{fields['kind']} {source} § {ref}"
        lines.append(f"  {i}. [{to_fixed(hit.score, 3)}] {origin}")
        lines.append(f"     {one_line(js_string(fields['text']))}")
    output.out("\n".join(lines))


def write(
    directory: str | None = None,
    agent: str | None = None,
    cli: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    eval: str | None = None,
    accept: str | None = None,
    ci: str | None = None,
    signal: list[str] | None = None,
    json: bool = False,
) -> None:
    """Append one journal event; text as ``bmad-plus mem`` prints it (§3)."""
    from mem_core.journal.api import write as run

    result = run(
        agent=agent,
        directory=directory,
        cli=cli,
        model=model,
        task=task,
        outcome=outcome,
        signals=signal_options(eval, accept, ci, signal),
    )
    if json:
        output.out_json(result)
        return
    from mem_core.retrieval.text import one_line

    event = result.written
    lines = [
        f"mem write: event {event['id']} appended ({event['ts']})",
        f"  agent={event['agent']} cli={event['cli'] or '-'} model={event['model'] or '-'} "
        f"outcome={event['outcome'] or '-'}",
    ]
    if event["task"]:
        lines.append(f"  task: {one_line(event['task'])}")
    output.out("\n".join(lines))


def signal_options(eval_: str | None, accept: str | None, ci: str | None, extra: list[str] | None) -> dict[str, str]:
    """The reward-signal options given, by signal name (``--signal NAME=VALUE``
    for a plugin's signal)."""
    from mem_core.errors import UsageError

    given = {name: value for name, value in (("eval", eval_), ("accept", accept), ("ci", ci)) if value is not None}
    for item in extra or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--signal takes NAME=VALUE, got '{item}'")
        given[name.strip()] = value
    return given
