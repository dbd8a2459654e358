"""What the ``prompt-submit`` hook adds to a prompt: a recall for the prompt's
words, only the results at or above the relevance floor, within a budget.

The prompt is a sentence, not a query: its common English words (``how``,
``should``, ``the`` …) would only lower every score (recall's coverage
factor divides by the number of query words), so they are dropped, and at
most :data:`MAX_WORDS` words are kept. Nothing relevant: no text at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mem_core.brief.api import shown
from mem_core.brief.budget import Fitted, Section, fit
from mem_core.retrieval.text import tokenize

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.retrieval.interfaces import Scored

__all__ = ["STOPWORDS", "MAX_WORDS", "prompt_query", "PromptContext", "prompt_context"]

MAX_WORDS = 24
#: how many results recall is asked for, before the floor and the budget
RESULTS = 8
HEAD = "Project memory relevant to this prompt (from `mem recall`; read more with `mem recall <topic>`):"
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been before being below
    between both but by can could did didn do does doesn doing don down during each else few for from further get
    got had hadn has hasn have haven having he her here hers herself him himself his how however if in into is
    isn it its itself just let like ll make me might more most must mustn my myself need no nor not now of off
    on once only or other our ours ourselves out over own please re same shall she should shouldn so some such
    than thanks thank that the their theirs them themselves then there these they this those through to too
    under until up us use used using ve very via was wasn we were weren what when where which while who whom
    why will with won would wouldn yes yet you your yours yourself yourselves
    """.split()
)


def prompt_query(prompt: str) -> str:
    """The recall query of a prompt: its words in order, once each, without
    common English words, at most :data:`MAX_WORDS`."""
    words = [word for word in dict.fromkeys(tokenize(prompt)) if word not in STOPWORDS]
    return " ".join(words[:MAX_WORDS])


def _item(hit: Scored) -> str:
    fields = hit.fields
    kind = fields.get("kind")
    score = f"[{hit.score:.2f}]"
    if kind == "note":
        text = str(fields.get("text", ""))
        body = text.split("\n", 1)[1] if "\n" in text else ""
        where = (
            f"{shown(str(fields.get('sourceFile') or fields.get('source')), 100)} § {shown(str(fields['ref']), 120)}"
        )
        return f"- {where} {score}\n  {shown(body, 300)}"
    if kind == "event":
        return f"- journal event {shown(str(fields.get('ref')), 40)} {score}: {shown(str(fields.get('text', '')), 240)}"
    if kind == "memory":
        record = fields.get("memory") or {}
        mark = "" if fields.get("verified") else " [unverified]"
        content = record.get("content") if isinstance(record, dict) else fields.get("text")
        return f"- memory {shown(str(fields.get('ref')), 140)}{mark} {score}: {shown(str(content), 240)}"
    where = f"{shown(str(kind), 40)} {shown(str(fields.get('source')), 60)} § {shown(str(fields.get('ref')), 100)}"
    return f"- {where} {score}: {shown(str(fields.get('text', '')), 240)}"


class PromptContext:
    """The results kept for one prompt, and the text that fits."""

    def __init__(self, query: str, floor: float, results: list[Scored], fitted: Fitted | None) -> None:
        self.query = query
        self.floor = floor
        self.results = results
        self.fitted = fitted
        #: what recall skipped (an unreadable file or store)
        self.skipped: list[dict[str, str]] = []

    @property
    def text(self) -> str:
        return self.fitted.text if self.fitted is not None else ""

    def to_json(self) -> dict[str, Any]:
        kept = self.fitted.kept.get("results", 0) if self.fitted is not None else 0
        return {
            "query": self.query,
            "floor": self.floor,
            "results": [hit.to_json() for hit in self.results[:kept]],
            "omitted": len(self.results) - kept,
            "text": self.text,
        }


def prompt_context(prompt: str, *, project: str, floor: float, budget: int, kernel: Kernel) -> PromptContext:
    """The recall of ``prompt`` in ``project``: the results scoring at least
    ``floor``, best first, fitted into ``budget`` tokens."""
    from mem_core.retrieval.api import recall

    query = prompt_query(prompt)
    if not query:
        return PromptContext(query, floor, [], None)
    result = recall(query, directory=project, limit=RESULTS, ranking="lexical", kernel=kernel, index=True)
    kept = [hit for hit in result.results if hit.score >= floor]
    context = PromptContext(query, floor, kept, None)
    context.skipped = result.skipped
    if kept:
        section = Section("results", "", [_item(hit) for hit in kept], hint="mem recall <topic>")
        context.fitted = fit([HEAD], [section], budget)
    return context
