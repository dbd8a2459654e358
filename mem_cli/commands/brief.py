"""``mem brief``: what an agent should know at the start of a session, within
a token budget (docs/brief.md)."""

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
    from mem_core.api.brief import brief, write_brief

    call = write_brief if values["write"] else brief
    result = call(directory=values["directory"], budget=values["budget"], kernel=kernel)
    if values["json"]:
        output.out_json(result)
        return
    for skipped in result.skipped:
        output.err(output.one_line(f"mem brief: skipped {skipped['path']}: {skipped['reason']}"))
    if result.written:
        output.out(f"mem brief: wrote {result.written} ({result.fitted.tokens} of {result.fitted.budget} tokens)")
    else:
        output.out(result.text)


COMMAND = Command(
    "brief",
    "The session brief: critical/high memories, note headings, recent failures, proposed promotions.",
    group=PROJECT,
    run=run,
    options=(
        Option(
            "budget",
            "--budget",
            "At most this many tokens (estimated).  [default: the context_budget setting, 1500]",
            metavar="TOKENS",
        ),
        Option("write", "--write", "Also write it to .bmad/memory/brief.md (mem write and remember refresh it)."),
        DIRECTORY,
        JSON,
    ),
)
