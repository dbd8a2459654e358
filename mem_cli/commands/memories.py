"""``mem remember``, ``mem memories``, ``mem forget``, ``mem verify``, ``mem context``:
structured memories (structured-memory.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from mem_cli import output
from mem_cli.options import Directory, Json

if TYPE_CHECKING:
    from mem_core.memories.api import MemoriesResult, Memory

Value = Optional[str]

Mind = Annotated[Value, typer.Option(help="The mind (memory namespace) to use.  [default: default]", metavar="NAME")]
User = Annotated[
    bool,
    typer.Option(
        "--user",
        help="Use the user-level store (memories about you that hold across projects) instead of the project's.",
    ),
]


#: the memory a command acts on
Ref = Annotated[
    str, typer.Argument(help="The memory: its id (mem_…) or <category>/<key>.", metavar="REF", show_default=False)
]


def remember(
    category: Annotated[
        str,
        typer.Argument(
            help="identity | preference | fact | project | skill | mistake | context | note",
            metavar="CATEGORY",
            show_default=False,
        ),
    ],
    key: Annotated[
        str,
        typer.Argument(
            help="Stable snake_case key, unique within (mind, category); storing it again updates.",
            metavar="KEY",
            show_default=False,
        ),
    ],
    content: Annotated[
        list[str],
        typer.Argument(help="The memory (words are joined with spaces).", metavar="CONTENT...", show_default=False),
    ],
    tag: Annotated[
        Optional[list[str]],
        typer.Option(help="A tag (repeatable, or comma-separated); stored lower-case.", metavar="TAG"),
    ] = None,
    priority: Annotated[
        Value, typer.Option(help="low | normal | high | critical.  [default: normal]", metavar="P")
    ] = None,
    confidence: Annotated[Value, typer.Option(help="0 to 1.  [default: 0.7, or 1 with --as-user]", metavar="C")] = None,
    expires: Annotated[
        Value,
        typer.Option(
            help="When it expires: an ISO-8601 date or time, or a duration like 7d, 12h, 30m.", metavar="WHEN"
        ),
    ] = None,
    mind: Mind = None,
    user: User = False,
    as_user: Annotated[
        bool,
        typer.Option(
            "--as-user", help="Store it as said by you (source user, verified); asks you to confirm on the terminal."
        ),
    ] = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Store a structured memory, or update the one with the same category and key."""
    from mem_core.memories.api import remember as run

    result = run(
        category,
        key,
        " ".join(content),
        tags=tag,
        priority=priority,
        confidence=confidence,
        expires=expires,
        mind=mind,
        user=user,
        as_user=as_user,
        directory=directory,
    )
    if json:
        output.out_json(result)
        return
    memory = result.memory
    status = "created" if result.created else "updated" if result.changed else "unchanged"
    output.out(
        f"mem remember: {status} {memory.ref} ({memory.id}) in mind {memory.mind_id}, {result.store} store\n"
        f"  {_details(memory)}"
    )


def memories(
    category: Annotated[Value, typer.Option(help="Only this category.", metavar="C")] = None,
    tag: Annotated[
        Value,
        typer.Option(
            help="Only memories with this tag (case-insensitive); with --search, search within it.", metavar="TAG"
        ),
    ] = None,
    search: Annotated[
        Value,
        typer.Option(
            help="Full-text search over key, content and tags (every word must match), best first.", metavar="TEXT"
        ),
    ] = None,
    expiring: Annotated[
        Value,
        typer.Option(
            help="Only those expiring within this duration (7d, 12h, 30m), expired ones included, soonest first.",
            metavar="DURATION",
        ),
    ] = None,
    include_expired: Annotated[bool, typer.Option("--include-expired", help="Also list expired memories.")] = False,
    source: Annotated[Value, typer.Option(help="Only memories stored by user | agent.", metavar="S")] = None,
    priority: Annotated[Value, typer.Option(help="Only this priority.", metavar="P")] = None,
    unverified: Annotated[bool, typer.Option("--unverified", help="Only memories no human has verified yet.")] = False,
    mind: Mind = None,
    user: User = False,
    limit: Annotated[Value, typer.Option(help="At most this many.", metavar="N")] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """List, filter or search structured memories, or show what expires soon."""
    from mem_core.memories.api import list_memories

    result = list_memories(
        category=category,
        tag=tag,
        search=search,
        expiring=expiring,
        include_expired=include_expired,
        source=source,
        priority=priority,
        verified=False if unverified else None,
        mind=mind,
        user=user,
        limit=limit,
        directory=directory,
    )
    if json:
        output.out_json(result)
        return
    output.out(_listing(result))


def _listing(result: MemoriesResult) -> str:
    from mem_core.retrieval.text import one_line

    where = f"in mind {result.mind} ({result.store} store)"
    n = len(result.memories)
    if result.search is not None:
        head = f'{n} match(es) for "{result.search}"' if n else f'no matches for "{result.search}"'
    elif result.expiring is not None:
        head = f"{n} expiring within {result.expiring}" if n else f"none expiring within {result.expiring}"
    else:
        head = f"{n} memor{'y' if n == 1 else 'ies'}" if n else "no memories"
    lines = [f"mem memories: {head} {where}"]
    for number, memory in enumerate(result.memories, 1):
        marks = f"[{'verified' if memory.verified else 'unverified'}]"
        if memory.expired(result.now):
            marks += " [expired]"
        lines.append(f"  {number}. {memory.ref} ({memory.priority.upper()}) {marks}")
        lines.append(f"     {one_line(memory.content)}")
        lines.append(f"     {_details(memory, listing=True)}")
    return "\n".join(lines)


def _details(memory: Memory, listing: bool = False) -> str:
    """``key=value`` details of a memory (a listing's first line already
    shows the priority and the verification)."""
    from mem_core.js.jsonfmt import js_number

    tags = ",".join(memory.tags) or "-"
    rest = f"confidence={js_number(memory.confidence)} expires={memory.expires_at or '-'} tags={tags}"
    if listing:
        return f"source={memory.source} {rest} id={memory.id}"
    verified = "true" if memory.verified else "false"
    return f"priority={memory.priority} source={memory.source} verified={verified} {rest}"


def forget(
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Delete a structured memory (its history keeps a tombstone); one a human
    confirmed is deleted only after you confirm on the terminal."""
    from mem_core.memories.api import forget as run

    result = run(ref, mind=mind, user=user, directory=directory)
    if json:
        output.out_json(result)
        return
    memory = result.memory
    output.out(f"mem forget: forgot {memory.ref} ({memory.id}) from mind {memory.mind_id}, {result.store} store")


def verify(
    ref: Ref,
    mind: Mind = None,
    user: User = False,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Mark a memory as verified by you; asks you to confirm on the terminal."""
    from mem_core.memories.api import verify as run

    result = run(ref, mind=mind, user=user, directory=directory)
    if json:
        output.out_json(result)
        return
    memory = result.memory
    where = f"mind {memory.mind_id}, {result.store} store"
    if result.changed:
        output.out(f"mem verify: verified {memory.ref} ({memory.id}) in {where}")
    else:
        output.out(f"mem verify: {memory.ref} ({memory.id}) was already verified ({where})")


def context(
    mind: Mind = None,
    user: User = False,
    limit: Annotated[
        Value, typer.Option(help="Show at most this many memories (the counts stay totals).", metavar="N")
    ] = None,
    directory: Directory = None,
    json: Json = False,
) -> None:
    """The context summary of a mind: plain text for an LLM, critical first, expired left out."""
    from mem_core.memories.api import context_summary

    result = context_summary(mind=mind, user=user, limit=limit, directory=directory)
    if json:
        output.out_json(result)
        return
    output.out(result.text)


def register(app: typer.Typer) -> None:
    app.command()(remember)
    app.command()(memories)
    app.command()(forget)
    app.command()(verify)
    app.command()(context)
