"""What ``mem reinforce`` has recorded, for a human to read: the pattern
scores (``mem scores``) and the proposed promotions (``mem promotions``).

Read-only: both read ``pattern-scores.json`` and ``promotions.ndjson`` as
:func:`~mem_core.api.reinforce.read_pattern_scores` and
:func:`~mem_core.api.reinforce.read_promotions` validate them, take no
lock and write nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mem_core.js.numbers import js_to_number
from mem_core.plain import plain

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ScoreRow", "ScoresResult", "PromotionRow", "DecisionRow", "PromotionsResult", "pattern_scores",
           "proposed_promotions", "awaiting", "DECIDED"]  # fmt: skip

#: a status that settles a proposal (written by a human or Shield, never by mem)
DECIDED = ("APPROVED", "REJECTED", "APPLIED")


def _number(value: Any) -> float | None:
    """A stored number as JavaScript reads it (a string ``"51"`` that
    ``bmad-plus mem`` concatenated is 51); ``None`` for no number."""
    number = js_to_number(value)
    return None if math.isnan(number) else number


def _score(score: Any) -> dict[str, Any]:
    return {
        "elo": _number(score.elo),
        "mean": _number(score.mean),
        "alpha": _number(score.alpha),
        "beta": _number(score.beta),
        "updates": _number(score.updates),
        "lastTs": score.lastTs,
    }


class ScoreRow:
    """One pattern's score: Elo, posterior mean (alpha, beta), updates, the
    time of its last update."""

    __slots__ = ("pattern", "elo", "mean", "alpha", "beta", "updates", "last_update")

    def __init__(self, pattern: str, score: dict[str, Any]) -> None:
        self.pattern = pattern
        self.elo: float | None = score["elo"]
        self.mean: float | None = score["mean"]
        self.alpha: float | None = score["alpha"]
        self.beta: float | None = score["beta"]
        #: a whole number (``int``) as the API gives it
        self.updates: int | float | None = plain(score["updates"], "updates")
        self.last_update: str | float | None = score["lastTs"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "elo": self.elo,
            "mean": self.mean,
            "alpha": self.alpha,
            "beta": self.beta,
            "updates": self.updates,
            "lastUpdate": self.last_update,
        }


class ScoresResult:
    """Every pattern score, highest Elo first (ties: the pattern's name).
    JSON: ``{"count", "scores": [{pattern, elo, mean, alpha, beta, updates, lastUpdate}]}``."""

    def __init__(self, project: str, scores: list[ScoreRow]) -> None:
        self.project = project
        self.scores = scores

    @property
    def count(self) -> int:
        return len(self.scores)

    def to_dict(self) -> dict[str, Any]:
        return plain({"count": self.count, "scores": [row.to_dict() for row in self.scores]})

    to_json = to_dict


def _elo_order(row: ScoreRow) -> tuple[float, str]:
    elo = row.elo if isinstance(row.elo, (int, float)) and not math.isnan(row.elo) else -math.inf
    return (-elo, row.pattern)


def pattern_scores(directory: str | None = None) -> ScoresResult:
    """Every pattern in ``pattern-scores.json``, sorted by Elo, highest first.
    A corrupt store is refused with the message ``mem reinforce`` gives."""
    from mem_core.api.reinforce import read_pattern_scores
    from mem_core.project import find_project

    project = find_project(directory)
    rows = [ScoreRow(pattern, _score(score)) for pattern, score in read_pattern_scores(project).items()]
    return ScoresResult(project, sorted(rows, key=_elo_order))


class PromotionRow:
    """A proposed promotion: its id, the pattern, when and why it was
    proposed, the evidence ids it carries, its score then, and the pattern's
    score now (``None`` when the pattern has no score any more)."""

    __slots__ = ("id", "pattern", "ts", "reason", "evidence", "score", "current")

    def __init__(
        self,
        id: str,
        pattern: str,
        ts: str,
        reason: str,
        evidence: list[str],
        score: dict[str, Any] | None,
        current: dict[str, Any] | None,
    ) -> None:
        self.id = id
        self.pattern = pattern
        self.ts = ts
        self.reason = reason
        self.evidence = evidence
        self.score = score
        self.current = current

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "pattern": self.pattern,
            "ts": self.ts,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "proposedScore": dict(self.score) if self.score is not None else None,
            "currentScore": dict(self.current) if self.current is not None else None,
        }


class DecisionRow:
    """A decision on a promotion (``APPROVED``, ``REJECTED`` or ``APPLIED``):
    who took it, when, why, and how they were proven
    (:mod:`~mem_core.api.decisions`; Shield's records may carry
    only the reference's fields)."""

    __slots__ = ("id", "pattern", "status", "by", "at", "reason", "decided_with")

    def __init__(self, record: Any) -> None:
        extra = record.model_extra or {}
        rejected = record.status == "REJECTED"
        self.id: str = record.id
        self.pattern: str = record.patternId
        self.status: str = record.status
        self.by = extra.get("rejectedBy") if rejected else record.approvedBy
        self.at = extra.get("rejectedAt") if rejected else record.approvedAt
        self.reason = extra.get("decisionReason")
        self.decided_with = extra.get("decidedWith")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "pattern": self.pattern, "status": self.status, "by": self.by, "at": self.at,
                "reason": self.reason, "decidedWith": self.decided_with}  # fmt: skip


class PromotionsResult:
    """The proposals no human or Shield has decided yet, oldest first, and
    the decisions taken, in file order. JSON: ``{"count", "promotions":
    [{id, pattern, ts, reason, evidence, proposedScore, currentScore}],
    "decisions": [{id, pattern, status, by, at, reason, decidedWith}]}``."""

    def __init__(
        self, project: str, promotions: list[PromotionRow], decisions: list[DecisionRow] | None = None
    ) -> None:
        self.project = project
        self.promotions = promotions
        self.decisions = decisions or []

    @property
    def count(self) -> int:
        return len(self.promotions)

    def to_dict(self) -> dict[str, Any]:
        return plain({"count": self.count, "promotions": [row.to_dict() for row in self.promotions],
                      "decisions": [row.to_dict() for row in self.decisions]})  # fmt: skip

    to_json = to_dict


def awaiting(entries: Sequence[tuple[object, object]]) -> list[bool]:
    """For each ``(status, pattern)`` of promotion records in file order:
    whether it is a proposal still awaiting a decision, that is a
    ``PROPOSED`` record with no later :data:`DECIDED` record of its pattern."""
    decided_later: set[object] = set()
    found = [False] * len(entries)
    for number in range(len(entries) - 1, -1, -1):
        status, pattern = entries[number]
        if status == "PROPOSED":
            found[number] = pattern not in decided_later
        elif status in DECIDED:
            decided_later.add(pattern)
    return found


def proposed_promotions(directory: str | None = None) -> PromotionsResult:
    """Every ``PROPOSED`` record of ``promotions.ndjson`` whose pattern has
    no later decision (an ``APPROVED``, ``REJECTED`` or ``APPLIED`` record),
    in file order, with the pattern's current score; and every decision."""
    from mem_core.api.reinforce import read_pattern_scores, read_promotions
    from mem_core.project import find_project

    project = find_project(directory)
    records = read_promotions(project)
    scores = read_pattern_scores(project)
    rows = []
    decisions = []
    pending = awaiting([(record.status, record.patternId) for record in records])
    for record, waits in zip(records, pending, strict=True):
        if record.status != "PROPOSED":
            decisions.append(DecisionRow(record))
            continue
        if not waits:
            continue
        current = scores.get(record.patternId)
        rows.append(
            PromotionRow(
                record.id,
                record.patternId,
                record.ts,
                record.reason,
                list(record.evidence),
                _score(record.score) if record.score is not None else None,
                _score(current) if current is not None else None,
            )
        )
    return PromotionsResult(project, rows, decisions)
