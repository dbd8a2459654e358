"""What a recall result is worth as evidence (issue 19, item 5), said by
the prompt-submit hook for each result it injects and by the ``hybrid``
ranking for each result it returns:

* :data:`VERIFIED` — a structured memory a human verified (signed);
* :data:`ACCEPTED` — a note section an eligible evidence receipt backs
  today (``mem outcomes``: ``accepted-current``), on the text the receipt
  saw;
* :data:`UNVERIFIED` — everything else: an agent's memory, a note without
  a current receipt, a journal event.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = ["ACCEPTED", "UNVERIFIED", "VERIFIED", "backed_notes", "trust"]

VERIFIED, ACCEPTED, UNVERIFIED = "verified", "receipt: accepted-current", "unverified"


def backed_notes(project: str, kernel: Kernel) -> set[tuple[str, str, str]]:
    """(file, heading, text hash) of the note sections that an eligible
    evidence receipt backs today; no receipts file, nothing read."""
    from mem_core.files import OUTCOMES

    if not os.path.exists(os.path.join(project, OUTCOMES)):
        return set()
    from mem_core.api.evidence import inspect_outcomes

    backed = set()
    for record in inspect_outcomes(project, kernel=kernel):
        memory = record.get("memory")
        if record.get("eligible") and isinstance(memory, dict):
            backed.add((str(memory.get("file")), str(memory.get("heading")), str(memory.get("textSha256"))))
    return backed


def trust(hit: Any, backed: set[tuple[str, str, str]]) -> str:
    """The label of ``hit`` (a result or a candidate: its ``fields``):
    :data:`VERIFIED` for a structured memory a human verified,
    :data:`ACCEPTED` for a note section in ``backed`` (:func:`backed_notes`)
    with the text the receipt saw, :data:`UNVERIFIED` for everything else."""
    fields = hit.fields
    kind = fields.get("kind")
    if kind == "memory":
        return VERIFIED if fields.get("verified") else UNVERIFIED
    if kind == "note" and backed:
        from mem_core.js.record import digest

        key = (str(fields.get("sourceFile")), str(fields.get("ref")), digest(str(fields.get("text", ""))))
        if key in backed:
            return ACCEPTED
    return UNVERIFIED
