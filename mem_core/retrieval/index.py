"""Helpers for sources that keep their candidates between recalls, in the
kernel's file cache (:meth:`SourceContext.cached`):

* :class:`TermIndex` — the :class:`Terms` of a list of texts and, per
  token, which texts hold it (and how often), so that a source honours
  ``query.match_tokens`` and a ranker scores without visiting every text
  (:class:`~mem_core.retrieval.query.CandidateBlock`);
* :class:`OnSecondUse` — builds such an index only when a cached file is
  used a second time: a one-shot ``mem recall`` reads each file once and
  pays nothing for an index it would never use again.

Both are shared between recalls and threads: read-only once built (the
memoised per-token views are computed at most a few times, each time the
same).
"""

from __future__ import annotations

import _thread  # threading's locks without importing threading (start-up)
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from mem_core.text import Terms

__all__ = ["TermIndex", "OnSecondUse"]

T = TypeVar("T")


class TermIndex:
    """The terms of texts ``0 … n-1`` (a source's candidates, in order) and,
    per token, the positions of the texts that hold it."""

    __slots__ = ("terms", "lengths", "_postings", "_holding", "_counts", "_groups")

    def __init__(self, terms: Iterable[Terms]) -> None:
        self.terms: tuple[Terms, ...] = tuple(terms)
        #: each text's length in tokens
        self.lengths: tuple[int, ...] = tuple(counted.length for counted in self.terms)
        postings: dict[str, list[int]] = {}
        for position, counted in enumerate(self.terms):
            for token in counted.counts:
                found = postings.get(token)
                if found is None:
                    postings[token] = [position]
                else:
                    found.append(position)
        self._postings: dict[str, tuple[int, ...]] = {token: tuple(found) for token, found in postings.items()}
        self._holding: dict[str, frozenset[int]] = {}
        self._counts: dict[str, dict[int, int]] = {}
        self._groups: dict[str, tuple[tuple[int, int, frozenset[int]], ...]] = {}

    def __len__(self) -> int:
        return len(self.terms)

    def positions(self, tokens: Sequence[str]) -> Sequence[int]:
        """The positions of the texts holding at least one of ``tokens``, ascending."""
        found = [hit for hit in map(self._postings.get, tokens) if hit]
        if not found:
            return ()
        if len(found) == 1:
            return found[0]
        return sorted(set().union(*found))

    def holding(self, token: str) -> frozenset[int]:
        """The positions of the texts holding ``token``."""
        held = self._holding.get(token)
        if held is None:
            held = self._holding[token] = frozenset(self._postings.get(token, ()))
        return held

    def counts(self, token: str) -> dict[int, int]:
        """Position → how often the text there holds ``token``, for the texts
        holding it (a dict nobody changes)."""
        counts = self._counts.get(token)
        if counts is None:
            terms = self.terms
            counts = self._counts[token] = {p: terms[p].counts[token] for p in self._postings.get(token, ())}
        return counts

    def groups(self, token: str) -> tuple[tuple[int, int, frozenset[int]], ...]:
        """The texts holding ``token``, grouped by how often they hold it and
        by their length in tokens: ``(count, length, positions)`` each. Texts
        of one group score alike under any ranker that counts tokens."""
        groups = self._groups.get(token)
        if groups is None:
            grouped: dict[tuple[int, int], list[int]] = {}
            terms = self.terms
            for position in self._postings.get(token, ()):
                counted = terms[position]
                key = (counted.counts[token], counted.length)
                found = grouped.get(key)
                if found is None:
                    grouped[key] = [position]
                else:
                    found.append(position)
            groups = self._groups[token] = tuple((f, n, frozenset(p)) for (f, n), p in grouped.items())
        return groups


class OnSecondUse(Generic[T]):
    """A value built by ``build()`` the second time :meth:`get` is called
    (``None`` the first time); built once, even by many threads."""

    __slots__ = ("_build", "_value", "_uses", "_lock")

    def __init__(self, build: Callable[[], T]) -> None:
        self._build: Callable[[], T] | None = build
        self._value: T | None = None
        self._uses = 0
        self._lock = _thread.allocate_lock()

    def get(self) -> T | None:
        value = self._value
        if value is not None:
            return value
        with self._lock:
            if self._value is None:
                self._uses += 1
                if self._uses == 1:
                    return None
                assert self._build is not None
                self._value = self._build()
                self._build = None
            return self._value
