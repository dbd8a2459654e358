"""Structured memories: the public API behind ``mem remember``, ``mem memories``,
``mem forget``, ``mem verify`` and ``mem context`` (structured-memory.md).

Every function takes plain values (option text as given), validates them with
an exact one-line message (``MemError``) *before* any store is opened, applies
the trust rules, asks the :class:`~mem_core.plugin.MemoryStore` backend
:func:`mem_core.memories.backend.choose_store` picks (the ``store`` setting,
else the store already there, else ``sqlite``) and returns a pydantic result
whose ``to_json()`` is the command's JSON output.

Stores: the project store lives in ``<project>/.bmad/memory/``; the user-level
store (``user=True``) in the ``user_dir`` setting (``$MEM_USER_DIR``) or
platformdirs' user data directory, for memories about the person that hold
across projects. A mind not named is the ``default_mind`` setting's.

Trust: what is stored without ``as_user`` is ``source:"agent"``, unverified,
confidence 0.7 by default. Storing ``as_user`` (``source:"user"``, confidence
1.0) and :func:`verify` need a human (:func:`mem_core.humans.proof.require_human`):
a signature by a trusted human key — ``signer=HumanKey.load(name, passphrase)``,
or the passphrase typed on the terminal device — or, where no key is trusted,
a ``yes`` typed there (recorded as ``terminal``). ``verified``, ``source`` and
``verification`` of every memory returned are computed from its signatures
(:mod:`mem_core.memories.trust`); no argument, column or file sets them.
An agent's change to a memory a human stated is refused (:func:`stated_by_human`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mem_core.clock import now_iso
from mem_core.errors import MemError as MemError
from mem_core.humans.proof import NO_HUMAN
from mem_core.memories import core
from mem_core.memories.core import (
    _MARKS,
    AGENT_CONFIDENCE,
    CONTENT_MAX_BYTES,
    KEY_MAX,
    MIND_MAX,
    TAG_MAX,
    TAGS_MAX,
    USER_CONFIDENCE,
    _describe,
    _existing_memory,
    _not_found,
    _project_of,
    _signature_for,
    _store_name,
    _target,
    _unchanged_since_asked,
    memory_json,
    parse_duration,
    parse_expires,
    parse_mind,
    parse_ref,
    summary_block,
    summary_head,
    summary_json,
    summary_text,
)

# what the API offered before the operations moved to mem_core.memories.core
from mem_core.memories.core import CHANGED_WHILE_ASKING as CHANGED_WHILE_ASKING
from mem_core.memories.core import MAX_MS as MAX_MS
from mem_core.memories.core import _find as _find
from mem_core.memories.core import _iso as _iso
from mem_core.memories.core import _limit as _limit
from mem_core.memories.core import _new_id as _new_id
from mem_core.memories.core import _shown as _shown
from mem_core.memories.core import parse_category as parse_category
from mem_core.memories.core import parse_confidence as parse_confidence
from mem_core.memories.core import parse_content as parse_content
from mem_core.memories.core import parse_key as parse_key
from mem_core.memories.core import parse_priority as parse_priority
from mem_core.memories.core import parse_search as parse_search
from mem_core.memories.core import parse_source as parse_source
from mem_core.memories.core import parse_tag_filter as parse_tag_filter
from mem_core.memories.core import parse_tags as parse_tags
from mem_core.memories.core import stated_by_human as stated_by_human
from mem_core.memories.kinds import Category, Priority, Source, StoreName, Verification
from mem_core.memories.records import FIELDS
from mem_core.plain import PlainResult

if TYPE_CHECKING:
    from mem_core.humans.keys import HumanKey
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore

__all__ = [
    "Memory",
    "RememberResult",
    "MemoriesResult",
    "ForgetResult",
    "VerifyResult",
    "ContextSummary",
    "HistoryEntry",
    "HistoryResult",
    "remember",
    "list_memories",
    "search_memories",
    "expiring_memories",
    "forget",
    "verify",
    "context_summary",
    "memory_history",
    "NO_TTY",
    "parse_duration",
    "parse_expires",
    "KEY_MAX",
    "CONTENT_MAX_BYTES",
    "TAG_MAX",
    "TAGS_MAX",
    "MIND_MAX",
    "AGENT_CONFIDENCE",
    "USER_CONFIDENCE",
]


#: the refusals when no human can be proven, by action
NO_TTY = NO_HUMAN


# -- models -----------------------------------------------------------------


class Memory(PlainResult, BaseModel):
    """One structured memory, exactly the spec's fields (structured-memory.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(pattern=r"^mem_[0-9a-f]+$")
    category: Category
    key: str = Field(pattern=r"^[a-z0-9_]+$", max_length=KEY_MAX)
    content: str = Field(min_length=1)
    tags: list[str]
    priority: Priority
    source: Source
    verified: bool
    #: how ``verified`` was decided (mem_core.memories.trust)
    verification: Verification = "unsigned"
    confidence: float = Field(ge=0, le=1)
    expires_at: str | None
    mind_id: str = Field(min_length=1)
    created_at: str
    updated_at: str

    @model_validator(mode="before")
    @classmethod
    def _unjudged_reads_unverified(cls, data: Any) -> Any:
        """A record whose signatures were not checked (no ``verification``)
        reads as an agent's, unverified, whatever its columns claim."""
        if isinstance(data, dict) and "verification" not in data:
            data = {**data, "verified": False, "source": "agent", "verification": "unsigned"}
        return data

    @property
    def ref(self) -> str:
        """``<category>/<key>``: how recall and the CLI name it."""
        return f"{self.category}/{self.key}"

    def expired(self, now: str) -> bool:
        """Whether ``now`` is at or past ``expires_at``."""
        return self.expires_at is not None and self.expires_at <= now

    def to_json(self) -> dict[str, Any]:
        """The memory as JSON, keys in the spec's order."""
        return memory_json({name: getattr(self, name) for name in (*FIELDS, "verification")})

    @property
    def mark(self) -> str:
        """The trust mark text shows: ``verified``, ``verified (terminal)``,
        ``unverified`` or ``unverified (signature invalid)``."""
        return _MARKS[self.verification]


class RememberResult(PlainResult, BaseModel):
    """What :func:`remember` did. JSON: ``{"memory", "created"}``."""

    memory: Memory
    #: a new (mind, category, key)
    created: bool
    #: false when an update would not change anything (nothing was written)
    changed: bool
    store: StoreName

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "created": self.created}


class MemoriesResult(PlainResult, BaseModel):
    """The memories a listing, search or expiring query found.
    JSON: ``{"count", "memories"}``."""

    memories: list[Memory]
    mind: str
    store: StoreName
    now: str
    #: the ``--search`` text, if any
    search: str | None = None
    #: the ``--expiring`` window as given (``7d``), if any
    expiring: str | None = None
    #: with a ``limit``: how many matched before it was applied (``None``: no limit given)
    total: int | None = None

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


class ForgetResult(PlainResult, BaseModel):
    """The memory :func:`forget` removed. JSON: ``{"forgotten"}``."""

    memory: Memory
    store: StoreName

    def to_json(self) -> dict[str, Any]:
        return {"forgotten": self.memory.to_json()}


class VerifyResult(PlainResult, BaseModel):
    """The memory after :func:`verify`. JSON: ``{"memory", "changed"}``
    (``changed`` false: it was verified already)."""

    memory: Memory
    changed: bool
    store: StoreName

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "changed": self.changed}


class ContextSummary(PlainResult, BaseModel):
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

    mind: str
    total: int
    verified: int
    unverified: int
    memories: list[Memory]
    store: StoreName
    #: blocks left out to keep within ``budget``
    omitted: int = 0
    budget: int | None = None
    #: the text as the budget cut it (``None``: nothing was cut)
    fitted: str | None = None

    def head_lines(self) -> list[str]:
        return summary_head(self.mind, self.total, self.verified, self.unverified)

    @staticmethod
    def block(number: int, memory: Memory) -> str:
        """The text of one memory's block, after the blank line that precedes it."""
        return summary_block(number, memory)

    @property
    def text(self) -> str:
        if self.fitted is not None:
            return self.fitted
        return summary_text(self.mind, self.total, self.verified, self.unverified, self.memories)

    def to_json(self) -> dict[str, Any]:
        return summary_json(self)


class HistoryEntry(PlainResult, BaseModel):
    """One recorded version of a memory: ``version`` counts them from 1 (what
    ``mem memories restore`` takes), ``seq`` is the store's own order."""

    version: int = 0
    seq: int
    action: Literal["create", "update", "verify", "restore", "delete"]
    at: str
    memory: Memory

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "seq": self.seq,
            "action": self.action,
            "at": self.at,
            "memory": self.memory.to_json(),
        }


class HistoryResult(PlainResult, BaseModel):
    """Every version of one memory, oldest first (deleted ones too).
    JSON: ``{"count", "history"}``."""

    entries: list[HistoryEntry]
    #: the memory as it was named
    ref: str = ""
    store: StoreName = "project"

    @property
    def count(self) -> int:
        """How many versions."""
        return len(self.entries)

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.entries), "history": [e.to_json() for e in self.entries]}


# -- human presence -----------------------------------------------------------


def require_human(
    action: str,
    question: str,
    *,
    directory: str | None,
    kernel: Kernel | None,
    signer: HumanKey | None,
    human: str | None,
    interactive: bool,
) -> Any:
    """The one "is a human present?" decision for ``remember --as-user``,
    ``verify`` and ``forget`` (see :func:`mem_core.humans.proof.require_human`);
    returns the :class:`~mem_core.humans.proof.Proof`."""
    from mem_core.humans.proof import require_human as prove

    return prove(
        action,
        question,
        project=_project_of(directory, kernel),
        signer=signer,
        human=human,
        interactive=interactive,
    )


def _judge(store: MemoryStore, records: list[dict[str, Any]], directory: str | None, kernel: Kernel | None,
           judge: Any = None) -> list[Memory]:  # fmt: skip
    """``records`` as memories whose trust fields their signatures decide."""
    return [Memory.model_validate(r) for r in core.judge(store, records, _project_of(directory, kernel), judge)]


def _memory(view: core.MemoryView) -> Memory:
    return Memory.model_validate(view.record)


# -- the API ----------------------------------------------------------------


def remember(
    category: str,
    key: str,
    content: str,
    *,
    tags: list[str] | str | None = None,
    priority: str | None = None,
    confidence: str | float | None = None,
    expires: str | None = None,
    no_tags: bool = False,
    no_expiry: bool = False,
    mind: str | None = None,
    user: bool = False,
    as_user: bool = False,
    signer: HumanKey | None = None,
    human: str | None = None,
    interactive: bool = True,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> RememberResult:
    """Store a memory, or update the one with the same (mind, category, key).

    An update replaces the content and bumps ``updated_at``; tags, priority,
    confidence and ``expires_at`` change only when given (``tags`` replaces
    the set; ``no_tags`` and ``no_expiry`` clear them), what is not given
    keeps its value, and the previous value stays in the history. An update
    that changes nothing writes nothing (``changed`` false). An agent's
    update of a memory a human stated (``source:"user"``, as its signatures
    or its columns say) is refused; one that changes an agent memory drops
    its signatures, so a verified memory reads unverified again.

    ``as_user`` stores ``source:"user"`` and the human's signature over it:
    ``signer`` (an unlocked trusted :class:`~mem_core.humans.keys.HumanKey`),
    else the passphrase of the trusted key ``human`` (or the one trusted key
    on this machine) typed on the terminal, else — no key trusted — a ``yes``
    typed there; ``interactive=False`` never asks.
    """
    done = core.remember_plain(
        category, key, content, tags=tags, priority=priority, confidence=confidence, expires=expires,
        no_tags=no_tags, no_expiry=no_expiry, mind=mind, user=user, as_user=as_user, signer=signer, human=human,
        interactive=interactive, directory=directory, now=now, kernel=kernel,
    )  # fmt: skip
    return RememberResult(
        memory=_memory(done.memory), created=done.created, changed=done.changed, store=_store_name(user)
    )


def list_memories(
    *,
    category: str | None = None,
    tag: str | None = None,
    search: str | None = None,
    expiring: str | None = None,
    include_expired: bool = False,
    source: str | None = None,
    priority: str | None = None,
    verified: bool | None = None,
    mind: str | None = None,
    user: bool = False,
    limit: str | int | None = None,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> MemoriesResult:
    """List a mind's memories, filtered; with ``search``, full-text search
    (every word, ranked by relevance); with ``expiring`` (a duration), those
    whose ``expires_at`` falls before now + that window, soonest first —
    the ones already expired included. Expired memories are otherwise left
    out unless ``include_expired``."""
    found = core.list_plain(
        category=category, tag=tag, search=search, expiring=expiring, include_expired=include_expired,
        source=source, priority=priority, verified=verified, mind=mind, user=user, limit=limit,
        directory=directory, now=now, kernel=kernel,
    )  # fmt: skip
    return MemoriesResult(
        memories=[_memory(m) for m in found.memories],
        mind=found.mind,
        store=_store_name(user),
        now=found.now,
        search=search,
        expiring=expiring,
        total=found.total,
    )


def search_memories(text: str, **options: Any) -> MemoriesResult:
    """Full-text search (see :func:`list_memories`, whose options it takes)."""
    return list_memories(search=text, **options)


def expiring_memories(within: str, **options: Any) -> MemoriesResult:
    """Memories expiring within ``within`` (``7d``), expired ones included."""
    return list_memories(expiring=within, **options)


def forget(
    ref: str,
    *,
    mind: str | None = None,
    user: bool = False,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
    signer: HumanKey | None = None,
    human: str | None = None,
    interactive: bool = True,
) -> ForgetResult:
    """Delete a memory (by id, or ``<category>/<key>`` in ``mind``); the
    history keeps a tombstone with its last value.

    An agent may forget what agents stored; a memory a human confirmed
    (verified, or ``source:"user"``, as its signatures or its columns say) is
    forgotten only with a human present (see :func:`remember`), so that an
    agent cannot quietly undo what the user said."""
    now = now or now_iso()
    with _existing_memory(ref, mind, user, directory, kernel) as (store, record, mind_id):
        memory = _judge(store, [record], directory, kernel)[0]
        if memory.verified or memory.source == "user" or record["verified"] or record["source"] == "user":
            question = "mem forget: delete this memory a human confirmed?\n" + _describe(
                record, record["mind_id"], user
            )
            require_human(
                "forget", question, directory=directory, kernel=kernel, signer=signer, human=human,
                interactive=interactive,
            )  # fmt: skip
        with store.transaction():
            _unchanged_since_asked(store, record, ref, mind_id, user)
            store.delete(record["id"], at=now)
            store.drop_signatures(record["id"])
    return ForgetResult(memory=memory, store=_store_name(user))


def verify(
    ref: str,
    *,
    mind: str | None = None,
    user: bool = False,
    signer: HumanKey | None = None,
    human: str | None = None,
    interactive: bool = True,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> VerifyResult:
    """Sign a memory as true, by a human (see :func:`remember` for how the
    human is proven: ``signer``, a passphrase typed on the terminal, or
    ``yes`` there where no key is trusted). Its source, confidence and
    ``updated_at`` are kept; the history records the verification. Verifying
    a memory that reads verified changes nothing."""
    now = now or now_iso()
    with _existing_memory(ref, mind, user, directory, kernel) as (store, record, mind_id):
        memory = _judge(store, [record], directory, kernel)[0]
        if memory.verified:
            return VerifyResult(memory=memory, changed=False, store=_store_name(user))
        question = "mem verify: confirm that this memory is true (verified)?\n" + _describe(
            record, record["mind_id"], user
        )
        proof = require_human(
            "verify", question, directory=directory, kernel=kernel, signer=signer, human=human,
            interactive=interactive,
        )  # fmt: skip
        with store.transaction():
            _unchanged_since_asked(store, record, ref, mind_id, user)
            record = {**record, "verified": True}
            store.update(record, action="verify", at=now)
            store.add_signature(_signature_for(proof, record, now))
        memory = _judge(store, [record], directory, kernel)[0]
    return VerifyResult(memory=memory, changed=True, store=_store_name(user))


def context_summary(
    *,
    mind: str | None = None,
    user: bool = False,
    limit: str | int | None = None,
    budget: str | int | None = None,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> ContextSummary:
    """The context summary of a mind (see :class:`ContextSummary`); ``limit``
    caps the blocks shown, not the counts; ``budget`` (tokens, default the
    ``context_budget`` setting) bounds the text: the blocks past it are
    counted, not shown."""
    summary = core.context_plain(
        mind=mind, user=user, limit=limit, budget=budget, directory=directory, now=now, kernel=kernel
    )
    return ContextSummary(
        mind=summary.mind,
        total=summary.total,
        verified=summary.verified,
        unverified=summary.unverified,
        memories=[_memory(m) for m in summary.memories],
        store=_store_name(user),
        omitted=summary.omitted,
        budget=summary.budget,
        fitted=summary.fitted,
    )


def memory_history(
    ref: str,
    *,
    mind: str | None = None,
    user: bool = False,
    directory: str | None = None,
    kernel: Kernel | None = None,
) -> HistoryResult:
    """Every recorded version of a memory, oldest first. ``<category>/<key>``
    names the memory that has that key now; name a forgotten one by its id."""
    memory_id, category, key = parse_ref(ref)
    parse_mind(mind)
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    entries: list[dict[str, Any]] = []
    versions: list[Memory] = []
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            if memory_id is None:
                found = store.get_by_key(mind_id, category or "", key or "")
                memory_id = found["id"] if found else None
            if memory_id is not None:
                entries = store.history(memory_id)
                # each version as the memory's signatures now judge it; a signature
                # over another version's content says nothing against this one
                versions = [
                    m.model_copy(update={"verification": "unsigned"}) if m.verification == "signature-invalid" else m
                    for m in _judge(store, [e["memory"] for e in entries], directory, kernel)
                ]
    if not entries:
        raise _not_found(ref, mind_id, user)
    return HistoryResult(
        entries=[
            HistoryEntry(version=number, seq=e["seq"], action=e["action"], at=e["at"], memory=memory)
            for number, (e, memory) in enumerate(zip(entries, versions, strict=True), 1)
        ],
        ref=ref,
        store=_store_name(user),
    )
