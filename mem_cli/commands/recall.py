"""``mem recall``: ranked retrieval (mem-cli.md §2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

HELP = "Ranked retrieval over the journal, the Markdown notes and the other note sources."


def run(values: Mapping[str, Any], kernel: Kernel | None = None) -> None:
    from mem_cli import render
    from mem_core.retrieval.api import recall

    result = recall(
        " ".join(values["query"] or []),
        directory=values["directory"],
        scope=values["scope"],
        portfolio=values["portfolio"],
        limit=values["limit"],
        ranking=values["ranking"],
        context_scope=values["context_scope"],
        kernel=kernel,
    )
    if values["json"]:
        output.out_json(result)
        return
    for line in render.recall_skipped(result):
        output.err(output.one_line(line))
    output.out(render.recall(result))
    for line in render.recall_hints(result):  # after the reference's "no matches" line, on stderr
        output.err(line)
    for note in result.notes:
        output.err(f"mem recall: note: {output.one_line(note)}")
