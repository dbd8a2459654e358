"""Ranker ``bm25``: Okapi BM25 over the words people type.

``mem recall <query> --ranking bm25`` (or ``recall_ranking = "bm25"`` in the
project's ``.bmad/memory/mem.toml``) ranks the same candidates as
``lexical`` — journal events, ``###`` note sections, structured memories —
but compares them as :mod:`mem_core.retrieval.analysis` reads text: accents
folded (``munchen`` finds ``München``), Chinese, Japanese and Korean by
character bigrams (``修复缓存`` finds ``修复了缓存问题``), English words by
their stems (``caching`` finds ``cache``), and common question words
("how do I …") left out of the query.

The score of a candidate is BM25 (``k1`` = 1.2, ``b`` = 0.75) with two
fields: the first line of a note or memory (its heading, or its key) counts
:data:`HEADING_WEIGHT` times its body (BM25F: weighted term frequencies and
lengths); a text holding only some of the query's terms is scaled by the
square root of the share it holds (:data:`COVERAGE`). Document frequencies are those of this recall's candidates. The
score is multiplied by the candidate's weight (the journal's decay) as the
``lexical`` score is; ties keep the candidates' order. Scores are not on the
``lexical`` scale (they are not bounded by 1).
"""

from __future__ import annotations

import _thread  # threading's locks without importing threading (start-up)
import math
from collections.abc import Sequence

from mem_core.plugin import Candidate, Query, RankContext, Ranker, Scored, hookimpl

K1 = 1.2
B = 0.75
#: a term of the heading (first line) of a note or memory counts this many times
HEADING_WEIGHT = 2.0
#: a text holding m of the query's n terms scores ×(m / n) ** COVERAGE: one
#: that answers the whole question beats one that repeats a single word
COVERAGE = 0.5
#: kinds of candidates whose first line is a heading (a note's) or a key (a memory's)
_HEADED = frozenset(("note", "memory"))

# analysed texts, shared between recalls (a warm kernel keeps its candidates)
_MAX_CACHED = 100_000
_cache: dict[tuple[str, bool], tuple[dict[str, float], float]] = {}
_lock = _thread.allocate_lock()


def analyse(text: str, headed: bool) -> tuple[dict[str, float], float]:
    """The weighted term frequencies of ``text`` and its weighted length
    (``headed``: its first line is a heading)."""
    key = (text, headed)
    found = _cache.get(key)
    if found is not None:
        return found
    from mem_core.plugin import search_terms  # the analysis: only when this ranker ranks

    counts: dict[str, float] = {}
    length = 0.0
    if headed:
        heading, _, body = text.partition("\n")
        parts: tuple[tuple[str, float], ...] = ((heading, HEADING_WEIGHT), (body, 1.0))
    else:
        parts = ((text, 1.0),)
    for part, weight in parts:
        found_terms = search_terms(part)
        length += weight * len(found_terms)
        for term in found_terms:
            counts[term] = counts.get(term, 0.0) + weight
    found = (counts, length)
    with _lock:
        if len(_cache) >= _MAX_CACHED:
            _cache.clear()
        _cache[key] = found
    return found


def bm25_scores(terms: Sequence[str], documents: Sequence[tuple[dict[str, float], float]]) -> list[float]:
    """The BM25 score of each document (weighted frequencies, weighted
    length) for the query ``terms``, in order."""
    total = len(documents)
    if not total or not terms:
        return [0.0] * total
    average = sum(length for _, length in documents) / total or 1.0
    frequency = dict.fromkeys(terms, 0)
    for counts, _ in documents:
        for term in terms:
            if term in counts:
                frequency[term] += 1
    idf = {term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequency.items() if df}
    scores = []
    width = len(terms)
    for counts, length in documents:
        score = 0.0
        matched = 0
        norm = K1 * (1 - B + B * length / average)
        for term, weight in idf.items():
            tf = counts.get(term)
            if tf:
                matched += 1
                score += weight * tf * (K1 + 1) / (tf + norm)
        if matched < width:
            score *= (matched / width) ** COVERAGE
        scores.append(score)
    return scores


class Bm25Ranker(Ranker):
    name = "bm25"
    help = "BM25 over accent-folded, stemmed words (CJK by bigrams), headings weighted"

    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        from mem_core.plugin import search_query_terms

        terms = search_query_terms(query.text)
        if not terms:
            return []
        everything = list(candidates)
        documents = [analyse(c.scored_text, c.fields.get("kind") in _HEADED) for c in everything]
        kept: list[tuple[float, int, Candidate]] = []
        for position, (candidate, score) in enumerate(zip(everything, bm25_scores(terms, documents), strict=True)):
            if score > 0:
                weight = candidate.weigh()
                if weight != 1.0:
                    score *= weight
                if score > 0:
                    kept.append((score, position, candidate))
        kept.sort(key=lambda item: (-item[0], item[1]))
        return [Scored(candidate, score) for score, _, candidate in kept[: query.limit]]


@hookimpl
def mem_register_rankers() -> list[type[Ranker]]:
    return [Bm25Ranker]
