"""``mem memories``: list, filter or search structured memories; its
subcommands show a memory's history, restore a version, and move a store
(``export``, ``import``, ``migrate``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, MEMORIES, MIND, REF, USER, show
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import list_memories

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
    show(result, values["json"], "memories")


def history(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import memory_history

    result = memory_history(
        values["ref"], mind=values["mind"], user=values["user"], directory=values["directory"], kernel=kernel
    )
    show(result, values["json"], "history")


def restore(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import restore

    result = restore(
        values["ref"],
        values["version"],
        mind=values["mind"],
        user=values["user"],
        directory=values["directory"],
        kernel=kernel,
    )
    show(result, values["json"], "restore")


def export(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.transfer import export_memories

    to = values["to"]
    result = export_memories(
        None if to == "-" else to, user=values["user"], directory=values["directory"], kernel=kernel
    )
    if to == "-":
        if result.text:  # JSON Lines: nothing at all for an empty store
            output.out(result.text.removesuffix("\n"))
        return
    show(result, values["json"], "exported")


def import_(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.transfer import import_memories

    source = values["source"]
    result = import_memories(
        None if source == "-" else source, user=values["user"], directory=values["directory"], kernel=kernel
    )
    show(result, values["json"], "imported")


def migrate(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.transfer import migrate_store

    result = migrate_store(values["to"], user=values["user"], directory=values["directory"], kernel=kernel)
    show(result, values["json"], "migrated")


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
    subcommands=(
        Command(
            "history",
            "Every version of a memory, oldest first: created, updated, verified, restored, and the tombstone "
            "of a forgotten one (name that by its id).",
            run=history,
            arguments=(REF,),
            options=(MIND, USER, DIRECTORY, JSON),
        ),
        Command(
            "restore",
            "Bring back a version of a memory (its content, tags, priority, confidence, expiry), stored by an "
            "agent: unverified. A forgotten memory comes back by its id. A memory a human stated only a human "
            "can change.",
            run=restore,
            arguments=(
                REF,
                Argument("version", "The version to bring back (its number in `mem memories history`).", metavar="VERSION"),
            ),
            options=(MIND, USER, DIRECTORY, JSON),
        ),
        Command(
            "export",
            "Write every memory (forgotten ones too) with its history and its signatures as JSON Lines, one "
            "memory per line, for `mem memories import`.",
            run=export,
            options=(
                Option(
                    "to", "--output", "The file to write (replaced atomically), or - for stdout.",
                    short="-o", metavar="FILE", default="-",
                ),
                USER,
                DIRECTORY,
                JSON,
            ),
        ),
        Command(
            "import",
            "Read memories from an export into this store, in one transaction: memories already there (by id) "
            "are left as they are; each keeps its source and history, and reads verified only where a "
            "signature proves it.",
            run=import_,
            arguments=(Argument("source", "A file `mem memories export` wrote (JSON Lines), or - for stdin.", metavar="FILE"),),
            options=(USER, DIRECTORY, JSON),
        ),
        Command(
            "migrate",
            "Copy the store to another backend, check the copy (counts, content hashes, history), then select "
            "the new backend in the config file. The old store is kept: this says what to delete.",
            run=migrate,
            options=(
                Option("to", "--to", "The backend to move the store to: postgres | sqlite.", metavar="BACKEND", required=True),
                USER,
                DIRECTORY,
                JSON,
            ),
        ),
    ),
)  # fmt: skip
