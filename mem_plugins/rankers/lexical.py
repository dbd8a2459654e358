"""Ranker ``lexical`` (the default): query-token hits with diminishing returns,
a coverage bonus and length normalisation (mem-cli.md §1)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Sequence
from operator import itemgetter

from mem_core.plugin import (
    Candidate,
    CandidateBlock,
    Candidates,
    Query,
    RankContext,
    Ranker,
    Scored,
    Terms,
    hookimpl,
    js_log,
    tokenize,
)

_logs: dict[int, float] = {}


def _log(f: int) -> float:
    """``Math.log`` of a count (V8's, bit for bit), memoised."""
    value = _logs.get(f)
    if value is None:
        value = _logs[f] = js_log(f)
    return value


#: ``1 + ln f`` (``1`` for ``f = 1``), as :func:`lexical_score` adds it for a token found ``f`` times
_plus_log: dict[int, float] = {}


def _one_plus_log(f: int) -> float:
    value = _plus_log.get(f)
    if value is None:
        value = _plus_log[f] = 1 + (_log(f) if f > 1 else 0.0)
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


def terms_score(tokens: Sequence[str], terms: Terms) -> float:
    """:func:`lexical_score` of a text from its :class:`Terms` (the same
    floating-point operations in the same order, so the same bits)."""
    length = terms.length
    if not tokens or not length:
        return 0.0
    counts = terms.counts
    hits = 0.0
    matched = 0
    for q in tokens:
        f = counts.get(q)
        if f:
            matched += 1
            hits += 1 + (_log(f) if f > 1 else 0.0)
    if matched == 0:
        return 0.0
    return (hits * (matched / len(tokens))) / math.sqrt(length)


def _score(tokens: Sequence[str], candidate: Candidate) -> float:
    terms = candidate.terms
    if terms is None:
        return lexical_score(tokens, candidate.scored_text)
    return terms_score(tokens, terms)


def score_candidates(query: Query, candidates: Sequence[Candidate]) -> list[Scored]:
    """Every candidate scoring above zero (lexical score × weight), in the
    candidates' order."""
    kept = []
    tokens = query.tokens
    for candidate in candidates:
        score = _score(tokens, candidate)
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
    score cannot enter the result, so its weight is never computed. The
    candidates of a :class:`CandidateBlock` are scored from its index, a
    group of alike texts at a time, and made only when they are weighed.
    """
    if limit <= 0:
        return []
    tokens = query.tokens
    parts = candidates.parts() if isinstance(candidates, Candidates) else (candidates,)
    # (lexical score, part, positions in the part): candidates that score alike
    buckets: list[tuple[float, int, Collection[int]]] = []
    for number, part in enumerate(parts):
        if isinstance(part, CandidateBlock) and part.covers(tokens):
            if part.unit_weight and len(tokens) > 1:
                _best_of_block(tokens, part, number, buckets, limit)
            else:
                _block_buckets(tokens, part, number, buckets)
        else:
            for position, candidate in enumerate(part):
                score = _score(tokens, candidate)
                if score > 0:
                    buckets.append((score, number, (position,)))
    buckets.sort(key=itemgetter(0), reverse=True)  # stable
    best: list[float] = []  # min-heap of the best final scores so far
    done: list[tuple[float, tuple[int, int], Candidate]] = []
    start = 0
    while start < len(buckets):
        bound = buckets[start][0]
        end = start + 1
        while end < len(buckets) and buckets[end][0] == bound:
            end += 1
        if len(best) == limit and bound < best[0]:
            break  # these and every later one score below the top `limit`
        # candidates scoring alike: the order they are weighed in does not
        # matter (a break inside the run drops only candidates that cannot
        # reach the top; the result is sorted by score and tie order below)
        keys = [(number, p) for _, number, positions in buckets[start:end] for p in positions]
        for key in keys:
            if len(best) == limit and bound < best[0]:
                break
            number, position = key
            part = parts[number]
            candidate = part.candidate(position) if isinstance(part, CandidateBlock) else part[position]
            weight = candidate.weigh()
            final = bound * weight if weight != 1.0 else bound
            if final > 0:
                done.append((final, key, candidate))
                if len(best) < limit:
                    heapq.heappush(best, final)
                elif final > best[0]:
                    heapq.heapreplace(best, final)
        start = end
    done.sort(key=lambda item: (-item[0], item[1]))
    return [Scored(candidate, final) for final, _, candidate in done[:limit]]


def _block_buckets(
    tokens: Sequence[str], block: CandidateBlock, number: int, buckets: list[tuple[float, int, Collection[int]]]
) -> None:
    """The lexical scores of a block's texts, from its index, with the
    operations of :func:`lexical_score` in its order: the texts holding one
    query token only score alike when they hold it as often and are as
    long, so each such group is scored once; the texts holding several are
    scored one by one, a query token at a time."""
    if not tokens:
        return
    index = block.index
    seen: set[int] = set()
    several: set[int] = set()
    for q in tokens:
        held = index.holding(q)
        if held:
            several |= seen & held
            seen |= held
    width = len(tokens)
    if several:
        hits: dict[int, float] = {}
        matched: dict[int, int] = {}
        for q in tokens:
            counts = index.counts(q)
            for position in several.intersection(counts):
                f = counts[position]
                plus = _plus_log.get(f)
                if plus is None:
                    plus = _one_plus_log(f)
                hits[position] = hits.get(position, 0.0) + plus
                matched[position] = matched.get(position, 0) + 1
        lengths = index.lengths
        sqrt = math.sqrt
        buckets.extend(
            ((h * (matched[position] / width)) / sqrt(lengths[position]), number, (position,))
            for position, h in hits.items()
        )
    share = 1 / width  # matched / len(tokens), one token matched
    for q in tokens:
        for f, length, positions in index.groups(q):
            alone = positions - several if several else positions
            if alone:
                hits_one = 0.0
                hits_one += _one_plus_log(f)
                buckets.append(((hits_one * share) / math.sqrt(length), number, alone))


def _best_of_block(
    tokens: Sequence[str],
    block: CandidateBlock,
    number: int,
    buckets: list[tuple[float, int, Collection[int]]],
    limit: int,
) -> None:
    """The lexical scores of (at least) the ``limit`` best texts of a block
    whose candidates all weigh 1 — no other text of it can reach the top
    ``limit`` of the recall, since that many of its own come before it —
    found without scoring every text that holds a query word (the
    threshold algorithm: the groups of texts holding each query word are
    visited best first, and the visit stops once no text left unseen can
    beat the ``limit``-th best seen). Each text seen is scored with the
    operations of :func:`_block_buckets`, so the scores are the same bits."""
    index = block.index
    width = len(tokens)
    lengths = index.lengths
    sqrt = math.sqrt
    counts = [index.counts(q) for q in tokens]
    # per word: its groups of texts, best contribution first
    lists = []
    for q in tokens:
        groups = sorted(index.groups(q), key=lambda g: _one_plus_log(g[0]) / sqrt(g[1]), reverse=True)
        lists.append(groups)
    heads = [0] * width
    seen: set[int] = set()
    best: list[float] = []  # min-heap of the `limit` best scores seen
    scored: list[tuple[float, int, Collection[int]]] = []
    while True:
        bound = 0.0
        for w in range(width):
            if heads[w] < len(lists[w]):
                f, length, _positions = lists[w][heads[w]]
                bound += _one_plus_log(f) / sqrt(length)
        if bound == 0.0:
            break  # every group visited
        if len(best) >= limit and best[0] > bound * (1 + 1e-9):
            break  # a text not seen yet scores at most `bound` (coverage ≤ 1): below the `limit` best
        for w in range(width):  # one group of each word, round robin
            if heads[w] >= len(lists[w]):
                continue
            _f, _length, positions = lists[w][heads[w]]
            heads[w] += 1
            for position in positions:
                if position in seen:
                    continue
                seen.add(position)
                hits = 0.0
                matched = 0
                for held in counts:
                    f = held.get(position)
                    if f is not None:
                        hits += _one_plus_log(f)
                        matched += 1
                score = (hits * (matched / width)) / sqrt(lengths[position])
                scored.append((score, number, (position,)))
                if len(best) < limit:
                    heapq.heappush(best, score)
                elif score > best[0]:
                    heapq.heapreplace(best, score)
    buckets.extend(scored)


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
