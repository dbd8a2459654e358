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
import heapq
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from mem_core.plugin import (
    Analyzer,
    Candidate,
    CandidateBlock,
    Candidates,
    Query,
    RankContext,
    Ranker,
    Scored,
)

if TYPE_CHECKING:
    from typing import Any

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

#: words whose terms change with the analysis (folding, stemming): their
#: terms are part of the index key, so that an index of another analysis is
#: never read (a new stemmer rebuilds the index)
_PROBE = (
    "migration migrations migrating migrated revoke revocable revoked revoking caching cached caches "
    "running runs ran happily easily connection connected connecting generalization generously policies "
    "studies agreed agreeing authentication authenticating authenticated munchen München Straße ÉTÉ "
    "修复缓存 read_text the how do"
)


def _analyse(text: str, headed: bool) -> tuple[dict[str, float], float]:
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
    return counts, length


def analyse(text: str, headed: bool) -> tuple[dict[str, float], float]:
    """The weighted term frequencies of ``text`` and its weighted length
    (``headed``: its first line is a heading)."""
    key = (text, headed)
    found = _cache.get(key)
    if found is not None:
        return found
    found = _analyse(text, headed)
    with _lock:
        if len(_cache) >= _MAX_CACHED:
            _cache.clear()
        _cache[key] = found
    return found


class Bm25Analyzer(Analyzer):
    """The terms ``bm25`` scores, for the on-disk recall index: weighted
    term frequencies and lengths (:func:`analyse`), kept as doubles."""

    typecode = "d"
    _key: str | None = None

    @property
    def key(self) -> str:  # type: ignore[override]
        found = self._key
        if found is None:
            import zlib

            from mem_core.plugin import search_terms

            probe = "\n".join(search_terms(_PROBE)).encode("utf-8")
            found = self._key = f"bm25/1/{HEADING_WEIGHT!r}/{zlib.crc32(probe):08x}"
        return found

    def analyse(self, text: str, headed: bool) -> tuple[dict[str, float], float]:
        return _analyse(text, headed)  # not kept: an index is built once


def _score(tfs: Iterable[tuple[float, Any]], length: float, average: float, width: int) -> float:
    """The score of one document: ``tfs`` holds, per query term of some
    document frequency, its IDF and the document's weighted frequency of it
    (``None`` or 0: none)."""
    score = 0.0
    matched = 0
    norm = K1 * (1 - B + B * length / average)
    for weight, tf in tfs:
        if tf:
            matched += 1
            score += weight * tf * (K1 + 1) / (tf + norm)
    if matched < width:
        score *= (matched / width) ** COVERAGE
    return score


def _idf(frequency: dict[str, int], total: int) -> dict[str, float]:
    return {term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequency.items() if df}


def _average(lengths: Iterable[float], total: int) -> float:
    # fsum: the same sum whichever parts the lengths come in (indexed blocks, candidates)
    return math.fsum(lengths) / total or 1.0


def bm25_scores(terms: Sequence[str], documents: Sequence[tuple[dict[str, float], float]]) -> list[float]:
    """The BM25 score of each document (weighted frequencies, weighted
    length) for the query ``terms``, in order."""
    total = len(documents)
    if not total or not terms:
        return [0.0] * total
    average = _average((length for _, length in documents), total)
    frequency = dict.fromkeys(terms, 0)
    for counts, _ in documents:
        for term in terms:
            if term in counts:
                frequency[term] += 1
    idf = _idf(frequency, total)
    width = len(terms)
    return [
        _score([(weight, counts.get(term)) for term, weight in idf.items()], length, average, width)
        for counts, length in documents
    ]


class Bm25Ranker(Ranker):
    name = "bm25"
    help = "BM25 over accent-folded, stemmed words (CJK by bigrams), headings weighted"
    index_analyzer = Bm25Analyzer()

    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        from mem_core.plugin import search_query_terms

        terms = search_query_terms(query.text)
        if not terms:
            return []
        space = self.index_analyzer.key
        parts = candidates.parts() if isinstance(candidates, Candidates) else (list(candidates),)
        # every document counts in the statistics (how many, their lengths,
        # how many hold each term); only those holding a term can score. A
        # block indexed in this ranker's terms gives them from its index.
        lengths: list[Sequence[float]] = []
        total = 0  # positions so far (the tie order)
        skipped = 0  # of which no candidates (CandidateBlock.skip): not counted either
        frequency = dict.fromkeys(terms, 0)
        blocks: list[tuple[int, CandidateBlock, dict[str, dict[int, float]]]] = []
        plain: list[tuple[int, dict[str, float], float, Candidate]] = []
        for part in parts:
            if isinstance(part, CandidateBlock) and part.tokens is None and getattr(part.index, "space", None) == space:
                index = part.index
                skip = part.skip
                if skip:
                    lengths.append([length for p, length in enumerate(index.lengths) if p not in skip])
                    skipped += len(skip)
                else:
                    lengths.append(index.lengths)
                found = {term: index.counts(term) for term in terms}
                for term in terms:
                    frequency[term] += len(found[term]) - len(skip.intersection(found[term]))
                blocks.append((total, part, found))  # type: ignore[arg-type]  # bm25's own index counts weights
                total += len(index)
                continue
            mine: list[float] = []
            for candidate in part:
                counts, length = analyse(candidate.scored_text, candidate.fields.get("kind") in _HEADED)
                mine.append(length)
                held = False
                for term in terms:
                    if term in counts:
                        frequency[term] += 1
                        held = True
                if held:
                    plain.append((total + len(mine) - 1, counts, length, candidate))
            lengths.append(mine)
            total += len(mine)
        if total <= skipped:
            return []
        average = _average(itertools.chain.from_iterable(lengths), total - skipped)
        idf = _idf(frequency, total - skipped)
        return _top(idf, len(terms), average, plain, blocks, query.limit)


#: up to this many query terms of some frequency, the documents holding each
#: set of terms are found by set operations, one set at a time
_SET_TERMS = 5


def _block_masks(postings: list[dict[int, float]]) -> dict[int, list[int]]:
    """The positions of a block holding each set of terms (a bit per term)."""
    masks: dict[int, int] = {}
    for n, found in enumerate(postings):
        bit = 1 << n
        for position in found:
            masks[position] = masks.get(position, 0) | bit
    by_mask: dict[int, list[int]] = {}
    for position, mask in masks.items():
        by_mask.setdefault(mask, []).append(position)
    return by_mask


def _top(
    idf: dict[str, float],
    width: int,
    average: float,
    plain: list[tuple[int, dict[str, float], float, Candidate]],
    blocks: list[tuple[int, CandidateBlock, dict[str, dict[int, float]]]],
    limit: int,
) -> list[Scored]:
    """The ``limit`` best documents holding a query term, by weighted score
    then position, scoring and weighing only those that can still reach
    them. A term adds at most its IDF × (K1 + 1) (``tf / (tf + norm)`` < 1),
    so the documents holding one set of terms share a bound; sets are taken
    by descending bound and stop once a bound is below the ``limit``-th best
    weighted score so far (weights are in [0, 1]: a decay)."""
    weights = list(idf.values())
    count = len(weights)
    if limit <= 0 or not count:
        return []
    holders: dict[int, list[tuple[int, Any, float, Any]]] = {}  # plain candidates by the set of terms they hold
    for position, counts, length, candidate in plain:
        tfs = [counts.get(term) for term in idf]
        mask = sum(1 << n for n, tf in enumerate(tfs) if tf)
        holders.setdefault(mask, []).append((position, tfs, length, candidate))
    postings = [(at, block, [found[term] for term in idf]) for at, block, found in blocks]
    keys = [[set(tfs) for tfs in tfs_of] for _at, _block, tfs_of in postings] if count <= _SET_TERMS else []
    if count <= _SET_TERMS:
        # every set of terms, its documents found by set operations when its turn comes
        masks: Iterable[int] = range(1, 1 << count)
        by_mask = None
    else:
        by_mask = [_block_masks(found) for _at, _block, found in postings]
        masks = set(holders).union(*by_mask)

    def documents(mask: int) -> list[tuple[int, Any, float, Any]]:
        found = list(holders.get(mask, ()))
        for number, (at, block, tfs_of) in enumerate(postings):
            if by_mask is None:
                sets = keys[number]
                held = [sets[n] for n in range(count) if mask >> n & 1]
                left = [sets[n] for n in range(count) if not mask >> n & 1]
                positions: Iterable[int] = held[0].intersection(*held[1:]).difference(*left)
            else:
                positions = by_mask[number].get(mask, ())
            lengths = block.index.lengths
            skip = block.skip
            found.extend(
                (at + p, [tfs.get(p) for tfs in tfs_of], lengths[p], (block, p)) for p in positions if p not in skip
            )
        return found

    bounds = []
    for mask in masks:
        held = [n for n in range(count) if mask >> n & 1]
        bound = sum(weights[n] for n in held) * (K1 + 1)
        if len(held) < width:
            bound *= (len(held) / width) ** COVERAGE
        bounds.append((bound * (1 + 1e-9), mask))  # a margin for rounding; the true gap is far wider
    bounds.sort(reverse=True)
    best: list[float] = []  # min-heap of the best weighted scores so far
    kept: list[tuple[float, int, Candidate]] = []
    for bound, mask in bounds:
        if len(best) == limit and bound < best[0]:
            break  # no document of this set or a later one can reach the top
        scored = sorted(
            (-_score(zip(weights, tfs, strict=True), length, average, width), position, made)
            for position, tfs, length, made in documents(mask)
        )  # positions differ: the third item is never compared
        for negated, position, made in scored:
            score = -negated
            if score <= 0 or (len(best) == limit and score < best[0]):
                break
            candidate = made[0].candidate(made[1]) if isinstance(made, tuple) else made
            weight = candidate.weigh()
            if weight != 1.0:
                score *= weight
            if score > 0:
                kept.append((score, position, candidate))
                if len(best) < limit:
                    heapq.heappush(best, score)
                elif score > best[0]:
                    heapq.heapreplace(best, score)
    kept.sort(key=lambda item: (-item[0], item[1]))
    return [Scored(candidate, score) for score, _, candidate in kept[:limit]]
