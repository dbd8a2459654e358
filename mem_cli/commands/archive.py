"""``mem archive``: move the oldest lines of the journal or the promotions
store to ``.bmad/memory/archive/`` before the store is full (recall keeps
reading them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, PROJECT
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.archive import archive

    result = archive(store=values["store"], keep=values["keep"], directory=values["directory"], kernel=kernel)
    if values["json"]:
        output.out_json(result)
        return
    lines = []
    for entry in result.stores:
        if entry["completed"]:
            lines.append(f"{entry['store']}: finished an interrupted archive ({entry['completed']})")
        if entry["file"]:
            lines.append(
                f"{entry['store']}: archived {entry['archived_lines']} lines ({entry['archived_bytes']} bytes) "
                f"to {entry['file']}; kept {entry['kept_lines']} lines ({entry['kept_bytes']} bytes)"
            )
        elif not entry["completed"]:
            lines.append(f"{entry['store']}: nothing to archive ({entry['kept_bytes']} bytes)")
    output.out("\n".join(lines))


COMMAND = Command(
    "archive",
    "Move the oldest whole lines of the journal and the promotions store to "
    ".bmad/memory/archive/<store>-<first ts>-<last ts>.ndjson under the writer lock (nothing lost, "
    "nothing duplicated, safe to kill); recall still reads the archived events.",
    group=PROJECT,
    run=run,
    options=(
        Option(
            "store",
            "--store",
            "Archive only this store: journal or promotions (the outcome store is never archived).  [default: both]",
            metavar="STORE",
        ),
        Option(
            "keep",
            "--keep",
            "Keep at most this many bytes of the newest whole lines, whatever the store's size.  "
            "[default: archive only a store over 75 % of 2 MiB, keeping 1 MiB]",
            metavar="BYTES",
        ),
        DIRECTORY,
        JSON,
    ),
)
