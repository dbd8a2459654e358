"""Ranker ``hybrid``: ``bm25`` fused with local sentence embeddings.

``mem recall <query> --ranking hybrid`` (``mem init`` makes it a project's
``recall_ranking`` when the ``embeddings`` extra is installed) ranks every
candidate the sources give — note sections, journal events, structured
memories, the portfolio's notes — twice:

* by ``bm25`` (asked through :meth:`RankContext.ranker`), its best
  :data:`DEPTH`;
* by the cosine of the query's and each text's embedding (the
  ``recall_model`` setting; all-MiniLM-L6-v2 by default), its best
  :data:`DEPTH`, each text's vector read from the embedding index
  (:mod:`mem_core.embeddings.store`: the user cache, and a PostgreSQL
  store's own table for its memories) or embedded once;

and fuses them by normalised score fusion: each list's scores are min-max
normalised over its own best :data:`DEPTH` (below that: 0), and a candidate
of either list scores ``w × bm25 + (1 − w) × dense`` with ``w`` the
``recall_hybrid_weight`` setting (0.4: what measured best on the tuning half
of benchmarks/relevance; reciprocal rank fusion measured lower, docs/recall.md).
A candidate bm25 gave nothing is left out below a cosine of
:data:`DENSE_ONLY_FLOOR`: normalised, the least bad of unrelated notes would
otherwise score high in a small project.
A journal event's dense score is weighed by its decay, as its bm25 score is.

Trust: a structured memory a human verified and a note section an
eligible receipt backs today score ×(1 + ``recall_trust_weight``) (0.1 by
default; 0 ranks by relevance alone), and every result says which it is in
``trust``: ``verified``, ``receipt: accepted-current`` or ``unverified``
(:mod:`mem_core.api.trust`).

A first build that would make a command wait: when more than
:data:`FOREGROUND` texts lack a vector and stderr is not a terminal (an
agent's tool call, a script), a detached background process embeds them
(one at a time per index: a lock beside it), the ranking says so once on
stderr and ``bm25`` serves until they are ready. On a terminal the build
runs in place and counts.

Without the extra, the ranking says so once on stderr and ``bm25`` serves
(its results labelled with their trust all the same).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from mem_core.plugin import EMBEDDINGS_BUILD_ENV, Candidate, Query, RankContext, Ranker, Scored

#: how many of each list's best are fused
DEPTH = 50
#: at most this many texts are embedded while a command nobody watches
#: waits (about 10 to 20 seconds here); more go to a background process
FOREGROUND = 200
#: a candidate only the dense list brings (bm25 gave it nothing) needs at
#: least this cosine with the query: min-max normalisation gives the best
#: of a few unrelated notes a high dense share whatever their cosine (in a
#: project of four notes, "Write a haiku about cats" found "Logging format"
#: at cosine 0.13). 0.2 cost nothing on the tuning halves of both corpora of
#: benchmarks/relevance (0.35 did), and keeps a paraphrase with no word in
#: common at about 0.25 ("cancel an access key" for revocable API tokens)
DENSE_ONLY_FLOOR = 0.2

_warned = False
#: background builders this process started (mem mcp may start several)
_children: list[Any] = []


def _normalised(scores: dict[int, float]) -> dict[int, float]:
    """Min-max over the given scores (all equal: 1 each)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in scores.items()}


class HybridRanker(Ranker):
    name = "hybrid"
    help = "bm25 fused with local embeddings (the embeddings extra), trusted results first among equals"

    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        from mem_core.plugin import EMBEDDINGS_MISSING, embeddings_missing

        bm25 = context.ranker("bm25")
        if embeddings_missing():
            _say(EMBEDDINGS_MISSING)
            return _labelled(bm25.rank(query, candidates, context), context)
        items = list(candidates)  # every candidate made once: bm25's results are these objects
        if not items or query.limit <= 0:
            return []
        settings = context.settings
        cosines = self._cosines(query, items, settings.get("recall_model"), settings.cache_dir, context)
        if cosines is None:  # a large first build is under way in the background
            return _labelled(bm25.rank(query, items, context), context)
        dense = _Weighed(cosines, items)
        lexical = bm25.rank(query.replace(limit=DEPTH), items, context)
        position = {id(candidate): n for n, candidate in enumerate(items)}
        lexical_scores = _normalised({position[id(hit.candidate)]: hit.score for hit in lexical})
        dense_top = dense.top(DEPTH)
        low = min((dense[n] for n in dense_top), default=0.0)
        high = max((dense[n] for n in dense_top), default=0.0)
        span = high - low
        share = min(max(float(settings.get("recall_hybrid_weight")), 0.0), 1.0)
        boost = 1.0 + float(settings.get("recall_trust_weight"))
        backed = context.backed_notes()  # every result says what it is worth, boosted or not
        from mem_core.plugin import trust_label

        fused = []
        for n in set(lexical_scores).union(dense_top):
            if n not in lexical_scores and dense[n] < DENSE_ONLY_FLOOR:
                continue
            dense_score = (dense[n] - low) / span if span > 0 else 1.0
            score = share * lexical_scores.get(n, 0.0) + (1.0 - share) * max(dense_score, 0.0)
            if score <= 0:
                continue
            candidate = items[n]
            label = trust_label(candidate, backed)
            if label != "unverified":
                score *= boost
            fused.append((score, n, label))
        fused.sort(key=lambda item: (-item[0], item[1]))
        return [Scored(items[n], score, {"trust": label}) for score, n, label in fused[: query.limit]]

    @staticmethod
    def _cosines(query: Query, items: list[Candidate], model: str, cache_dir: str | None, context: RankContext) -> Any:
        """Each candidate's cosine with the query (an array, in order);
        ``None`` when more than :data:`FOREGROUND` texts lack a vector and
        nobody watches (stderr is no terminal: an agent, a script): they are
        embedded by a background process (:func:`_build_in_background`)."""
        from mem_core.plugin import EmbeddingIndex, embedding_index_path, embeddings_in_foreground, load_embedder

        embedder = load_embedder(model)
        stored = [candidate.kind == "memory" for candidate in items]  # the store may keep their vectors
        table = context.memory_vectors() if any(stored) else None
        index = EmbeddingIndex(embedding_index_path(cache_dir, query.project), embedder, table)
        texts = [candidate.scored_text for candidate in items]
        if not embeddings_in_foreground() and not sys.stderr.isatty():
            lacking = index.lacking(texts, stored)
            if lacking > FOREGROUND:
                if not index.building():
                    pid = _build_in_background(query)
                    if pid is not None:
                        index.started(pid)
                _say(
                    f"mem: embedding {lacking} texts for the hybrid ranking in the background; "
                    "ranking with bm25 until they are ready"
                )
                return None
        return index.vectors(texts, stored) @ embedder.embed([query.sentence])[0]


class _Weighed:
    """The dense scores: each candidate's cosine weighed as bm25 weighs it
    (a journal event's decay), computed only for the candidates asked for.
    A weight is at most 1, so a candidate whose cosine is below the
    ``depth``-th best weighed score cannot reach the top: weighing every
    event of a large journal took most of a warm ranking (9 000 events:
    about 170 ms of 190 a prompt)."""

    def __init__(self, cosines: Any, items: list[Candidate]) -> None:
        self._cosines = cosines
        self._items = items
        self._weighed: dict[int, float] = {}

    def __getitem__(self, n: int) -> float:
        found = self._weighed.get(n)
        if found is None:
            cosine = float(self._cosines[n])
            found = self._weighed[n] = cosine * self._items[n].weigh() if cosine > 0 else cosine
        return found

    def top(self, depth: int) -> list[int]:
        """The positions of the ``depth`` best weighed scores (ties: the
        first), as if every candidate were weighed."""
        import heapq

        import numpy

        cosines = self._cosines
        best: list[float] = []  # min-heap of the best weighed scores so far
        for n in numpy.argsort(-cosines, kind="stable").tolist():
            if len(best) == depth and cosines[n] < best[0]:
                break  # this and every later one weigh less than the top
            score = self[n]
            if len(best) < depth:
                heapq.heappush(best, score)
            elif score > best[0]:
                heapq.heapreplace(best, score)
        return heapq.nlargest(depth, sorted(self._weighed), key=self.__getitem__)


def _labelled(results: list[Scored], context: RankContext) -> list[Scored]:
    """``bm25``'s results, each saying what it is worth as evidence (as
    this ranking's own do), in ``bm25``'s order."""
    from mem_core.plugin import trust_label

    backed = context.backed_notes() if results else set()
    return [Scored(hit.candidate, hit.score, {"trust": trust_label(hit.candidate, backed)}) for hit in results]


def _build_in_background(query: Query) -> int | None:
    """Start a process that recalls ``query`` with this ranking in the
    foreground, which embeds what lacks a vector, detached from this one;
    its process id (``None``: it could not start)."""
    import subprocess

    argv = [sys.executable, "-m", "mem_cli", "recall", query.text, "--ranking", "hybrid", "--limit", "1"]
    argv += ["--scope", query.scope, "-d", query.project]
    if query.portfolio:
        argv += ["--portfolio", query.portfolio]
    _children[:] = [child for child in _children if child.poll() is None]  # reaped
    try:
        child = subprocess.Popen(
            argv,
            env={**os.environ, EMBEDDINGS_BUILD_ENV: "foreground"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives this command, and a hook's or an agent's timeout
        )
    except OSError:
        return None  # the next recall tries again
    _children.append(child)  # kept, so that a long-lived process reaps it (above)
    return child.pid


def _say(line: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        sys.stderr.write(line + "\n")
