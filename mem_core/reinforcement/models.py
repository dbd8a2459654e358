"""Records of ``mem reinforce``: the pattern score and the promotion proposal.

One pydantic model per on-disk record kind: :func:`read_pattern_scores` and
:func:`read_promotions` (in :mod:`mem_core.api.reinforce`) validate what they
read with them, and :class:`ProposedPromotion` is the exact schema of what
``mem reinforce`` appends (the test suite validates every line it writes).
Bytes always come from :mod:`mem_core.js.jsonfmt`, in the key order
``bmad-plus mem`` writes (:meth:`to_record` gives it for a model).

The read models keep unknown keys (``extra="allow"``): these files are shared
with other tools (``bmad-plus mem``, Shield) that may add fields.

Importing pydantic costs more than a whole ``mem write`` — and ``reinforce``
works under the writer lock, where every millisecond keeps other writers
waiting — so neither the write path nor ``reinforce`` imports this module.
"""

from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "PROMOTION_STATUSES",
    "PatternScore",
    "PromotionRecord",
    "ProposedPromotion",
]

#: every status a promotion record can carry on disk; ``mem`` writes only PROPOSED
PROMOTION_STATUSES = ("PROPOSED", "APPROVED", "REJECTED", "APPLIED")

_SCORE_KEYS = ("elo", "alpha", "beta", "mean", "updates", "lastTs")
_PROMOTION_KEYS = (
    "id",
    "patternId",
    "fromStatus",
    "toStatus",
    "reason",
    "evidence",
    "score",
    "ts",
    "status",
    "governedBy",
    "approvedBy",
    "approvedAt",
)


def _ordered(model: BaseModel, keys: tuple[str, ...]) -> dict[str, Any]:
    record = {key: getattr(model, key) for key in keys}
    record.update(model.model_extra or {})
    return record


class PatternScore(BaseModel):
    """One pattern's entry in ``.bmad/memory/pattern-scores.json``.

    ``elo`` and ``updates`` are numbers; they are strings only when a stored
    value was a string (JavaScript then concatenates: ``"5" + 1`` is ``"51"``,
    and ``bmad-plus mem`` writes that back). ``lastTs`` is the ISO time of the
    last reinforcement (``bmad-plus`` also accepts epoch milliseconds).
    """

    model_config = ConfigDict(extra="allow", strict=True)

    elo: Union[float, str]
    alpha: float
    beta: float
    mean: float
    updates: Union[float, str]
    lastTs: Union[str, float, None] = None

    def to_record(self) -> dict[str, Any]:
        """The JSON object as written: the six keys in file order, then any
        extra keys as read."""
        return _ordered(self, _SCORE_KEYS)


class PromotionRecord(BaseModel):
    """A line of ``.bmad/memory/promotions.ndjson`` as read: any status, since
    the approval of a proposal is recorded by a human or Shield, not by ``mem``."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    id: str
    patternId: str = Field(min_length=1)
    fromStatus: str
    toStatus: str
    reason: str
    evidence: list[str]
    score: Union[PatternScore, None]
    ts: str
    status: Literal["PROPOSED", "APPROVED", "REJECTED", "APPLIED"]
    governedBy: str
    approvedBy: Union[str, None] = None
    approvedAt: Union[str, None] = None

    def to_record(self) -> dict[str, Any]:
        """The JSON object in file key order (extra keys last)."""
        record = _ordered(self, _PROMOTION_KEYS)
        if self.score is not None:
            record["score"] = self.score.to_record()
        return record


class ProposedPromotion(PromotionRecord):
    """The only promotion ``mem`` can write: a proposal awaiting a human or
    Shield decision. Its status is PROPOSED and it carries no approval; the
    type admits nothing else, so no code path can write another status."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    fromStatus: Literal["candidate"] = "candidate"
    toStatus: Literal["validated"] = "validated"
    status: Literal["PROPOSED"] = "PROPOSED"
    governedBy: Literal["shield"] = "shield"
    approvedBy: None = None
    approvedAt: None = None
