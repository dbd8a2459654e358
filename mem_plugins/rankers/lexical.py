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
            if part.unit_weight and len(tokens) > 1 and not part.skip:
                _best_of_block(tokens, part, number, buckets, limit)
            else:
                start = len(buckets)
                _block_buckets(tokens, part, number, buckets)
                if part.skip:  # scored from the index like the rest, never a result
                    skip = part.skip
                    kept = [(score, n, [p for p in held if p not in skip]) for score, n, held in buckets[start:]]
                    buckets[start:] = [bucket for bucket in kept if bucket[2]]
        else:
            # a block's candidates are found again by their index position
            pairs = (
                ((p, part.candidate(p)) for p in part.positions())
                if isinstance(part, CandidateBlock)
                else enumerate(part)
            )
            for position, candidate in pairs:
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
    ``limit`` of the recall, since that many of its own come before it;
    every text tied with the ``limit``-th is kept, for ties are broken by
    position later.

    The texts holding every query word the block holds are scored first:
    coverage multiplies a score, so when ``limit`` of them score above what
    any text holding fewer words can reach (its words found as often as
    the most frequent of them anywhere in the block, in the block's
    shortest text), the others are never scored. Each text is scored with
    the operations of :func:`_block_buckets`, so the scores are the same
    bits."""
    index = block.index
    width = len(tokens)
    plus = _plus_log
    held_by: list[dict[int, int]] = []
    most_often: list[int] = []  # each word's largest count in the block
    for q in tokens:
        counts = index.counts(q)
        if counts:
            top = max(counts.values())
            for f in range(1, top + 1):  # (counts are at least 1)
                if f not in plus:
                    _one_plus_log(f)
            held_by.append(counts)
            most_often.append(top)
    if not held_by:
        return
    lengths = index.lengths
    if len(held_by) == 1:
        _keep_best(_scored(held_by[0], held_by, width, lengths), number, buckets, limit)
        return
    rarest = min(held_by, key=len)
    full = set(rarest).intersection(*(counts for counts in held_by if counts is not rarest))
    scored = _scored_holding_all(full, held_by, width, lengths)
    if len(scored) >= limit:
        fewer = len(held_by) - 1
        most = sorted((plus[top] for top in most_often), reverse=True)[:fewer]
        # (a text holding a word is at least one token long; an empty one holds none)
        reach = (sum(most) * (fewer / width)) / math.sqrt(max(min(lengths), 1))
        if heapq.nlargest(limit, [score for score, _ in scored])[-1] > reach * (1 + 1e-9):
            _keep_best(scored, number, buckets, limit)
            return
    rest = set(held_by[0]).union(*held_by[1:])
    rest -= full
    _keep_best(scored + _scored(rest, held_by, width, lengths), number, buckets, limit)


def _scored(
    positions: Collection[int], held_by: list[dict[int, int]], width: int, lengths: Sequence[int]
) -> list[tuple[float, int]]:
    """``(score, position)`` of each text at ``positions``, its counts of the
    query words in ``held_by`` (in query order)."""
    plus = _plus_log
    sqrt = math.sqrt
    scored = []
    for position in positions:
        hits = 0.0
        matched = 0
        for counts in held_by:
            f = counts.get(position)
            if f is not None:
                hits += plus[f]
                matched += 1
        scored.append(((hits * (matched / width)) / sqrt(lengths[position]), position))
    return scored


def _scored_holding_all(
    positions: Collection[int], held_by: list[dict[int, int]], width: int, lengths: Sequence[int]
) -> list[tuple[float, int]]:
    """:func:`_scored` of texts that hold every word of ``held_by`` (the
    same sums in the same order: ``0.0 + x`` is ``x``)."""
    plus = _plus_log
    sqrt = math.sqrt
    share = len(held_by) / width
    if len(held_by) == 2:
        a, b = held_by
        return [(((plus[a[p]] + plus[b[p]]) * share) / sqrt(lengths[p]), p) for p in positions]
    if len(held_by) == 3:
        a, b, c = held_by
        return [(((plus[a[p]] + plus[b[p]] + plus[c[p]]) * share) / sqrt(lengths[p]), p) for p in positions]
    return _scored(positions, held_by, width, lengths)


def _keep_best(
    scored: list[tuple[float, int]], number: int, buckets: list[tuple[float, int, Collection[int]]], limit: int
) -> None:
    """The texts of ``scored`` scoring at least the ``limit``-th best, as buckets."""
    if len(scored) > limit:
        least = heapq.nlargest(limit, [score for score, _ in scored])[-1]
        buckets.extend((score, number, (position,)) for score, position in scored if score >= least)
    else:
        buckets.extend((score, number, (position,)) for score, position in scored)


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
