"""What one recall passes around: the :class:`Query`, the :class:`Candidate`
objects the sources yield (one by one, or many at once in a
:class:`CandidateBlock`), the :class:`Candidates` a ranker is given and the
:class:`Scored` entries it returns. The recall plugins that make and read
them are in :mod:`mem_core.retrieval.interfaces`.

Kept free of heavy imports: this module is on the start-up path of ``recall``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from mem_core.retrieval.index import TermIndex
    from mem_core.text import Terms

__all__ = ["Query", "Candidate", "CandidateBlock", "Candidates", "Scored"]


class _Frozen:
    """Slots set once in ``__init__``; plugins can read them, never change them."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")


class Query(_Frozen):
    """One ``recall`` question, as every source and the ranker see it (read-only).

    ``tokens`` are the query's unique words (docs/contract.md §1), ``now`` the
    invocation's clock (``now_ms`` the same instant in milliseconds, ``None``
    when it cannot be parsed), ``context_scope`` the project paths the question
    is about (evidence ranking), or ``None``.

    ``match_tokens`` is set when the ranker drops every candidate that shares no
    word with the query (:attr:`Ranker.needs_query_match`): a source may then
    leave out, without building it, a candidate none of whose tokens is one of
    these (in particular one whose lower-cased scored text contains none of
    them). ``analyzer`` is the ranker's :attr:`Ranker.index_analyzer`.
    ``strict`` is set when the ranker wants
    unsafe files to be errors (:attr:`Ranker.strict_sources`) rather than
    skipped and reported.

    ``sentence`` is the question as the person wrote it, for rankers that
    read meaning rather than words (``hybrid``'s embeddings); it is ``text``
    unless the caller made ``text`` of its words (the prompt hook drops a
    prompt's common words for ``bm25``, the model reads the whole prompt).

    ``leave_out_via``: journal events whose ``via`` is one of these are no
    candidates at all — not ranked, not counted in a ranker's statistics
    (a block skips them, :class:`CandidateBlock`). The prompt hook leaves out
    what the session-end hook wrote: the echo of a past prompt would
    otherwise outrank, or out-normalise, the note that prompt was about.
    """

    __slots__ = (
        "project",
        "text",
        "tokens",
        "scope",
        "portfolio",
        "limit",
        "ranking",
        "context_scope",
        "now",
        "now_ms",
        "strict",
        "match_tokens",
        "analyzer",
        "leave_out_via",
        "sentence",
    )

    project: str
    text: str
    tokens: tuple[str, ...]
    scope: str
    portfolio: str | None
    limit: int
    ranking: str
    context_scope: tuple[str, ...] | None
    now: str
    now_ms: float | None
    strict: bool
    match_tokens: tuple[str, ...] | None
    analyzer: Any
    leave_out_via: frozenset[str]
    sentence: str

    def __init__(
        self,
        project: str,
        text: str,
        tokens: Iterable[str],
        *,
        scope: str = "project",
        portfolio: str | None = None,
        limit: int = 8,
        ranking: str = "lexical",
        context_scope: Iterable[str] | None = None,
        now: str = "",
        now_ms: float | None = None,
        strict: bool = False,
        match_tokens: Iterable[str] | None = None,
        analyzer: Any = None,
        leave_out_via: Iterable[str] = (),
        sentence: str | None = None,
    ) -> None:
        put = object.__setattr__
        put(self, "project", project)
        put(self, "text", text)
        put(self, "tokens", tuple(tokens))
        put(self, "scope", scope)
        put(self, "portfolio", portfolio)
        put(self, "limit", limit)
        put(self, "ranking", ranking)
        put(self, "context_scope", None if context_scope is None else tuple(context_scope))
        put(self, "now", now)
        put(self, "now_ms", now_ms)
        put(self, "strict", strict)
        put(self, "match_tokens", None if match_tokens is None else tuple(match_tokens))
        put(self, "analyzer", analyzer)
        put(self, "leave_out_via", frozenset(leave_out_via))
        put(self, "sentence", text if sentence is None else sentence)

    def replace(self, **changes: Any) -> Query:
        """A copy with some fields changed (``query.replace(limit=100)``)."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        project, text, tokens = values.pop("project"), values.pop("text"), values.pop("tokens")
        return Query(project, text, tokens, **values)

    def __repr__(self) -> str:
        return f"Query({self.text!r}, project={self.project!r}, ranking={self.ranking!r})"


class Candidate(_Frozen):
    """One thing recall may return (read-only).

    ``scored_text`` is what a ranker scores; ``fields`` are the result's JSON
    keys after ``score``, in output order (``kind``, ``source``, … ``text``);
    ``weight`` multiplies a positive score (journal decay, for instance): a
    number, or a function of no arguments returning a number in [0, 1], called
    only when a ranker needs it (see :meth:`weigh`). ``terms``, when given,
    are the tokens of ``scored_text`` counted (:class:`Terms`, built with
    ``Terms.of(scored_text)``): a source that keeps candidates between
    recalls gives them so that rankers need not tokenize the text again.

    Example::

        Candidate("Cache contract\\nPreserve zero values.",
                  {"kind": "note", "source": "lessons.md", "ref": "Cache contract",
                   "text": "Cache contract Preserve zero values."})
    """

    __slots__ = ("scored_text", "fields", "weight", "terms")

    scored_text: str
    fields: Mapping[str, Any]
    weight: float | Callable[[], float]
    terms: Terms | None

    def __init__(
        self,
        scored_text: str,
        fields: Mapping[str, Any],
        weight: float | Callable[[], float] = 1.0,
        terms: Terms | None = None,
    ) -> None:
        put = object.__setattr__
        put(self, "scored_text", scored_text)
        put(self, "fields", fields)
        put(self, "weight", weight)
        put(self, "terms", terms)

    @classmethod
    def note(cls, heading: str, text: str, *, source: str, source_file: str, terms: bool = False) -> Candidate:
        """A Markdown section as recall shows it (docs/contract.md §2): scored on
        ``heading + "\\n" + text``; ``source`` is the file's name,
        ``source_file`` its project-relative path; ``terms``: count its
        tokens now (for a candidate kept between recalls)."""
        from mem_core.js.strings import js_trim

        scored = heading + "\n" + text
        return cls(
            scored,
            {"kind": "note", "source": source, "sourceFile": source_file, "ref": heading, "text": js_trim(scored)},
            1.0,
            _terms_of(scored) if terms else None,
        )

    @property
    def kind(self) -> str:
        return self.fields["kind"]  # type: ignore[no-any-return]

    def weigh(self) -> float:
        """The candidate's weight as a number (calls a lazy weight)."""
        weight = self.weight
        if weight.__class__ is float or weight.__class__ is int:
            return weight  # type: ignore[return-value]
        return weight()  # type: ignore[operator,no-any-return]

    def __repr__(self) -> str:
        return f"Candidate({self.scored_text[:40]!r}, fields={dict(self.fields)!r})"


def _terms_of(text: str) -> Terms:
    from mem_core.text import Terms

    return Terms.of(text)


class CandidateBlock:
    """Many candidates of one source at once, yielded by
    :meth:`NoteSource.candidates` in their place: the candidates at the
    positions of a :class:`~mem_core.retrieval.index.TermIndex` (all of
    them, or — ``tokens`` given — those holding one of ``tokens``), in
    position order, made by ``make(position)`` only when asked for.

    A ranker that knows blocks scores from ``index`` without making a
    candidate it will not return (the lexical ranker does); to any other
    ranker a block is just its candidates, in order (:class:`Candidates`).
    ``make`` must return candidates whose ``terms`` are ``index.terms`` at
    that position (or none); each is made once per block. ``unit_weight``:
    every candidate of the block weighs exactly 1 (Markdown sections), so a
    ranker may keep only the block's own best ``limit`` texts. ``skip``: the
    positions that are no candidates (:attr:`Query.leave_out_via`): not in
    :meth:`positions`, and a ranker scoring from ``index`` must leave them
    out of what it returns (the index still holds them).
    """

    __slots__ = ("index", "tokens", "unit_weight", "skip", "_make", "_made")

    def __init__(
        self,
        index: TermIndex,
        make: Callable[[int], Candidate],
        *,
        tokens: Sequence[str] | None = None,
        unit_weight: bool = False,
        skip: Collection[int] = frozenset(),
    ) -> None:
        self.index = index
        self.tokens = None if tokens is None else tuple(tokens)
        self.unit_weight = unit_weight
        self.skip = frozenset(skip)
        self._make = make
        self._made: dict[int, Candidate] = {}

    def positions(self) -> Sequence[int]:
        """The index positions of the block's candidates, ascending."""
        found = range(len(self.index)) if self.tokens is None else self.index.positions(self.tokens)
        if self.skip:
            return [position for position in found if position not in self.skip]
        return found

    def covers(self, tokens: Sequence[str]) -> bool:
        """Whether every text of the index holding one of ``tokens`` is in the block."""
        return self.tokens is None or set(tokens) <= set(self.tokens)

    def candidate(self, position: int) -> Candidate:
        """The candidate at ``position`` of the index (made once)."""
        made = self._made.get(position)
        if made is None:
            made = self._made[position] = self._make(position)
        return made

    def __iter__(self) -> Iterator[Candidate]:
        return map(self.candidate, self.positions())

    def __repr__(self) -> str:
        return f"CandidateBlock({len(self.index)} texts, tokens={self.tokens!r})"


class Candidates(Sequence[Candidate]):
    """What a ranker is given: every candidate of the recall, in tie order
    (sources by ``order``, each in its own order), as a read-only sequence.

    :meth:`parts` shows how the sources gave them: lists of candidates and
    :class:`CandidateBlock` objects, so that a ranker can score a block from
    its index; used as a plain sequence, the blocks' candidates are made.
    """

    __slots__ = ("_parts", "_flat")

    def __init__(self, parts: Iterable[Sequence[Candidate] | CandidateBlock]) -> None:
        self._parts = tuple(parts)
        self._flat: list[Candidate] | None = None

    def parts(self) -> tuple[Sequence[Candidate] | CandidateBlock, ...]:
        return self._parts

    def _all(self) -> list[Candidate]:
        flat = self._flat
        if flat is None:
            flat = self._flat = [candidate for part in self._parts for candidate in part]
        return flat

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        return self._all()[index]

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self._all())

    def __repr__(self) -> str:
        return f"Candidates({self._parts!r})"


class Scored(_Frozen):
    """A ranker's verdict on one candidate: its ``score`` and, optionally,
    ``extra`` result fields placed after the candidate's own (the evidence
    ranker's ``evidence``)."""

    __slots__ = ("candidate", "score", "extra")

    candidate: Candidate
    score: float
    extra: Mapping[str, Any] | None

    def __init__(self, candidate: Candidate, score: float, extra: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "candidate", candidate)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "extra", extra)

    @property
    def fields(self) -> Mapping[str, Any]:
        return self.candidate.fields

    def to_json(self) -> dict[str, Any]:
        """The result as ``recall --json`` prints it: ``score`` first."""
        data = {"score": self.score, **self.candidate.fields}
        if self.extra:
            data.update(self.extra)
        return data

    def __repr__(self) -> str:
        return f"Scored({self.score!r}, {self.candidate!r})"
