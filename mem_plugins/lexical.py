"""Ranker ``lexical`` (the default): query-token hits with diminishing returns,
a coverage bonus and length normalisation (mem-cli.md §1)."""

from __future__ import annotations

from mem_core import hookimpl
from mem_core.interfaces import Candidate, Ranker, RecallRequest
from mem_core.text import lexical_score


def score_candidates(request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:
    """Score every candidate on the query; keep those scoring above zero."""
    kept = []
    for candidate in candidates:
        score = lexical_score(request.tokens, candidate.scored_text)
        if score > 0 and candidate.weight != 1.0:
            score *= candidate.weight
        if score > 0:
            candidate.score = score
            kept.append(candidate)
    return kept


class LexicalRanker(Ranker):
    name = "lexical"
    help = "query words found, with diminishing returns and length normalisation"

    def rank(self, request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:
        return sorted(score_candidates(request, candidates), key=lambda c: -c.score)


@hookimpl
def mem_register_rankers() -> list[type[Ranker]]:
    return [LexicalRanker]
