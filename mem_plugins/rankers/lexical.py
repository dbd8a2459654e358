"""Ranker ``lexical`` (the default): query-token hits with diminishing returns,
a coverage bonus and length normalisation (mem-cli.md §1)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from mem_core.plugin import Candidate, Query, RankContext, Ranker, Scored, hookimpl, js_log, tokenize

_logs: dict[int, float] = {}


def _log(f: int) -> float:
    """``Math.log`` of a count (V8's, bit for bit), memoised."""
    value = _logs.get(f)
    if value is None:
        value = _logs[f] = js_log(f)
    return value


def lexical_score(tokens: Sequence[str], text: str) -> float:
    """Frequency-damped, coverage-weighted, length-normalised match score:
    ``Σ(1 + ln f) × (matched / |query|) / √|doc|`` over the query tokens found
    ``f`` times among the text's tokens."""
    if not tokens:
        return 0.0
    lowered = text.lower()
    for q in tokens:  # no query token inside the text: no token can equal one
        if q in lowered:
            break
    else:
        return 0.0
    doc = tokenize(lowered, lowered=True)
    if not doc:
        return 0.0
    hits = 0.0
    matched = 0
    for q in tokens:
        f = doc.count(q)
        if f > 0:
            matched += 1
            hits += 1 + (_log(f) if f > 1 else 0.0)
    if matched == 0:
        return 0.0
    return (hits * (matched / len(tokens))) / math.sqrt(len(doc))


def score_candidates(query: Query, candidates: Sequence[Candidate]) -> list[Scored]:
    """Every candidate scoring above zero (lexical score × weight), in the
    candidates' order."""
    kept = []
    tokens = query.tokens
    for candidate in candidates:
        score = lexical_score(tokens, candidate.scored_text)
        if score > 0:
            weight = candidate.weigh()
            if weight != 1.0:
                score *= weight
            if score > 0:
                kept.append(Scored(candidate, score))
    return kept


def top_candidates(query: Query, candidates: Sequence[Candidate], limit: int) -> list[Scored]:
    """The ``limit`` best candidates, in the order a full stable sort by
    descending score would give them, computing lazy weights (which are in
    [0, 1]: a decay) only for candidates that can still reach the top.

    A candidate whose lexical score alone is below the ``limit``-th best final
    score cannot enter the result, so its weight is never computed.
    """
    if limit <= 0:
        return []
    tokens = query.tokens
    pending: list[tuple[float, int, Candidate]] = []
    for index, candidate in enumerate(candidates):
        score = lexical_score(tokens, candidate.scored_text)
        if score > 0:
            pending.append((score, index, candidate))
    pending.sort(key=lambda item: (-item[0], item[1]))
    best: list[float] = []  # min-heap of the best final scores so far
    done: list[tuple[float, int, Candidate]] = []
    for bound, index, candidate in pending:
        if len(best) == limit and bound < best[0]:
            break  # this one and every later one score below the top `limit`
        weight = candidate.weigh()
        final = bound * weight if weight != 1.0 else bound
        if final > 0:
            done.append((final, index, candidate))
            if len(best) < limit:
                heapq.heappush(best, final)
            elif final > best[0]:
                heapq.heapreplace(best, final)
    done.sort(key=lambda item: (-item[0], item[1]))
    return [Scored(candidate, final) for final, _, candidate in done[:limit]]


class LexicalRanker(Ranker):
    name = "lexical"
    help = "query words found, with diminishing returns and length normalisation"
    needs_query_match = True

    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        return top_candidates(query, candidates, query.limit)

    def score(self, query: Query, candidates: Sequence[Candidate]) -> list[Scored]:
        """Every matching candidate scored, unsorted and uncut (for rankers
        that re-weight lexical scores, such as ``evidence``)."""
        return score_candidates(query, candidates)


@hookimpl
def mem_register_rankers() -> list[type[Ranker]]:
    return [LexicalRanker]
