"""What the structured-memory service returns: one class per answer, each
with ``to_json()`` (what the command prints with ``--json``, byte-compatible)
and ``to_dict()`` (the same as plain Python values, :mod:`mem_core.plain`).

Plain classes with ``__slots__``: the command line builds them on the start-up
path of ``mem remember``, ``memories`` and ``context``, where pydantic (and
``dataclasses``, which imports ``inspect``) would cost more than the command.
They hold what the service computed; nothing validates them again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.memories.kinds import MARKS
from mem_core.memories.records import FIELDS
from mem_core.plain import PlainResult

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Memory",
    "RememberResult",
    "MemoriesResult",
    "ForgetResult",
    "VerifyResult",
    "ContextSummary",
    "HistoryEntry",
    "HistoryResult",
    "RestoreResult",
    "MindsResult",
    "ExportResult",
    "ImportResult",
    "MigrateResult",
    "memory_json",
    "summary_head",
    "summary_block",
    "summary_text",
]


def memory_json(record: dict[str, Any]) -> dict[str, Any]:
    """A judged record as the JSON of a memory: the spec's fields in order,
    ``verification`` after ``verified``."""
    shown: dict[str, Any] = {}
    for name in FIELDS:
        shown[name] = list(record["tags"]) if name == "tags" else record[name]
        if name == "verified":
            shown["verification"] = record["verification"]
    return shown


class Memory(PlainResult):
    """One structured memory, exactly the spec's fields (structured-memory.md),
    read from a *judged* record: ``verified``, ``source`` and
    ``verification`` are what its signatures decided
    (:mod:`mem_core.memories.trust`), never what its columns claimed."""

    __slots__ = (*FIELDS, "verification", "record")

    id: str
    category: str
    key: str
    content: str
    tags: list[str]
    priority: str
    source: str
    verified: bool
    confidence: float
    expires_at: str | None
    mind_id: str
    created_at: str
    updated_at: str
    #: how ``verified`` was decided (:data:`mem_core.memories.kinds.VERIFICATIONS`)
    verification: str
    #: the judged record: the spec's fields and ``verification``
    record: dict[str, Any]

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        for name in FIELDS:
            setattr(self, name, record[name])
        self.verification = record["verification"]

    @property
    def ref(self) -> str:
        """``<category>/<key>``: how recall and the CLI name it."""
        return f"{self.category}/{self.key}"

    @property
    def mark(self) -> str:
        """The trust mark text shows: ``verified``, ``verified (terminal)``,
        ``unverified`` or ``unverified (signature invalid)``."""
        return MARKS[self.verification]

    def expired(self, now: str) -> bool:
        """Whether ``now`` is at or past ``expires_at``."""
        return self.expires_at is not None and self.expires_at <= now

    def to_json(self) -> dict[str, Any]:
        """The memory as JSON, keys in the spec's order."""
        return memory_json(self.record)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Memory) and self.record == other.record

    __hash__ = None  # type: ignore[assignment]  # mutable, like the record it holds

    def __repr__(self) -> str:
        return f"Memory({self.record!r})"


class RememberResult(PlainResult):
    """What :func:`~mem_core.api.memories.remember` did. JSON: ``{"memory", "created"}``."""

    __slots__ = ("memory", "created", "changed", "store")

    def __init__(self, memory: Memory, *, created: bool, changed: bool, store: str) -> None:
        self.memory = memory
        #: a new (mind, category, key)
        self.created = created
        #: false when an update would not change anything (nothing was written)
        self.changed = changed
        #: ``project`` or ``user`` (:data:`mem_core.memories.kinds.STORES`)
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "created": self.created}


class MemoriesResult(PlainResult):
    """The memories a listing, search or expiring query found.
    JSON: ``{"count", "total"?, "memories"}``."""

    __slots__ = ("memories", "mind", "store", "now", "search", "expiring", "total")

    def __init__(self, memories: list[Memory], *, mind: str, store: str, now: str, search: str | None = None,
                 expiring: str | None = None, total: int | None = None) -> None:  # fmt: skip
        self.memories = memories
        self.mind = mind
        self.store = store
        self.now = now
        #: the ``--search`` text, if any
        self.search = search
        #: the ``--expiring`` window as given (``7d``), if any
        self.expiring = expiring
        #: with a ``limit``: how many matched before it was applied (``None``: no limit given)
        self.total = total

    @property
    def count(self) -> int:
        """How many memories the result holds."""
        return len(self.memories)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"count": len(self.memories)}
        if self.total is not None:
            found["total"] = self.total
        found["memories"] = [m.to_json() for m in self.memories]
        return found


class ForgetResult(PlainResult):
    """The memory :func:`~mem_core.api.memories.forget` removed. JSON: ``{"forgotten"}``."""

    __slots__ = ("memory", "store")

    def __init__(self, memory: Memory, *, store: str) -> None:
        self.memory = memory
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"forgotten": self.memory.to_json()}


class VerifyResult(PlainResult):
    """The memory after :func:`~mem_core.api.memories.verify`. JSON:
    ``{"memory", "changed"}`` (``changed`` false: it was verified already)."""

    __slots__ = ("memory", "changed", "store")

    def __init__(self, memory: Memory, *, changed: bool, store: str) -> None:
        self.memory = memory
        self.changed = changed
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "changed": self.changed}


class ContextSummary(PlainResult):
    """The plain-text summary of a mind for an LLM's context.

    Layout (structured-memory.md, byte for byte)::

        Mind: <mind>
        Memories: <total> total (<verified> verified, <unverified> unverified)

        [001] <category> (<PRIORITY>) [verified]
          <key>
          <content, every line indented by two spaces>
          Tags: <tag>, <tag>

    Blocks are sorted critical → low, then most recently updated first;
    expired memories are left out (and not counted); an unverified memory
    says ``[unverified]``; a memory without tags says ``Tags: -`` (a tag
    always holds a letter or digit, so ``-`` is never a tag). The counts are
    of every unexpired memory even when ``limit`` shows fewer blocks. No
    final newline (the CLI adds one).

    Within a token ``budget`` (docs/brief.md), the blocks that do not fit are
    left out and counted on a last line, ``… 3 more: mem memories``
    (``omitted``; the JSON then carries ``omitted`` and ``budget``); when not
    even the head lines fit, they go too (``fitted`` holds the text).
    """

    __slots__ = ("mind", "total", "verified", "unverified", "memories", "store", "omitted", "budget", "fitted")

    def __init__(self, *, mind: str, total: int, verified: int, unverified: int, memories: list[Memory], store: str,
                 omitted: int = 0, budget: int | None = None, fitted: str | None = None) -> None:  # fmt: skip
        self.mind = mind
        self.total = total
        self.verified = verified
        self.unverified = unverified
        self.memories = memories
        self.store = store
        #: blocks left out to keep within ``budget``
        self.omitted = omitted
        self.budget = budget
        #: the text as the budget cut it (``None``: nothing was cut)
        self.fitted = fitted

    @property
    def text(self) -> str:
        if self.fitted is not None:
            return self.fitted
        return summary_text(self.mind, self.total, self.verified, self.unverified, self.memories)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "mind": self.mind,
            "total": self.total,
            "verified": self.verified,
            "unverified": self.unverified,
            "memories": [m.to_json() for m in self.memories],
        }
        if self.omitted:
            data["omitted"] = self.omitted
            data["budget"] = self.budget
        data["text"] = self.text
        return data


def summary_head(mind: str, total: int, verified: int, unverified: int) -> list[str]:
    """The two head lines of a context summary."""
    from mem_core.textsafe import escape as _escape

    return [f"Mind: {_escape(mind)}", f"Memories: {total} total ({verified} verified, {unverified} unverified)"]


def summary_block(number: int, memory: Memory) -> str:
    """The text of one memory's block, after the blank line that precedes it."""
    from mem_core.textsafe import escape as _escape
    from mem_core.textsafe import escape_block

    lines = [f"[{number:03d}] {memory.category} ({memory.priority.upper()}) [{memory.mark}]", f"  {memory.key}"]
    lines.extend(f"  {line}" for line in escape_block(memory.content))
    lines.append("  Tags: " + (", ".join(_escape(t) for t in memory.tags) if memory.tags else "-"))
    return "\n".join(lines)


def summary_text(mind: str, total: int, verified: int, unverified: int, memories: list[Memory]) -> str:
    """The whole summary: the head, then every block after a blank line."""
    parts = ["\n".join(summary_head(mind, total, verified, unverified))]
    parts.extend(summary_block(number, memory) for number, memory in enumerate(memories, 1))
    return "\n\n".join(parts)


class HistoryEntry(PlainResult):
    """One recorded version of a memory: ``version`` counts them from 1 (what
    ``mem memories restore`` takes), ``seq`` is the store's own order,
    ``action`` one of :data:`mem_core.memories.kinds.ACTIONS`."""

    __slots__ = ("version", "seq", "action", "at", "memory")

    def __init__(self, *, version: int, seq: int, action: str, at: str, memory: Memory) -> None:
        self.version = version
        self.seq = seq
        self.action = action
        self.at = at
        self.memory = memory

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "seq": self.seq,
            "action": self.action,
            "at": self.at,
            "memory": self.memory.to_json(),
        }


class HistoryResult(PlainResult):
    """Every version of one memory, oldest first (deleted ones too).
    JSON: ``{"count", "history"}``."""

    __slots__ = ("entries", "ref", "store")

    def __init__(self, entries: list[HistoryEntry], *, ref: str, store: str) -> None:
        self.entries = entries
        #: the memory as it was named
        self.ref = ref
        self.store = store

    @property
    def count(self) -> int:
        """How many versions."""
        return len(self.entries)

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.entries), "history": [e.to_json() for e in self.entries]}


class RestoreResult(PlainResult):
    """The memory after :func:`~mem_core.api.memories.restore`. JSON:
    ``{"memory", "restored", "changed"}`` (``restored``: the version brought
    back; ``changed`` false: the memory held that version's values already)."""

    __slots__ = ("memory", "version", "changed", "store")

    def __init__(self, memory: Memory, *, version: int, changed: bool, store: str) -> None:
        self.memory = memory
        self.version = version
        self.changed = changed
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "restored": self.version, "changed": self.changed}


class MindsResult(PlainResult):
    """The minds of a store, by name. JSON: ``{"count", "minds": [{"name", "count"}]}``."""

    __slots__ = ("minds", "store")

    def __init__(self, minds: list[tuple[str, int]], *, store: str) -> None:
        self.minds = minds
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.minds), "minds": [{"name": name, "count": count} for name, count in self.minds]}


class ExportResult(PlainResult):
    """What :func:`~mem_core.api.transfer.export_memories` wrote. JSON:
    ``{"exported", "forgotten", "history", "signatures", "file"}``; ``text``
    is the export itself."""

    __slots__ = ("text", "memories", "forgotten", "history", "signatures", "file", "store", "location")

    def __init__(self, *, text: str, memories: int, forgotten: int, history: int, signatures: int, file: str | None,
                 store: str, location: str | None) -> None:  # fmt: skip
        self.text = text
        self.memories = memories
        self.forgotten = forgotten
        self.history = history
        self.signatures = signatures
        self.file = file
        self.store = store
        self.location = location

    def to_json(self) -> dict[str, Any]:
        return {
            "exported": self.memories,
            "forgotten": self.forgotten,
            "history": self.history,
            "signatures": self.signatures,
            "file": self.file,
        }


class ImportResult(PlainResult):
    """What :func:`~mem_core.api.transfer.import_memories` did. JSON:
    ``{"imported", "forgotten", "already", "different", "signatures",
    "unverified", "store", "location"}``: ``already`` — ids the store knew,
    left as they are (``different``: how many of them differ from the file);
    ``unverified`` — memories the file says are verified that read
    unverified (no signature proves them)."""

    __slots__ = ("imported", "forgotten", "already", "different", "signatures", "unverified", "store", "location",
                 "file")  # fmt: skip

    def __init__(self, *, imported: int, forgotten: int, already: int, different: int, signatures: int,
                 unverified: int, store: str, location: str | None, file: str) -> None:  # fmt: skip
        self.imported = imported
        self.forgotten = forgotten
        self.already = already
        self.different = different
        self.signatures = signatures
        self.unverified = unverified
        self.store = store
        self.location = location
        self.file = file

    def to_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "forgotten": self.forgotten,
            "already": self.already,
            "different": self.different,
            "signatures": self.signatures,
            "unverified": self.unverified,
            "store": self.store,
            "location": self.location,
        }


class MigrateResult(PlainResult):
    """What :func:`~mem_core.api.transfer.migrate_store` did. JSON:
    ``{"from", "to", "memories", "forgotten", "history", "signatures",
    "digest", "unverified", "config", "source", "target", "delete"}``
    (``delete``: what the old store is, for the person to remove when they no
    longer need it)."""

    __slots__ = ("source_backend", "target_backend", "memories", "forgotten", "history", "signatures", "digest",
                 "unverified", "config", "source", "target", "delete", "note", "store")  # fmt: skip

    def __init__(self, *, source_backend: str, target_backend: str, memories: int, forgotten: int, history: int,
                 signatures: int, digest: str, unverified: int, config: str, source: str, target: str,
                 delete: list[str], store: str, note: str | None = None) -> None:  # fmt: skip
        self.source_backend = source_backend
        self.target_backend = target_backend
        self.memories = memories
        self.forgotten = forgotten
        self.history = history
        self.signatures = signatures
        self.digest = digest
        self.unverified = unverified
        self.config = config
        self.source = source
        self.target = target
        self.delete = delete
        self.store = store
        self.note = note

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "from": self.source_backend,
            "to": self.target_backend,
            "memories": self.memories,
            "forgotten": self.forgotten,
            "history": self.history,
            "signatures": self.signatures,
            "digest": self.digest,
            "unverified": self.unverified,
            "config": self.config,
            "source": self.source,
            "target": self.target,
            "delete": list(self.delete),
        }
        if self.note:
            data["note"] = self.note
        return data
