"""Ranker ``lexical`` (the default): query-token hits with diminishing returns,
a coverage bonus and length normalisation (mem-cli.md §1)."""

from __future__ import annotations

import heapq

from mem_core import hookimpl
from mem_core.interfaces import Candidate, Ranker, RecallRequest
from mem_core.retrieval.text import lexical_score


def _weight(candidate: Candidate) -> float:
    weight = candidate.weight
    if weight.__class__ is float or weight.__class__ is int:
        return weight  # type: ignore[return-value]
    return weight()  # type: ignore[operator,no-any-return]


def score_candidates(request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:
    """Score every candidate on the query (lexical score × weight); keep, in
    their order, those scoring above zero."""
    kept = []
    tokens = request.tokens
    for candidate in candidates:
        score = lexical_score(tokens, candidate.scored_text)
        if score > 0:
            weight = _weight(candidate)
            if weight != 1.0:
                score *= weight
            if score > 0:
                candidate.score = score
                kept.append(candidate)
    return kept


def top_candidates(request: RecallRequest, candidates: list[Candidate], limit: int) -> list[Candidate]:
    """The ``limit`` best candidates, in the order a full stable sort by
    descending score would give them, computing lazy weights (which are in
    [0, 1]: a decay) only for candidates that can still reach the top.

    A candidate whose lexical score alone is below the ``limit``-th best final
    score cannot enter the result, so its weight is never computed.
    """
    if limit <= 0:
        return []
    tokens = request.tokens
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
        weight = _weight(candidate)
        final = bound * weight if weight != 1.0 else bound
        if final > 0:
            candidate.score = final
            done.append((final, index, candidate))
            if len(best) < limit:
                heapq.heappush(best, final)
            elif final > best[0]:
                heapq.heapreplace(best, final)
    done.sort(key=lambda item: (-item[0], item[1]))
    return [candidate for _, _, candidate in done[:limit]]


class LexicalRanker(Ranker):
    name = "lexical"
    help = "query words found, with diminishing returns and length normalisation"
    needs_query_match = True

    def rank(self, request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:
        return top_candidates(request, candidates, request.limit)


@hookimpl
def mem_register_rankers() -> list[type[Ranker]]:
    return [LexicalRanker]
