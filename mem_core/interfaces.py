"""The plugin interfaces: what each registration hook's classes implement.

Kept free of heavy imports: this module is on the start-up path of every
command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

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
    scores; ``weight`` multiplies a positive score (e.g. journal decay): a
    number, or a function of no arguments returning a number in [0, 1], called
    only when a ranker needs it (so a costly weight is paid only for the
    candidates that can reach the results).
    """

    __slots__ = ("scored_text", "fields", "weight", "score")

    def __init__(
        self,
        scored_text: str,
        fields: dict[str, Any],
        weight: float | Callable[[], float] = 1.0,
        score: float = 0.0,
    ) -> None:
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
        kernel: Any = None,
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
        #: the :class:`~mem_core.kernel.manager.Kernel` serving this recall (for
        #: rankers that consult other registries, e.g. outcome verifiers)
        self.kernel = kernel
        self.skipped: list[dict[str, str]] = []
        #: set by rankers that only keep candidates sharing a word with the
        #: query (``Ranker.needs_query_match``): a source may then leave out a
        #: candidate whose lower-cased scored text contains none of these
        #: tokens as a substring, without building it
        self.match_tokens: list[str] | None = None
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
    #: true if the ranker drops every candidate that shares no token with the
    #: query; sources may then skip such candidates early (see
    #: :attr:`RecallRequest.match_tokens`)
    needs_query_match: ClassVar[bool] = False

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
    """Confirms accepted, independently verified, current work, and describes it
    as the ``source`` of an evidence receipt (mem-cli.md §5, §6, §10).

    Subclasses set ``name``: it is the receipt's ``source.kind`` and what an
    observe input names in ``"verifier"`` (default ``nexus``). A source must
    start with ``"kind": name`` and carry non-empty ``runId``, ``taskId`` and
    ``attemptId`` values: ``mem`` accepts one receipt per attempt. Sources are
    compared as ``JSON.stringify`` compares them: same values, same key order.
    """

    name: ClassVar[str]
    help: ClassVar[str] = ""

    def describe(self, project: str, request: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover
        """Validate the verifier's fields of an observe input ``request`` (the
        parsed input object), confirm the work it names, and return the receipt
        ``source``; raise ``MemError`` with the exact message otherwise."""
        raise NotImplementedError

    def recheck(self, project: str, source: dict[str, Any]) -> dict[str, Any]:
        """Confirm again the work a stored receipt ``source`` names, and return
        its current source (``mem outcomes``, and observe's re-read): equal to
        ``source`` while the evidence is unchanged. Raise ``MemError`` when the
        work no longer qualifies. The default describes ``source`` anew."""
        return self.describe(project, source)


if TYPE_CHECKING:  # the structured-memory types, kept off the start-up path
    from contextlib import AbstractContextManager

    from mem_core.memories.records import MemoryFilter
    from mem_core.settings import Settings


class MemoryStore:
    """A structured-memory backend (see ``structured-memory.md``).

    A backend stores *memory records*: plain dicts with exactly the fields of
    :data:`mem_core.memories.records.FIELDS`, in that order (``tags`` a list of
    str, ``verified`` a bool, ``confidence`` a float, ``expires_at`` a
    timestamp or ``None``; every timestamp ``YYYY-MM-DDTHH:MM:SS.mmmZ``). It
    returns records in that same shape. It does not validate them and does not
    apply the trust rules: :mod:`mem_core.memories.api` does both before calling it.

    One store lives in one *directory* (the project's ``.bmad/memory/`` or the
    user-level data directory); a server backend maps the directory to its own
    namespace. Every backend must pass ``tests/plugins/test_store_contract.py``.

    Writes (:meth:`insert`, :meth:`update`, :meth:`delete`) happen only inside
    :meth:`transaction`, which is exclusive across processes: a read inside it
    followed by a write is atomic. Every write appends to the store's history,
    which nothing ever rewrites.
    """

    #: the backend's name, selected by the ``store`` setting (default ``sqlite``)
    name: ClassVar[str]
    help: ClassVar[str] = ""

    @classmethod
    def configure(cls, settings: Settings) -> type[MemoryStore]:
        """This backend as ``settings`` (:class:`mem_core.settings.Settings`,
        read-only) configure it, before any :meth:`exists` or :meth:`open`:
        by default the class itself. A server backend returns a subclass
        bound to its connection settings (read them here, not from
        ``os.environ``). Must be cheap: no driver import, no connection."""
        return cls

    @classmethod
    def exists(cls, directory: str) -> bool:  # pragma: no cover - interface
        """Whether a store exists in ``directory``. Must be cheap (no database
        driver import): recall asks it on every run."""
        raise NotImplementedError

    @classmethod
    def open(cls, directory: str, *, create: bool) -> MemoryStore:  # pragma: no cover - interface
        """Open the store in ``directory``, migrating its schema to the current
        version. With ``create`` a missing store (and directory) is created;
        without it a missing store raises ``MemError``. Failures are
        ``MemError`` with a one-line message."""
        raise NotImplementedError

    @property
    def location(self) -> str:  # pragma: no cover - interface
        """Where the store is, for messages (a path, or a URL without secrets)."""
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - interface
        """Release the connection. The store is unusable afterwards."""
        raise NotImplementedError

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[None]:  # pragma: no cover - interface
        """An exclusive write transaction: concurrent writers (other processes
        included) wait for it; it commits when the block ends and rolls back,
        leaving no trace, when the block raises. Not re-entrant."""
        raise NotImplementedError

    def get(self, memory_id: str) -> dict[str, Any] | None:  # pragma: no cover - interface
        """The memory with this id, expired or not; ``None`` if there is none."""
        raise NotImplementedError

    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:  # pragma: no cover
        """The memory (mind, category, key), expired or not; ``None`` if there is none."""
        raise NotImplementedError

    def id_known(self, memory_id: str) -> bool:  # pragma: no cover - interface
        """Whether ``memory_id`` is or ever was used (history included), so
        that an id is never reused."""
        raise NotImplementedError

    def insert(self, record: dict[str, Any], *, at: str) -> None:  # pragma: no cover - interface
        """Add a new memory (its id and its (mind, category, key) are unused)
        and record it in the history as ``create`` at ``at``."""
        raise NotImplementedError

    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:  # pragma: no cover - interface
        """Replace the memory with ``record["id"]`` (same mind, category and
        key) and record the new value in the history as ``action``
        (``update`` or ``verify``) at ``at``; the previous value stays in the
        history."""
        raise NotImplementedError

    def delete(self, memory_id: str, *, at: str) -> None:  # pragma: no cover - interface
        """Remove the memory from every query and record a ``delete``
        tombstone (holding its last value) in the history at ``at``."""
        raise NotImplementedError

    def history(self, memory_id: str) -> list[dict[str, Any]]:  # pragma: no cover - interface
        """Every recorded version of a memory, oldest first, deleted ones
        included: ``{"seq", "memory_id", "action", "at", "memory": <record>}``
        with ``action`` one of ``create update verify delete``."""
        raise NotImplementedError

    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:  # pragma: no cover - interface
        """The memories ``where`` keeps (see ``MemoryFilter.keeps``), ordered by
        priority (critical first), then ``updated_at`` (latest first), then
        category, key and mind; when ``where.expires_before`` is set, by
        ``expires_at`` (soonest first) and then in that order. At most
        ``where.limit``."""
        raise NotImplementedError

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:  # pragma: no cover
        """Full-text search: the memories ``where`` keeps whose key, content or
        tags contain every one of ``words`` (case- and accent-insensitive whole
        words), ranked by the search engine's relevance, ties by the
        :meth:`query` order. At most ``where.limit``."""
        raise NotImplementedError

    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:  # pragma: no cover
        """The unexpired memories of every mind, in the :meth:`query` order,
        that ``mem recall`` should score. With ``tokens`` (recall query tokens,
        mem-cli.md §1) the backend may leave out memories none of whose
        ``memory_records.recall_terms`` is among them (they would score 0);
        returning more is allowed, fewer is not. ``None``: all of them."""
        raise NotImplementedError
