"""A third-party ranker, installed through the ``mem.plugins`` entry point.

``shortest`` keeps the candidates that share a word with the query and puts
the shortest text first (score = 1 / length).
"""

from mem_core.plugin import Ranker, Scored, hookimpl, tokenize


class ShortestRanker(Ranker):
    name = "shortest"
    help = "shortest matching text first"

    def rank(self, query, candidates, context):
        wanted = set(query.tokens)
        kept = [Scored(c, 1 / len(c.scored_text)) for c in candidates if wanted & set(tokenize(c.scored_text))]
        return sorted(kept, key=lambda scored: -scored.score)


@hookimpl
def mem_register_rankers():
    return [ShortestRanker]
