"""``mem recall``: ranked retrieval (mem-cli.md §2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import AGENT, DIRECTORY, JSON
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_cli import render
    from mem_core.api.recall import recall

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


COMMAND = Command(
    "recall",
    "Ranked retrieval over the journal, the Markdown notes and the other note sources.",
    group=AGENT,
    run=run,
    arguments=(Argument("query", "Words to look for (joined with spaces).", multiple=True),),
    options=(
        DIRECTORY,
        Option(
            "scope", "--scope",
            "project | portfolio (adds <portfolio>/memory/) | all (every project of mem portfolio list, and the brain).",
            metavar="SCOPE",
        ),
        Option(
            "portfolio", "--portfolio",
            "Portfolio brain directory, searched with --scope portfolio or all (default: mem portfolio brain).",
            metavar="PATH",
        ),
        Option("limit", "--limit", "How many results to keep.  [default: 8]", metavar="N"),
        Option(
            "ranking", "--ranking",
            "lexical (default, or the recall_ranking setting) | bm25 (accents, stems, CJK) | evidence "
            "| hybrid (bm25 + embeddings) | a plugin's ranker.",
            metavar="MODE",
        ),
        Option(
            "context_scope", "--context-scope", "Comma-separated project paths the question is about (evidence ranking).",
            metavar="PATHS",
        ),
        JSON,
    ),
)  # fmt: skip
