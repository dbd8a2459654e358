"""The outcome-verifier plugin interface (docs/contract.md §5, §6, §10)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, ClassVar

__all__ = ["OutcomeVerifier"]


class OutcomeVerifier(ABC):
    """Confirms accepted, independently verified, current work, and describes it
    as the ``source`` of an evidence receipt (docs/contract.md §5, §6, §10).

    Subclasses set ``name``: it is the receipt's ``source.kind`` and what an
    observe input names in ``"verifier"`` (default ``nexus``). A source must
    start with ``"kind": name`` and carry non-empty ``runId``, ``taskId`` and
    ``attemptId`` values: ``mem`` accepts one receipt per attempt. Sources are
    compared as ``JSON.stringify`` compares them: same values, same key order.
    Project files are read under the store's safety rules (``safe_file``).

    Example usage::

        from mem_core.plugin import MemError, OutcomeVerifier, hookimpl, read_text

        class Signoff(OutcomeVerifier):
            # work counts when signoffs/<task>.txt says "accepted"

            name = "signoff"

            def describe(self, project, request):
                task = request.get("taskId")
                if not isinstance(task, str) or not task.isidentifier():
                    raise MemError("Signoff taskId must be an identifier.")
                if (read_text(project, f"signoffs/{task}.txt", missing=True) or "").strip() != "accepted":
                    raise MemError("Signoff is missing or not accepted.")
                return {"kind": "signoff", "runId": task, "taskId": task, "attemptId": task}

        @hookimpl
        def mem_register_outcome_verifiers():
            return [Signoff]
    """

    name: ClassVar[str]
    help: ClassVar[str] = ""

    @abstractmethod
    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:
        """Validate the verifier's fields of an observe input ``request`` (the
        parsed input object), confirm the work it names, and return the receipt
        ``source``; raise ``MemError`` with the exact message otherwise."""

    def recheck(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        """Confirm again the work a stored receipt ``source`` names, and return
        its current source (``mem outcomes``, and observe's re-read): equal to
        ``source`` while the evidence is unchanged. Raise ``MemError`` when the
        work no longer qualifies. The default describes ``source`` anew."""
        return self.describe(project, source)
