"""``mem brief``: what an agent should know at the start of a session, within
a token budget (docs/brief.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output
from mem_cli.options import Directory, Json

Budget = Annotated[
    Optional[str],
    typer.Option(help="At most this many tokens (estimated).  [default: the context_budget setting, 1500]",
                 metavar="TOKENS"),
]  # fmt: skip


def brief(
    ctx: typer.Context,
    budget: Budget = None,
    write: Annotated[
        bool,
        typer.Option("--write", help="Also write it to .bmad/memory/brief.md (mem write and remember refresh it)."),
    ] = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """The session brief: critical/high memories, note headings, recent failures, proposed promotions."""
    from mem_core.brief.api import brief as make_brief
    from mem_core.brief.api import write_brief

    call = write_brief if write else make_brief
    result = call(directory=directory, budget=budget, kernel=ctx.obj)
    if json:
        output.out_json(result)
        return
    for skipped in result.skipped:
        output.err(output.one_line(f"mem brief: skipped {skipped['path']}: {skipped['reason']}"))
    if result.written:
        output.out(f"mem brief: wrote {result.written} ({result.fitted.tokens} of {result.fitted.budget} tokens)")
    else:
        output.out(result.text)


def register(app: typer.Typer) -> None:
    app.command()(brief)
