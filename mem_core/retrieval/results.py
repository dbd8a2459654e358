"""What one recall returns: :class:`RecallResult`, and the results the
caller owns (:func:`owned_result`), for the recall of one project and of every
project (``--scope all``) alike.

Results of the hot-path commands are plain classes: importing pydantic costs
more than the whole ``mem write`` budget (see benchmarks/).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.retrieval.query import Candidate, Scored

if TYPE_CHECKING:
    from typing import Any

__all__ = ["RecallResult", "owned_result"]


class RecallResult:
    """The ranked results of one recall (and the sources it skipped)."""

    def __init__(
        self,
        query: str,
        scope: str,
        ranking: str,
        results: list[Scored],
        skipped: list[dict[str, str]],
        hints: list[str] | None = None,
    ) -> None:
        self.query = query
        self.scope = scope
        self.ranking = ranking
        self.results = results
        self.skipped = skipped
        #: why nothing was found, when something can be said (see :mod:`mem_core.retrieval.hints`)
        self.hints = hints or []
        #: ``--scope all``: how the text output names each result's project (its ``project`` field)
        self.labels: dict[str, str] = {}
        #: beyond the project (``--scope portfolio``, ``all``): where each result lives,
        #: ``(project root, False)`` or ``(None, True)`` for the brain, for the text output
        self.places: list[tuple[str | None, bool]] = []
        #: what there was to search, when it was nothing (no project, no brain): text output
        #: says it on stderr; not in the JSON, whose bytes the reference pins
        self.notes: list[str] = []

    @property
    def count(self) -> int:
        """How many results."""
        return len(self.results)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "scope": self.scope,
            "ranking": self.ranking,
            "count": len(self.results),
            "results": [c.to_json() for c in self.results],
        }
        if self.skipped:
            data["skipped"] = self.skipped
        if self.hints:
            data["hints"] = self.hints
        return data


def owned_result(scored: Scored) -> Scored:
    """A result the caller may change: sources may share their candidates
    between recalls (the kernel's file cache), so the result gets its own
    copy of the candidate's fields."""
    candidate = scored.candidate
    fields = _copy(candidate.fields)
    return Scored(
        Candidate(candidate.scored_text, fields, candidate.weight, candidate.terms), scored.score, scored.extra
    )


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts and lists; anything else is shared)."""
    if value.__class__ is dict:
        return {key: _copy(item) for key, item in value.items()}
    if value.__class__ is list:
        return [_copy(item) for item in value]
    return value
