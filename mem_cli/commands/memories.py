"""``mem memories``: list, filter or search structured memories; its
subcommands show a memory's history, restore a version, and move a store
(``export``, ``import``, ``migrate``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, MEMORIES, MIND, USER
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    import typer

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.memories.service import list_memories

    result = list_memories(
        category=values["category"],
        tag=values["tag"],
        search=values["search"],
        expiring=values["expiring"],
        include_expired=values["include_expired"],
        source=values["source"],
        priority=values["priority"],
        verified=False if values["unverified"] else None,
        mind=values["mind"],
        user=values["user"],
        limit=values["limit"],
        directory=values["directory"],
        kernel=kernel,
        kernel_settings=settings,
    )
    from mem_cli import render

    output.show(result, values["json"], render.memories)


COMMAND = Command(
    "memories",
    "List, filter or search structured memories, or show what expires soon; "
    "`mem memories history|restore|export|import|migrate` for the rest of their lifecycle.",
    group=MEMORIES,
    run=run,
    light=True,
    options=(
        Option("category", "--category", "Only this category.", metavar="C"),
        Option(
            "tag", "--tag", "Only memories with this tag (case-insensitive); with --search, search within it.",
            metavar="TAG",
        ),
        Option(
            "search", "--search",
            "Full-text search over key, content and tags: memories holding some of the words, best first "
            "(accents and case ignored; caching finds cache, config finds configuration).",
            metavar="TEXT",
        ),
        Option(
            "expiring", "--expiring",
            "Only those expiring within this duration (7d, 12h, 30m), expired ones included, soonest first.",
            metavar="DURATION",
        ),
        Option("include_expired", "--include-expired", "Also list expired memories."),
        Option("source", "--source", "Only memories stored by user | agent.", metavar="S"),
        Option("priority", "--priority", "Only this priority.", metavar="P"),
        Option("unverified", "--unverified", "Only memories no human has verified yet."),
        MIND,
        USER,
        Option("limit", "--limit", "At most this many.", metavar="N"),
        DIRECTORY,
        JSON,
    ),
)  # fmt: skip


def register(app: typer.Typer, listing: Callable[..., Any]) -> None:
    """The group: ``listing`` (the declared command) runs without a
    subcommand; the subcommands are typer's (:mod:`mem_cli.commands.memories_lifecycle`)."""
    from mem_cli.commands.memories_lifecycle import memories_app

    memories_app.info.help = COMMAND.help
    memories_app.callback(invoke_without_command=True)(listing)
    app.add_typer(memories_app, rich_help_panel=MEMORIES)
