"""``mem remember``: store a structured memory (structured-memory.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, HUMAN, JSON, MEMORIES, MIND, USER, show
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import remember
    from mem_core.memories.validate import content_of

    result = remember(
        values["category"],
        values["key"],
        content_of(values["content"], values["text"], values["content_file"]),
        tags=values["tag"],
        priority=values["priority"],
        confidence=values["confidence"],
        expires=values["expires"],
        no_tags=values["no_tags"],
        no_expiry=values["no_expiry"],
        mind=values["mind"],
        user=values["user"],
        as_user=values["as_user"],
        human=values["human"],
        directory=values["directory"],
        kernel=kernel,
        kernel_settings=settings,
    )
    show(result, values["json"], "remember")


COMMAND = Command(
    "remember",
    "Store a structured memory, or update the one with the same category and key "
    "(what an update does not mention keeps its value).",
    group=MEMORIES,
    run=run,
    light=True,
    arguments=(
        Argument(
            "category", "identity | preference | fact | project | skill | mistake | context | note", metavar="CATEGORY"
        ),
        Argument("key", "Stable snake_case key, unique within (mind, category); storing it again updates.", metavar="KEY"),
        Argument(
            "content",
            "The memory (words are joined with spaces); put -- before it when it starts with -; "
            "- alone reads it from stdin.",
            metavar="[CONTENT]...",
            multiple=True,
        ),
    ),
    options=(
        Option("text", "--content", "The memory as one option value (may start with -).", metavar="TEXT"),
        Option("content_file", "--content-file", "Read the memory from this file (UTF-8, at most 16 KiB).", metavar="FILE"),
        Option(
            "tag", "--tag",
            "A tag (repeatable, or comma-separated); stored lower-case; on an update it replaces the tags.",
            metavar="TAG", multiple=True,
        ),
        Option("no_tags", "--no-tags", "Remove every tag (on an update)."),
        Option("priority", "--priority", "low | normal | high | critical.  [default: normal; an update keeps it]", metavar="P"),
        Option("confidence", "--confidence", "0 to 1.  [default: 0.7, or 1 with --as-user; an update keeps it]", metavar="C"),
        Option(
            "expires", "--expires",
            "When it expires: an ISO-8601 date or time, or a duration like 7d, 12h, 30m (an update keeps it).",
            metavar="WHEN",
        ),
        Option("no_expiry", "--no-expiry", "Make it never expire (on an update)."),
        MIND,
        USER,
        Option(
            "as_user", "--as-user",
            "Store it as said by you (source user), signed with your human key: asks its passphrase on "
            "the terminal (where no human key is trusted, asks you to confirm there).",
        ),
        HUMAN,
        DIRECTORY,
        JSON,
    ),
)  # fmt: skip
