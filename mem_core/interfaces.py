"""The plugin interfaces: what each registration hook's classes implement.

Kept free of heavy imports: this module is on the start-up path of every
command.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

__all__ = [
    "Candidate",
    "RecallRequest",
    "NoteSource",
    "Ranker",
    "RewardSignal",
    "OutcomeVerifier",
    "MemoryStore",
]


class Candidate:
    """One recall candidate.

    ``fields`` are the result's JSON keys after ``score``, in output order
    (``kind``, ``source``, … ``text``); ``scored_text`` is what the ranker
    scores; ``weight`` multiplies a positive score (e.g. journal decay).
    """

    __slots__ = ("scored_text", "fields", "weight", "score")

    def __init__(self, scored_text: str, fields: dict[str, Any], weight: float = 1.0, score: float = 0.0) -> None:
        self.scored_text = scored_text
        self.fields = fields
        self.weight = weight
        self.score = score

    @property
    def kind(self) -> str:
        return self.fields["kind"]

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, **self.fields}

    def __repr__(self) -> str:
        return f"Candidate(score={self.score!r}, fields={self.fields!r})"


class RecallRequest:
    """Everything a source or ranker may need to answer one ``recall``.

    (Plain classes rather than dataclasses here and in the API results:
    defining a dataclass costs about a millisecond of start-up each.)
    """

    def __init__(
        self,
        project: str,
        query: str,
        tokens: list[str],
        *,
        scope: str = "project",
        portfolio: str | None = None,
        limit: int = 8,
        ranking: str = "lexical",
        context_scope: list[str] | None = None,
        now: str = "",
        now_ms: float | None = None,
        strict: bool = False,
    ) -> None:
        self.project = project
        self.query = query
        self.tokens = tokens
        self.scope = scope
        self.portfolio = portfolio
        self.limit = limit
        self.ranking = ranking
        self.context_scope = context_scope
        self.now = now
        self.now_ms = now_ms
        #: strict sources raise on an unsafe file (evidence ranking) instead
        #: of skipping it and reporting it in :attr:`skipped`
        self.strict = strict
        self.skipped: list[dict[str, str]] = []
        #: absolute paths of note files already read (a file reached twice is read once)
        self.files_read: set[str] = set()

    def skip(self, path: str, reason: str) -> None:
        self.skipped.append({"path": path, "reason": reason})


class NoteSource:
    """Yields recall candidates. Subclasses set ``name`` and implement
    :meth:`candidates`."""

    name: ClassVar[str]
    #: position in the tie order of recall (events 10, notes 20, portfolio 30 …)
    order: ClassVar[int] = 100

    def active(self, request: RecallRequest) -> bool:
        """Whether this source takes part in ``request`` (default: always)."""
        return True

    def candidates(self, request: RecallRequest) -> Iterable[Candidate]:  # pragma: no cover - interface
        raise NotImplementedError


class Ranker:
    """Scores, filters and orders candidates. Subclasses set ``name``."""

    name: ClassVar[str]
    help: ClassVar[str] = ""

    def validate(self, request: RecallRequest) -> None:
        """Refuse request options this ranker cannot serve (raise ``MemError``)."""

    def rank(self, request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:  # pragma: no cover
        raise NotImplementedError


class RewardSignal:
    """A reward signal: its option, its parsing, its weight.

    ``name`` is the option (``--<name>``), ``key`` the key it is recorded
    under in an event's ``signals`` (defaults to ``name``).
    """

    name: ClassVar[str]
    key: ClassVar[str] = ""
    weight: ClassVar[float]
    help: ClassVar[str] = ""

    @classmethod
    def signal_key(cls) -> str:
        return cls.key or cls.name

    def parse(self, raw: str) -> Any:  # pragma: no cover - interface
        """The value recorded for the option's text ``raw``."""
        raise NotImplementedError

    def value(self, recorded: Any) -> float:  # pragma: no cover - interface
        """The recorded value as a reward in [0, 1]."""
        raise NotImplementedError


class OutcomeVerifier:
    """Confirms accepted, independently verified, current work. Subclasses set
    ``name`` (the receipt's ``source.kind``)."""

    name: ClassVar[str]

    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        """Return the receipt ``source`` for ``request`` or raise ``MemError``."""
        raise NotImplementedError


class MemoryStore:
    """A structured-memory backend (see ``structured-memory.md``)."""

    name: ClassVar[str]
