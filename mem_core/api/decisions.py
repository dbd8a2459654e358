"""A human's decision on a proposed promotion: ``mem promotions accept|reject``
and the review pages of ``mem serve``.

``mem reinforce`` only ever proposes (its records are ``PROPOSED``, see
:func:`~mem_core.api.reinforce.proposal`); the approval is a human's. A
decision is appended to ``promotions.ndjson`` — never an edit of the
proposal's line — as a copy of the proposal with the reference's fields set:

* accepted: ``"status": "APPROVED"``, ``"approvedBy": <name>``,
  ``"approvedAt": <time>`` — what ``bmad-plus mem``'s
  ``assertPromotionApplicable`` requires before anything is applied;
* rejected: ``"status": "REJECTED"``, ``approvedBy``/``approvedAt`` left
  ``null``, ``"rejectedBy"``/``"rejectedAt"``.

Then, after the reference's keys (extra keys are kept by every reader):
``decisionReason``, ``decidedWith`` (``signed``: a trusted human key, whose
``fingerprint`` and ``signature`` over :func:`decision_payload` follow;
``terminal``: a yes typed where no key is trusted; ``session``: a human's
session on the team server, whose audit log, chained and signed by the
server's key, holds the entry).
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError

if TYPE_CHECKING:
    from mem_core.humans.keys import HumanKey

__all__ = ["DECISIONS", "DecisionResult", "decide", "decision_payload", "REASON_MAX"]

#: what a human can decide, and the status each writes
DECISIONS = {"accept": "APPROVED", "reject": "REJECTED"}
REASON_MAX = 2000


class DecisionResult:
    """The record appended. JSON: ``{"decision", "promotion": <record>}``."""

    def __init__(self, decision: str, record: dict[str, Any]) -> None:
        self.decision = decision
        self.record = record

    def to_dict(self) -> dict[str, Any]:
        from mem_core.plain import plain

        return plain({"decision": self.decision, "promotion": self.record})

    to_json = to_dict


def decision_payload(record: dict[str, Any], by: str, at: str, reason: str) -> bytes:
    """The bytes a human key signs for a decision: the canonical JSON (keys
    sorted, no spaces, UTF-8) of ``{at, by, id, patternId, reason, status}``."""
    body = {"at": at, "by": by, "id": record["id"], "patternId": record["patternId"], "reason": reason,
            "status": record["status"]}  # fmt: skip
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def _reason(reason: object) -> str:
    from mem_core.textsafe import visible_name

    if not isinstance(reason, str) or not reason.strip():
        raise MemError("--reason is required: say why (it is kept with the decision); nothing was changed.")
    if len(reason) > REASON_MAX or not visible_name(reason, spaces=True):
        raise MemError(f"--reason is 1-{REASON_MAX} visible characters on one line; nothing was changed.")
    return reason.strip()


def _pending(project: str, promotion_id: str) -> dict[str, Any]:
    """The proposal ``promotion_id`` names, still undecided (the rule
    :func:`~mem_core.api.views.proposed_promotions` lists by)."""
    from mem_core.api.reinforce import read_promotions
    from mem_core.api.views import DECIDED

    records = read_promotions(project)
    for number, record in enumerate(records):
        if record.id != promotion_id or record.status != "PROPOSED":
            continue
        later = records[number + 1 :]
        decided = [r for r in later if r.patternId == record.patternId and r.status in DECIDED]
        if decided:
            raise MemError(
                f"the promotion {promotion_id} is decided already ({decided[0].status}); nothing was changed."
            )
        return record.to_record()
    shown = promotion_id if len(promotion_id) <= 64 and promotion_id.isprintable() else repr(promotion_id[:64])
    raise MemError(f"no proposed promotion {shown} (mem promotions lists them); nothing was changed.")


def decide(
    promotion_id: str,
    decision: str,
    reason: str | None,
    *,
    directory: str | None = None,
    signer: HumanKey | None = None,
    human: str | None = None,
    interactive: bool = True,
    session: str | None = None,
    now: str | None = None,
) -> DecisionResult:
    """Record ``decision`` (``accept`` or ``reject``) on the proposed
    promotion ``promotion_id``, for ``reason``, as a human.

    The human is proven as for ``mem verify``: ``signer`` (an unlocked trusted
    key), the passphrase of the trusted key on this machine typed on the
    terminal, or where no key is trusted a yes typed there. ``session``
    (the team server's human, by name) stands in for that proof: the server
    checked the session and appends the decision to its audit log.
    """
    from mem_core.clock import now_iso
    from mem_core.files import PROMOTIONS, append_record, writer_lock
    from mem_core.humans.proof import require_human
    from mem_core.project import find_project

    if decision not in DECISIONS:
        raise MemError(f"a decision is accept or reject (got {decision[:40]!r}); nothing was changed.")
    why = _reason(reason)
    project = find_project(directory)
    record = _pending(project, promotion_id)  # refuse before asking anything
    with_ = "session"
    by = session
    if session is None:
        question = (f"mem promotions: {decision} the promotion {promotion_id} of the pattern "
                    f"{json.dumps(record['patternId'])[:200]} ({record['fromStatus']} -> {record['toStatus']})?\n"
                    f"  reason: {why}")  # fmt: skip
        proof = require_human("promote", question, project=project, signer=signer, human=human,
                              interactive=interactive)  # fmt: skip
        signer = proof.signer
        with_ = "signed" if signer is not None else "terminal"
        by = signer.name if signer is not None else "terminal"
    at = now or now_iso()
    with writer_lock(project):
        record = _pending(project, promotion_id)  # as it is now, under the lock
        record["status"] = DECISIONS[decision]
        if decision == "accept":
            record["approvedBy"], record["approvedAt"] = by, at
        else:
            record["approvedBy"], record["approvedAt"] = None, None
            record["rejectedBy"], record["rejectedAt"] = by, at
        record["decisionReason"] = why
        record["decidedWith"] = with_
        if signer is not None:
            record["fingerprint"] = signer.fingerprint
            signature = signer.sign(decision_payload(record, str(by), at, why))
            record["signature"] = base64.b64encode(signature).decode("ascii")
        append_record(project, PROMOTIONS, record)
    return DecisionResult(decision, record)
