"""What the ``prompt-submit`` hook adds to a prompt: a recall for the prompt's
words with the project's ranking (the ``recall_ranking`` setting), at most
:data:`RESULTS` results at or above the relevance floor of that ranking
that share enough of the prompt's words (:data:`SHARED`), within a budget.

The events the ``session-end`` hook journalled (``"via": "session-end"``)
are no candidates of the hook's recall: each is the first prompt of a past
session, the echo of a prompt rather than something the project knows. Ranked,
it would outrank the note a prompt is about for the very words it repeats,
and — the best of a min-max normalised list — push every other score of the
``hybrid`` ranking under the floor.

The prompt is a sentence, not a query: its common English words (``how``,
``should``, ``the`` …) would only lower every score (recall's coverage
factor divides by the number of query words), so they are dropped, as are
the words a prompt uses to ask for memory rather than to name a topic
("what did we *decide* about …", "do you *remember* …": a decision's
text rarely says "decide"), and at most :data:`MAX_WORDS` words are kept.
Nothing relevant: no text at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mem_core.api.brief import shown
from mem_core.api.trust import backed_notes, trust
from mem_core.brief.budget import Fitted, Section, fit
from mem_core.text import tokenize

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.retrieval.query import Scored
    from mem_core.settings import Settings

__all__ = ["STOPWORDS", "MAX_WORDS", "ECHO", "prompt_query", "PromptContext", "prompt_context", "hook_floor"]

MAX_WORDS = 24
#: the most results the hook adds to a prompt, before the budget
RESULTS = 4
#: the ``via`` of the journal events the session-end hook writes
ECHO = "session-end"
#: how many results recall is asked for: the best of them may share too
#: few of the prompt's words (:data:`SHARED`) and leave their place to
#: the next
DEPTH = 68
#: the floor of each built-in ranking when ``hook_relevance`` is not set
#: (their scores are on different scales; calibrated on benchmarks/hooks/,
#: docs/brief.md)
FLOORS = {"lexical": 0.12, "bm25": 3.0, "hybrid": 0.2}
#: rankings the hook never runs itself, and what it ranks with in their
#: place when no long-lived process serves them (:mod:`mem_core.hooks.service`):
#: ``hybrid`` loads an embedding model, 0.4-1.2 s a process on a 2-core
#: machine (docs/recall.md), where the whole hook has 150 ms; its lexical
#: half serves the prompt
IN_HOOK = {"hybrid": "bm25"}
#: a result shown shares at least this many of the prompt's words (all of a
#: shorter prompt's, and never fewer than :data:`SHARED_AT_LEAST`): one word
#: in common is what chit-chat has with documentation ("hello" and a hello
#: world example), and what no relevant prompt of benchmarks/hooks/ needed
SHARED = 3
SHARED_AT_LEAST = 2
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
    agree agreed chose choose chosen decide decided decides deciding decision decisions know knew remember
    remembered
    """.split()
)


def prompt_query(prompt: str) -> str:
    """The recall query of a prompt: its words in order, once each, without
    common English words, at most :data:`MAX_WORDS`."""
    words = [word for word in dict.fromkeys(tokenize(prompt)) if word not in STOPWORDS]
    return " ".join(words[:MAX_WORDS])


def _item(hit: Scored, label: str) -> str:
    fields = hit.fields
    kind = fields.get("kind")
    score = f"[{hit.score:.2f}] [{label}]"
    if kind == "note":
        text = str(fields.get("text", ""))
        body = text.split("\n", 1)[1] if "\n" in text else ""
        where = (
            f"{shown(str(fields.get('sourceFile') or fields.get('source')), 100)} § {shown(str(fields['ref']), 120)}"
        )
        return f"- {where} {score}\n  {shown(body, 240)}"
    if kind == "event":
        return f"- journal event {shown(str(fields.get('ref')), 40)} {score}: {shown(str(fields.get('text', '')), 240)}"
    if kind == "memory":
        record = fields.get("memory") or {}
        content = record.get("content") if isinstance(record, dict) else fields.get("text")
        return f"- memory {shown(str(fields.get('ref')), 140)} {score}: {shown(str(content), 240)}"
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
        #: the context as a long-lived process ranked it (:mod:`mem_core.hooks.service`)
        self.served: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        if self.served is not None:
            return str(self.served["text"])
        return self.fitted.text if self.fitted is not None else ""

    def to_json(self) -> dict[str, Any]:
        if self.served is not None:
            return self.served
        kept = self.fitted.kept.get("results", 0) if self.fitted is not None else 0
        return {
            "query": self.query,
            "floor": self.floor,
            "results": [hit.to_json() for hit in self.results[:kept]],
            "omitted": len(self.results) - kept,
            "text": self.text,
        }


def hook_floor(settings: Settings, ranking: str) -> float:
    """The score a result of ``ranking`` needs to be shown: the
    ``hook_relevance`` setting where one is set, else the ranking's
    calibrated floor (:data:`FLOORS`), else the setting's default."""
    if settings.layer("hook_relevance") == "default":
        return FLOORS.get(ranking, settings.hook_relevance)
    return settings.hook_relevance


def _shares_enough(hit: Scored, words: set[str]) -> bool:
    """Whether ``hit`` holds enough of the prompt's ``words`` (compared as
    ``bm25`` compares them, stems of folded words, whatever ranked it)."""
    from mem_core.retrieval.analysis import terms

    shared = len(words.intersection(terms(hit.candidate.scored_text)))
    return shared >= SHARED_AT_LEAST and shared >= min(SHARED, len(words))


def prompt_context(
    prompt: str,
    *,
    project: str,
    budget: int,
    kernel: Kernel,
    floor: float | None = None,
    ranking: str | None = None,
) -> PromptContext:
    """The recall of ``prompt`` in ``project`` with ``ranking`` (default:
    the ``recall_ranking`` setting, where ``hybrid`` is asked of the
    process serving it, else ranked ``bm25``: :data:`IN_HOOK`): the
    results scoring at least ``floor`` (default: :func:`hook_floor`), echo
    events left out, best first, at most :data:`RESULTS`, fitted into
    ``budget`` tokens."""
    from mem_core.api.recall import recall
    from mem_core.kernel import resolve

    kernel, settings = resolve(project, kernel)
    if ranking is None:
        ranking = settings.get("recall_ranking")
        if ranking in IN_HOOK:
            if floor is None:
                from mem_core.hooks.service import ask

                served = ask(settings.project, prompt, budget)
                if served is not None:
                    context = PromptContext(str(served.get("query", "")), hook_floor(settings, ranking), [], None)
                    context.served = served
                    return context
            ranking = IN_HOOK[ranking]
    if floor is None:
        floor = hook_floor(settings, ranking)
    query = prompt_query(prompt)
    if not query:
        return PromptContext(query, floor, [], None)
    result = recall(
        query,
        directory=project,
        limit=DEPTH,
        ranking=ranking,
        kernel=kernel,
        index=True,
        leave_out_via=(ECHO,),
        sentence=prompt,  # an embedding model reads the whole prompt, common words and all
    )
    from mem_core.retrieval.analysis import query_terms

    words = set(query_terms(query))
    kept = [hit for hit in result.results if hit.score >= floor and _shares_enough(hit, words)][:RESULTS]
    context = PromptContext(query, floor, kept, None)
    context.skipped = result.skipped
    if kept:
        backed = backed_notes(settings.project, kernel)
        section = Section("results", "", [_item(hit, trust(hit, backed)) for hit in kept], hint="mem recall <topic>")
        context.fitted = fit([HEAD], [section], budget)
    return context
