"""A third-party ranker, installed through the ``mem.plugins`` entry point.

``shortest`` keeps the candidates that share a word with the query and puts
the shortest text first (score = 1 / length).
"""

from mem_core import hookimpl
from mem_core.interfaces import Ranker
from mem_core.retrieval.text import tokenize


class ShortestRanker(Ranker):
    name = "shortest"
    help = "shortest matching text first"

    def rank(self, request, candidates):
        wanted = set(request.tokens)
        kept = []
        for candidate in candidates:
            if wanted & set(tokenize(candidate.scored_text)):
                candidate.score = 1 / len(candidate.scored_text)
                kept.append(candidate)
        return sorted(kept, key=lambda c: -c.score)


@hookimpl
def mem_register_rankers():
    return [ShortestRanker]
