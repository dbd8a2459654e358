"""Pydantic records of the evidence half: the ``mem observe`` input and the
receipt it appends to ``.bmad/memory/outcomes.ndjson`` (docs/contract.md §5).

The bytes of a receipt come from :mod:`mem_core.js.jsonfmt` in the exact key order
of :meth:`Receipt.record`; its ``id`` is the sha256 of the compact JSON of the
receipt without ``id``. Receipts written by other tools are *read* as plain
JSON values (:func:`mem_core.api.evidence.read_receipts`): their extra keys and
their key order are part of what their id hashes, so nothing here rewrites
them. Imported by ``mem observe`` only (pydantic stays off the recall path).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

from mem_core.errors import MemError
from mem_core.evidence.messages import INPUT_REQUIRED
from mem_core.js.record import UNDEFINED, digest, parse, prop

__all__ = ["ObserveInput", "MemoryAnchor", "ReceiptVerification", "Receipt"]


class ObserveInput(BaseModel):
    """The JSON object ``mem observe --input <file>`` reads.

    Every field is optional and untyped on purpose: each is checked in the
    order of §5, with its own message, while the writer lock is held, and a
    missing field (``undefined``) is not the same as ``null``. Keys beyond
    these (a verifier's own, e.g. ``report`` for ``junit``) are kept.
    """

    model_config = ConfigDict(extra="allow", frozen=True, arbitrary_types_allowed=True)

    #: the outcome verifier plugin that confirms the work (default ``nexus``)
    verifier: Any = UNDEFINED
    runId: Any = UNDEFINED
    taskId: Any = UNDEFINED
    #: ``{"file": ".agents/memory/lessons.md", "heading": "…"}``
    memory: Any = UNDEFINED
    scope: Any = UNDEFINED
    interpretation: Any = UNDEFINED
    supersedes: Any = UNDEFINED
    contradicts: Any = UNDEFINED

    _value: Any = PrivateAttr(default=None)

    @classmethod
    def parse_text(cls, text: str) -> ObserveInput:
        """Parse like ``JSON.parse`` (V8's messages); anything but an object
        (or an array, which JavaScript also calls an object) is refused with
        ``Outcome input is required.``"""
        value = parse(text)
        if not isinstance(value, (dict, list)):
            raise MemError(INPUT_REQUIRED)
        model = cls.model_validate(value) if isinstance(value, dict) else cls()
        model._value = value
        return model

    @property
    def value(self) -> Any:
        """The parsed JSON value, as read (what verifiers receive)."""
        return self._value

    def get(self, name: str) -> Any:
        """``input[name]`` (:data:`~mem_core.js.record.UNDEFINED` when absent)."""
        return prop(self._value, name)


class MemoryAnchor(BaseModel):
    """The exact section a receipt is about."""

    model_config = ConfigDict(extra="forbid")

    file: str
    heading: str
    #: sha256 of ``(heading + "\\n" + text).trim()``
    textSha256: str


class ReceiptVerification(BaseModel):
    """What a receipt claims: accepted, verified work; never that the lesson caused it."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["passed"] = "passed"
    acceptance: Literal["accepted"] = "accepted"
    lessonCausality: Literal["unmeasured"] = "unmeasured"


class Receipt(BaseModel):
    """One ``accepted-outcome`` receipt, keys in the order of §5."""

    model_config = ConfigDict(extra="forbid")

    id: str
    schemaVersion: Literal[1] = 1
    kind: Literal["accepted-outcome"] = "accepted-outcome"
    ts: str
    memory: MemoryAnchor
    scope: list[str]
    #: the verifier's description of the work; ``kind`` names the verifier
    source: dict[str, Any]
    interpretation: str
    verification: ReceiptVerification = ReceiptVerification()
    supersedes: list[str]
    contradicts: list[str]

    @classmethod
    def create(
        cls,
        *,
        ts: str,
        memory: dict[str, Any],
        scope: list[str],
        source: dict[str, Any],
        interpretation: str,
        supersedes: list[str],
        contradicts: list[str],
    ) -> Receipt:
        """A new receipt, its ``id`` computed from the body."""
        draft = cls.model_construct(
            id="",
            ts=ts,
            memory=MemoryAnchor(**memory),
            scope=scope,
            source=source,
            interpretation=interpretation,
            supersedes=supersedes,
            contradicts=contradicts,
        )
        return cls.model_validate({"id": digest(draft.body()), **draft.body()})

    def body(self) -> dict[str, Any]:
        """The receipt without ``id``: what the id hashes."""
        return {
            "schemaVersion": 1,
            "kind": "accepted-outcome",
            "ts": self.ts,
            "memory": {"file": self.memory.file, "heading": self.memory.heading, "textSha256": self.memory.textSha256},
            "scope": list(self.scope),
            "source": self.source,
            "interpretation": self.interpretation,
            "verification": {"status": "passed", "acceptance": "accepted", "lessonCausality": "unmeasured"},
            "supersedes": list(self.supersedes),
            "contradicts": list(self.contradicts),
        }

    def record(self) -> dict[str, Any]:
        """The line written to ``outcomes.ndjson`` (before ``JSON.stringify``)."""
        return {"id": self.id, **self.body()}

    def intact(self) -> bool:
        """Whether ``id`` is the hash of the body."""
        return self.id == digest(self.body())
