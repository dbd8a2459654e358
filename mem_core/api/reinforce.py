"""``mem reinforce``: fold a reward into a pattern's score, and propose — never
apply — a promotion once the pattern has earned it (docs/contract.md §4).

Files, both under ``.bmad/memory/`` and shared with ``bmad-plus mem``:

* ``pattern-scores.json`` — ``{"<pattern>": {elo, alpha, beta, mean, updates,
  lastTs}, …}``, replaced atomically on every reinforcement;
* ``promotions.ndjson`` — one ``PROPOSED`` record appended each time a
  reinforcement leaves the pattern with ``mean >= 0.7`` over ``>= 3`` updates.

Everything happens under one writer lock, taken before anything is checked,
so concurrent ``mem``/``bmad-plus mem`` processes never lose an update.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mem_core.api.signals import compute_reward, parse_signals
from mem_core.clock import now_iso
from mem_core.errors import MemError
from mem_core.files import PATTERN_SCORES as SCORES
from mem_core.files import PROMOTIONS, append_record, read_text, write_json, writer_lock
from mem_core.files.io import check_appendable, decode_text, read_file_bytes, write_file
from mem_core.journal.records import deterministic_id
from mem_core.js.jsonfmt import JSONError, dumps, loads, parsed_order, to_fixed
from mem_core.js.numbers import js_to_number
from mem_core.js.strings import js_trim
from mem_core.js.values import UNDEFINED, js_string
from mem_core.project import find_project
from mem_core.reinforcement.reward import update_score
from mem_core.reinforcement.scorefile import Certificate, find_entry

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = [
    "SCORES",
    "PROMOTIONS",
    "PROMOTION_MEAN",
    "PROMOTION_MIN_UPDATES",
    "PATTERN_REQUIRED",
    "CORRUPT_SCORES",
    "ReinforceResult",
    "reinforce",
    "read_scores",
    "read_pattern_scores",
    "read_promotions",
    "parse_evidence",
    "proposal",
    "UNDEFINED",
]

#: a promotion is proposed when the posterior mean reaches this …
PROMOTION_MEAN = 0.7
#: … over at least this many updates
PROMOTION_MIN_UPDATES = 3

# The reference prefixes this message with the command name, and prints it
# after its own "mem reinforce: " prefix; both prefixes are kept (§4).
PATTERN_REQUIRED = "mem reinforce: --pattern <id> is required (the pattern heading in patterns.md)"
CORRUPT_SCORES = "Pattern score store is corrupt; inspect pattern-scores.json before reinforcing."


class _Inherited:
    """A pattern id naming a member of ``Object.prototype`` that the score
    store does not hold as its own key (``toString``, ``constructor``,
    ``__proto__`` …): JavaScript finds the inherited member there instead of
    nothing, and ``bmad-plus mem`` acts on it. :attr:`json` is how it
    serialises (a function is left out of its object, ``__proto__`` is ``{}``).
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def is_function(self) -> bool:
        return self.name != "__proto__"

    def __repr__(self) -> str:
        return f"Object.prototype.{self.name}"


_OBJECT_PROTOTYPE = frozenset(
    {
        "constructor",
        "__defineGetter__",
        "__defineSetter__",
        "hasOwnProperty",
        "__lookupGetter__",
        "__lookupSetter__",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toString",
        "valueOf",
        "__proto__",
        "toLocaleString",
    }
)


class ReinforceResult:
    """What one reinforcement did (docs/contract.md §4).

    ``previous`` is the stored score as read (``None`` for a new pattern);
    ``next`` the score written; ``promotion`` the PROPOSED record appended,
    if any; ``signals`` the recorded signal values the reward came from;
    ``evidence`` the ids given.
    """

    def __init__(
        self,
        pattern_id: str,
        reward: float,
        signals: dict[str, Any],
        previous: Any,
        next: dict[str, Any],
        promotion: dict[str, Any] | None = None,
        evidence: list[str] | None = None,
    ) -> None:
        self.pattern_id = pattern_id
        self.reward = reward
        self.signals = signals
        self.previous = previous
        self.next = next
        self.promotion = promotion
        self.evidence = evidence or []

    @property
    def previous_elo(self) -> Any:
        """The elo before the update: 1200 for a new pattern, else whatever the
        stored score holds (``UNDEFINED`` when it holds none)."""
        if self.previous is None:
            return 1200.0
        if isinstance(self.previous, dict):
            return self.previous.get("elo", UNDEFINED)
        return UNDEFINED

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"patternId": self.pattern_id, "reward": self.reward}
        if isinstance(self.previous, _Inherited):
            if not self.previous.is_function:  # JSON.stringify leaves functions out
                data["previous"] = {}
        else:
            data["previous"] = self.previous
        data["next"] = self.next
        data["promotion"] = self.promotion
        data["evidenceStatus"] = "self-reported"
        data["rankingEligible"] = False
        return data

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())


def parse_evidence(evidence: str | Sequence[str] | None) -> list[str]:
    """``--evidence``: comma-separated ids, each trimmed, empties dropped."""
    if not evidence:
        return []
    parts = evidence.split(",") if isinstance(evidence, str) else list(evidence)
    return [item for item in (js_trim(part) for part in parts) if item]


def read_scores(project: str) -> dict[str, Any]:
    """The pattern score store as JSON values (``{}`` when there is none).

    **(improve)** A file that is not valid JSON or not a JSON object is
    refused with :data:`CORRUPT_SCORES` — ``bmad-plus mem`` would silently
    start over and drop every other pattern's score.
    """
    # (improve, v0.2) read under §8's rules, without blocking: a FIFO, a
    # directory or an over-size file is refused, and so is malformed UTF-8
    # (Node would read it as U+FFFD and write the replacement back)
    return _parsed_scores(read_text(project, SCORES, missing=True))


def _parsed_scores(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        scores = loads(text)
    except (JSONError, RecursionError):
        raise MemError(CORRUPT_SCORES) from None
    if not isinstance(scores, dict):
        raise MemError(CORRUPT_SCORES)
    return parsed_order(scores, text)


def _lookup(scores: dict[str, Any], pattern: str) -> Any:
    """``scores[pattern] || null``, with JavaScript's property lookup."""
    if pattern in scores:
        value = scores[pattern]
    elif pattern in _OBJECT_PROTOTYPE:
        return _Inherited(pattern)
    else:
        return None
    if value is None or value is False or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (value == 0 or math.isnan(value)):
        return None
    return value


def proposal(pattern: str, ts: str, score: dict[str, Any], evidence: list[str]) -> dict[str, Any]:
    """The promotion record for ``pattern`` reaching ``score`` at ``ts``, in
    file key order. It is always a proposal: status ``PROPOSED``, no approval
    — there is no parameter for either, so nothing in ``mem`` can write
    another status (approval is a human or Shield decision, recorded
    elsewhere). Its schema is
    :class:`~mem_core.reinforcement.models.ProposedPromotion`.
    """
    return {
        "id": deterministic_id(pattern, ts, "validated"),
        "patternId": pattern,
        "fromStatus": "candidate",
        "toStatus": "validated",
        "reason": (
            f"posterior mean {to_fixed(score['mean'], 3)} >= {PROMOTION_MEAN} "
            f"over {js_string(score['updates'])} update(s)"
        ),
        "evidence": list(evidence),
        "score": score,
        "ts": ts,
        "status": "PROPOSED",
        "governedBy": "shield",
        "approvedBy": None,
        "approvedAt": None,
    }


def reinforce(
    pattern: str | None,
    *,
    directory: str | None = None,
    signals: dict[str, str] | None = None,
    evidence: str | Sequence[str] | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> ReinforceResult:
    """Apply the reward of ``signals`` to ``pattern``'s score (docs/contract.md §4).

    ``signals`` maps signal names (``eval``, ``accept``, ``ci`` or a plugin's)
    to option text; ``evidence`` is the comma-separated ids (or a list) copied
    into a promotion. Under the writer lock: check the pattern, compute the
    reward, update ``pattern-scores.json`` atomically, and append a PROPOSED
    promotion when ``mean >= 0.7`` over ``>= 3`` updates.
    """
    from mem_core.kernel import resolve

    now = now or now_iso()
    kernel, settings = resolve(directory, kernel)
    project = settings.project
    recorded = parse_signals(kernel, signals or {})
    evidence_ids = parse_evidence(evidence)
    with writer_lock(project):
        if not isinstance(pattern, str) or not js_trim(pattern):
            raise MemError(PATTERN_REQUIRED)
        reward = compute_reward(kernel, recorded)
        # when the file holds bytes mem wrote itself, only this pattern's entry
        # is decoded and written: a reinforce costs the same at any number of
        # patterns (mem_core.reinforcement.scorefile)
        data = read_file_bytes(project, SCORES, missing=True)
        certificate = Certificate.for_project(project, settings.cache_dir)
        entry = find_entry(data, pattern, _OBJECT_PROTOTYPE) if data and certificate.holds(data) else None
        if entry is None:
            scores = _parsed_scores(None if data is None else decode_text(data))
        else:
            scores = entry.stored
        previous = _lookup(scores, pattern)
        next_score = update_score(previous, reward, now)
        if not (isinstance(previous, _Inherited) and not previous.is_function):
            # assigning to an absent "__proto__" replaces the object's
            # prototype in JavaScript: the store does not gain the key
            scores[pattern] = next_score
        promotion = None
        if next_score["mean"] >= PROMOTION_MEAN and js_to_number(next_score["updates"]) >= PROMOTION_MIN_UPDATES:
            promotion = proposal(pattern, now, next_score, evidence_ids)
            # (improve, v0.2) the promotion must be appendable before the
            # scores change: a refusal leaves both files as they were
            check_appendable(project, PROMOTIONS, len((dumps(promotion) + "\n").encode("utf-8", "surrogatepass")))
        if entry is None:
            data = write_json(project, SCORES, scores)  # in JavaScript key order already (read_scores)
            certificate.record(data)
        else:
            pieces = entry.pieces(next_score)
            write_file(project, SCORES, pieces)
            certificate.record(pieces)
        if promotion is not None:
            append_record(project, PROMOTIONS, promotion)
    return ReinforceResult(pattern, reward, recorded, previous, next_score, promotion, evidence_ids)


def read_pattern_scores(directory: str | None = None) -> dict[str, Any]:
    """Every stored pattern score, validated, keyed by pattern id
    (:class:`~mem_core.reinforcement.models.PatternScore` values).

    An entry that is not a valid score is refused with :data:`CORRUPT_SCORES`
    and the pattern named.
    """
    from pydantic import ValidationError

    from mem_core.reinforcement.models import PatternScore

    scores = read_scores(find_project(directory))
    models = {}
    for pattern, value in scores.items():
        try:
            models[pattern] = PatternScore.model_validate(value)
        except ValidationError:
            raise MemError(f"{CORRUPT_SCORES} (pattern {dumps(pattern)})") from None
    return models


def read_promotions(directory: str | None = None) -> list[Any]:
    """Every promotion record in ``promotions.ndjson``, in file order, as
    :class:`~mem_core.reinforcement.models.PromotionRecord` (blank, corrupt or
    invalid lines are skipped, as for the journal)."""
    from pydantic import ValidationError

    from mem_core.reinforcement.models import PromotionRecord

    text = read_text(find_project(directory), PROMOTIONS, missing=True) or ""
    records = []
    for line in text.split("\n"):
        if not js_trim(line):
            continue
        try:
            records.append(PromotionRecord.model_validate_json(line))
        except ValidationError:
            continue
    return records
