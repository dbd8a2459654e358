"""The structured-memory service: ``remember``, ``list_memories`` (search,
expiring), ``forget``, ``verify``, ``context_summary``, ``memory_history``,
``restore`` and ``list_minds`` (structured-memory.md).

Every function takes plain values (option text as given, or Python values),
validates them (:mod:`mem_core.memories.validate`: an exact one-line
``MemError`` before any store is opened), applies the trust rules, asks the
:class:`~mem_core.plugin.MemoryStore` backend that
:func:`mem_core.api.backend.choose_store` picks (the ``store`` setting,
else the store already there, else ``sqlite``), and returns a result of
:mod:`mem_core.memories.results` whose ``to_json()`` is the command's JSON
output. Without a kernel, one is built (:func:`resolve_target`); with only
the default plugins it builds no plugin manager, so ``mem remember``,
``memories`` and ``context`` start in about the time of the five actions.

Stores: the project store lives in ``<project>/.bmad/memory/``; the user-level
store (``user=True``) in the ``user_dir`` setting (``$MEM_USER_DIR``) or
platformdirs' user data directory, for memories about the person that hold
across projects. A mind not named is the ``default_mind`` setting's.

Trust: what is stored without ``as_user`` is ``source:"agent"``, unverified,
confidence 0.7 by default. Storing ``as_user`` (``source:"user"``, confidence
1.0) and :func:`verify` need a human (:func:`require_human`): a signature by a
trusted human key — ``signer=HumanKey.load(name, passphrase)``, or the
passphrase typed on the terminal device — or, where no key is trusted, a
``yes`` typed there (recorded as ``terminal``). ``verified``, ``source`` and
``verification`` of every memory returned are computed from its signatures
(:mod:`mem_core.memories.trust`); no argument, column or file sets them. An
agent's change to a memory a human stated is refused (:func:`stated_by_human`).

``context`` and ``memories --limit`` let the store order, filter, count and
cut (SQL for the built-in backends): ``context`` reads the memories it shows
one by one, as many as its token budget can hold, and counts the others in
the store; signatures are read and checked for the memories shown (and, for
the verified count, for the memories that have signature rows at all).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.memories.records import MemoryFilter, project_store_dir
from mem_core.memories.results import (
    ContextSummary,
    ForgetResult,
    HistoryEntry,
    HistoryResult,
    MemoriesResult,
    Memory,
    MindsResult,
    RememberResult,
    RestoreResult,
    VerifyResult,
)
from mem_core.memories.validate import (
    MAX_MS,
    is_memory_id,
    iso_timestamp,
    parse_category,
    parse_confidence,
    parse_content,
    parse_duration,
    parse_expires,
    parse_key,
    parse_limit,
    parse_mind,
    parse_priority,
    parse_ref,
    parse_search,
    parse_source,
    parse_tag_filter,
    parse_tags,
    parse_version,
)
from mem_core.textsafe import escape as _escape

if TYPE_CHECKING:
    from typing import Any

    from mem_core.humans.keys import HumanKey
    from mem_core.humans.proof import Proof
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.settings import Settings

__all__ = [
    "remember",
    "list_memories",
    "search_memories",
    "expiring_memories",
    "forget",
    "verify",
    "context_summary",
    "memory_history",
    "restore",
    "list_minds",
    "require_human",
    "stated_by_human",
    "resolve_target",
    "Target",
    "judge",
    "AGENT_CONFIDENCE",
    "USER_CONFIDENCE",
    "CHANGED_WHILE_ASKING",
    "RESTORED",
]

AGENT_CONFIDENCE = 0.7
USER_CONFIDENCE = 1.0
#: the refusal of a change made while a human was being asked
CHANGED_WHILE_ASKING = "The memory changed while waiting for confirmation; nothing was changed."
#: the fields a restore brings back from a version
RESTORED = ("content", "tags", "priority", "confidence", "expires_at")


# -- signatures and humans ------------------------------------------------------


def judge(store: MemoryStore, records: list[dict[str, Any]], project: str | None, judge: Any = None,
          signatures: Any = None) -> list[dict[str, Any]]:  # fmt: skip
    """``records`` with the trust fields their signatures decide (new dicts;
    see :func:`mem_core.memories.trust.judge_records`). Records without a
    signature row read unsigned with nothing more imported or read."""
    if not records:
        return []
    if signatures is None:
        signatures = store.signatures_of([r["id"] for r in records])
    if judge is None and not any(signatures.values()):
        return [{**r, "verified": False, "source": "agent", "verification": "unsigned"} for r in records]
    from mem_core.memories.trust import judge_records

    return judge_records(records, store, project, judge, signatures=signatures)


def _judged(store: MemoryStore, record: dict[str, Any], project: str) -> Memory:
    return Memory(judge(store, [record], project)[0])


def _signature_for(proof: Proof, memory: dict[str, Any], at: str) -> dict[str, Any]:
    from mem_core.memories.trust import sign, terminal_signature

    if proof.signer is not None:
        return sign(memory, proof.signer, at)
    return terminal_signature(memory, at)


def require_human(action: str, question: str, *, project: str, signer: HumanKey | None, human: str | None,
                  interactive: bool) -> Proof:  # fmt: skip
    """The one "is a human present?" decision for ``remember --as-user``,
    ``verify`` and ``forget`` (see :func:`mem_core.humans.proof.require_human`)."""
    from mem_core.humans.proof import require_human as prove

    return prove(action, question, project=project, signer=signer, human=human, interactive=interactive)


def stated_by_human(record: dict[str, Any]) -> str:
    """The refusal of an agent's change to a memory a human stated."""
    return f"{record['category']}/{record['key']} was stated by a human; only a human can change it"


# -- where a call works ------------------------------------------------------------


class Target:
    """Where one call works: the settings of its project, the backend, the
    store's directory, the mind (``mind``, else the ``default_mind``
    setting), whether it is the user-level store, and the kernel, if one was
    given or had to be built."""

    __slots__ = ("settings", "backend", "directory", "mind_id", "user", "kernel")

    def __init__(self, settings: Settings, backend: type[MemoryStore], directory: str, mind_id: str, user: bool,
                 kernel: Kernel | None) -> None:  # fmt: skip
        self.settings = settings
        self.backend = backend
        self.directory = directory
        self.mind_id = mind_id
        self.user = user
        self.kernel = kernel

    @property
    def project(self) -> str:
        return self.settings.project

    @property
    def store(self) -> str:
        """``project`` or ``user`` (:data:`mem_core.memories.kinds.STORES`)."""
        return store_name(self.user)

    def not_found(self, ref: str) -> MemError:
        """The refusal of a memory ``ref`` that is not in this store."""
        where = f"the {self.store} store"
        if is_memory_id(ref):
            return MemError(f"No memory {ref} in {where}.")
        return MemError(f"No memory {ref} in mind {self.mind_id} of {where}.")

    def check_mind(self, store: MemoryStore | None, mind: str | None) -> None:
        """For a reading command given ``--mind``: refuse a mind that holds no
        memory (a mistyped ``--mind`` is an error, not an empty answer); the
        default mind always exists."""
        if mind is None or self.mind_id == self.settings.default_mind:
            return
        minds = store.minds() if store is not None else []
        if any(name == self.mind_id for name, _ in minds):
            return
        known = ", ".join(_escape(name) for name, _ in minds) if minds else "none yet"
        raise MemError(f"no mind '{_escape(self.mind_id)}' in the {self.store} store (minds: {known})")


def describe(record: dict[str, Any], store: str) -> str:
    """The memory as a confirmation question shows it: in full, every line
    indented, every invisible character escaped, so that what a human
    confirms is what is stored."""
    from mem_core.textsafe import escape_block

    content = "\n".join(f"  {line}" for line in escape_block(record["content"]))
    return f"  {record['category']}/{record['key']} (mind {_escape(record['mind_id'])}, {store} store)\n{content}"


def store_name(user: bool) -> str:
    """``user`` for the user-level store, else ``project``."""
    return "user" if user else "project"


def resolve_target(
    kernel: Kernel | None, user: bool, directory: str | None, mind: str | None, kernel_settings: Settings | None = None
) -> Target:
    """The :class:`Target` of one call: the backend
    :func:`~mem_core.api.backend.choose_store` picks from the kernel's
    store registry. Without a kernel, one is built from ``kernel_settings``
    (the command line gives the working directory's), else from the
    project's settings; with only the default plugins, it builds no plugin
    manager."""
    from mem_core.api.backend import choose_store
    from mem_core.kernel import project_settings

    parse_mind(mind)
    settings = project_settings(directory, kernel)
    directory_path = settings.user_store_dir() if user else project_store_dir(settings.project)
    if kernel is None:
        from mem_core.kernel import Kernel

        kernel = Kernel(settings=kernel_settings or settings)
    backend = choose_store(settings, kernel.stores, directory_path, user=user)
    mind_id = parse_mind(mind if mind is not None else settings.default_mind)
    return Target(settings, backend, directory_path, mind_id, user, kernel)


def _new_id(store: MemoryStore) -> str:
    while True:
        memory_id = "mem_" + os.urandom(8).hex()  # (``secrets`` costs 6 ms of imports for the same)
        if not store.id_known(memory_id):
            return memory_id


@contextmanager
def _existing_memory(ref: str, target: Target) -> Iterator[tuple[MemoryStore, dict[str, Any]]]:
    """The open store and the memory ``ref`` names in it, or the "No memory …" refusal."""
    memory_id, category, key = parse_ref(ref)
    if not target.backend.exists(target.directory):
        raise target.not_found(ref)
    with target.backend.open(target.directory, create=False) as store:
        if memory_id is not None:
            record = store.get(memory_id)
        else:
            record = store.get_by_key(target.mind_id, category or "", key or "")
        if record is None:
            raise target.not_found(ref)
        yield store, record


def _unchanged_since_asked(store: MemoryStore, record: dict[str, Any], ref: str, target: Target) -> None:
    """Inside the write transaction, after a human was asked about ``record``:
    refuse if the memory went away or changed meanwhile."""
    current = store.get(record["id"])
    if current is None:
        raise target.not_found(ref)
    if current != record:
        raise MemError(CHANGED_WHILE_ASKING)


def _refresh_brief(target: Target) -> None:
    """After a change to the project store: the brief, if its file exists (never fails)."""
    if not target.user:
        from mem_core.api.refresh import refresh_brief

        refresh_brief(target.project, target.kernel)


# -- the operations -------------------------------------------------------------


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
    kernel_settings: Settings | None = None,
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
    now = now or now_iso()
    category = parse_category(category)
    key = parse_key(key)
    content = parse_content(content)
    if no_tags and tags is not None:
        raise MemError("--tag and --no-tags cannot be used together")
    if no_expiry and expires is not None:
        raise MemError("--expires and --no-expiry cannot be used together")
    tag_list = [] if no_tags else parse_tags(tags) if tags is not None else None
    level = parse_priority(priority, default=None)
    explicit_confidence = parse_confidence(confidence)
    expires_at = parse_expires(expires, now)
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    mind_id, project = target.mind_id, target.project
    signature: dict[str, Any] | None = None
    if as_user:
        question = "mem remember: store this memory as said by you, the user (source user, verified)?\n"
        question += describe({"category": category, "key": key, "content": content, "mind_id": mind_id}, target.store)
        proof = require_human("remember", question, project=project, signer=signer, human=human,
                              interactive=interactive)  # fmt: skip
        # the signature covers mind, category, key and content: made before the id is known
        signature = _signature_for(proof, {"id": "", "category": category, "key": key, "content": content,
                                           "mind_id": mind_id}, now)  # fmt: skip
    source = "user" if as_user else "agent"
    given: dict[str, Any] = {"content": content}
    if tag_list is not None:
        given["tags"] = tag_list
    if level is not None:
        given["priority"] = level
    if expires_at is not None or no_expiry:
        given["expires_at"] = expires_at
    with target.backend.open(target.directory, create=True) as store:
        with store.transaction():
            old = store.get_by_key(mind_id, category, key)
            if old is None:
                conf = explicit_confidence
                if conf is None:
                    conf = USER_CONFIDENCE if as_user else AGENT_CONFIDENCE
                record = {
                    "id": _new_id(store),
                    "category": category,
                    "key": key,
                    "content": content,
                    "tags": tag_list or [],
                    "priority": level or "normal",
                    "source": source,
                    "verified": as_user,
                    "confidence": conf,
                    "expires_at": expires_at,
                    "mind_id": mind_id,
                    "created_at": now,
                    "updated_at": now,
                }
                store.insert(record, at=now)
                created = changed = True
            else:
                judged = judge(store, [old], project)[0]
                conf = explicit_confidence
                if conf is None:
                    # a memory a human now states takes the human's default, unless it was theirs already
                    conf = USER_CONFIDENCE if as_user and old["source"] != "user" else old["confidence"]
                given["confidence"] = conf
                same = all(old[name] == value for name, value in given.items())
                if as_user:
                    same = same and old["source"] == "user" and judged["verified"]
                created = False
                changed = not same
                record = old
                if changed and not as_user and (old["source"] == "user" or judged["source"] == "user"):
                    raise MemError(stated_by_human(old))
                if changed:
                    record = {**old, **given, "source": source, "verified": as_user, "updated_at": now}
                    store.update(record, action="update", at=now)
                    store.drop_signatures(old["id"])
            if changed and signature is not None:
                store.add_signature({**signature, "memory_id": record["id"]})
        memory = _judged(store, record, project)
    if changed:
        _refresh_brief(target)
    return RememberResult(memory, created=created, changed=changed, store=target.store)


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
    kernel_settings: Settings | None = None,
) -> MemoriesResult:
    """List a mind's memories, filtered; with ``search``, full-text search
    (any of the words, ranked by relevance); with ``expiring`` (a duration),
    those whose ``expires_at`` falls before now + that window, soonest first
    — the ones already expired included. Expired memories are otherwise left
    out unless ``include_expired``.

    A listing or a search with a ``limit`` and no filter on what the
    signatures say is cut and counted by the store: only the memories shown
    are read and judged."""
    now = now or now_iso()
    category = parse_category(category) if category is not None else None
    tag_name = parse_tag_filter(tag)
    words = parse_search(search) if search is not None else None
    expires_before = None
    if expiring is not None:
        now_ms = parse_ms(now)
        assert now_ms is not None
        expires_before = iso_timestamp(min(now_ms + parse_duration(expiring), MAX_MS), "--expiring")
        include_expired = True
    source = parse_source(source)
    level = parse_priority(priority, default=None)
    parse_mind(mind)
    count = parse_limit(limit)
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    # source and verified are what the signatures say, not the columns: those
    # filters apply after the signatures are checked
    judged_filter = source is not None or verified is not None
    where = MemoryFilter(
        now=now,
        mind_id=target.mind_id,
        category=category,
        tag=tag_name,
        priority=level,
        include_expired=include_expired,
        expires_before=expires_before,
        # the store cuts (and counts) unless a filter on what the signatures say comes after it
        limit=count if not judged_filter else None,
    )
    records: list[dict[str, Any]] = []
    total = None if count is None else 0
    if target.backend.exists(target.directory):
        with target.backend.open_read_only(target.directory) as store, store.reading():
            target.check_mind(store, mind)
            found = store.search(words, where) if words is not None else store.query(where)
            records = judge(store, found, target.project)
            if where.limit is not None:
                total = store.search_count(words, where) if words is not None else store.count(where)
    else:
        target.check_mind(None, mind)
    if judged_filter:
        records = [
            r for r in records
            if (source is None or r["source"] == source) and (verified is None or r["verified"] is verified)
        ]  # fmt: skip
    if count is not None and where.limit is None:
        total = len(records)
    return MemoriesResult([Memory(r) for r in records[:count]], mind=target.mind_id, store=target.store, now=now,
                          search=search, expiring=expiring, total=total)  # fmt: skip


def search_memories(text: str, **options: Any) -> MemoriesResult:
    """Full-text search (see :func:`list_memories`, whose options it takes)."""
    return list_memories(search=text, **options)


def expiring_memories(within: str, **options: Any) -> MemoriesResult:
    """Memories expiring within ``within`` (``7d``), expired ones included."""
    return list_memories(expiring=within, **options)


def context_summary(
    *,
    mind: str | None = None,
    user: bool = False,
    limit: str | int | None = None,
    budget: str | int | None = None,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
    kernel_settings: Settings | None = None,
) -> ContextSummary:
    """The context summary of a mind (see :class:`~mem_core.memories.results.ContextSummary`);
    ``limit`` caps the blocks shown, not the counts; ``budget`` (tokens,
    default the ``context_budget`` setting) bounds the text: the blocks past
    it are counted, not shown.

    Read as the summary needs it: the store counts the memories; those with
    signature rows are judged for the verified count; the blocks are read in
    order, one at a time, only as far as the budget can reach."""
    from mem_core.brief.budget import parse_budget
    from mem_core.memories.summary import fit_summary

    now = now or now_iso()
    parse_mind(mind)
    count = parse_limit(limit)
    tokens = parse_budget(budget) if budget is not None else None
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    mind_id = target.mind_id
    if tokens is None:
        tokens = target.settings.context_budget
    if not target.backend.exists(target.directory):
        target.check_mind(None, mind)
        return fit_summary(mind_id, 0, 0, iter(()), 0, target.store, tokens)
    with target.backend.open_read_only(target.directory) as store, store.reading():
        target.check_mind(store, mind)
        where = MemoryFilter(now=now, mind_id=mind_id)
        total = store.count(where)
        signed = {r["id"]: r for r in judge(store, store.signed(where), target.project)}
        verified = sum(1 for r in signed.values() if r["verified"])
        shown = total if count is None else min(count, total)
        where.limit = shown

        def memories() -> Generator[Memory, None, None]:
            for record in store.iter_query(where):
                judged = signed.get(record["id"])
                if judged is None:  # no signature row: unsigned, nothing to read
                    judged = judge(store, [record], target.project, signatures={})[0]
                yield Memory(judged)

        blocks = memories()
        try:
            return fit_summary(mind_id, total, verified, blocks, shown, target.store, tokens)
        finally:
            blocks.close()


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
    parse_ref(ref)
    target = resolve_target(kernel, user, directory, mind)
    with _existing_memory(ref, target) as (store, record):
        memory = _judged(store, record, target.project)
        if memory.verified or memory.source == "user" or record["verified"] or record["source"] == "user":
            question = "mem forget: delete this memory a human confirmed?\n" + describe(record, target.store)
            require_human("forget", question, project=target.project, signer=signer, human=human,
                          interactive=interactive)  # fmt: skip
        with store.transaction():
            _unchanged_since_asked(store, record, ref, target)
            store.delete(record["id"], at=now)
            store.drop_signatures(record["id"])
    return ForgetResult(memory, store=target.store)


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
    parse_ref(ref)
    target = resolve_target(kernel, user, directory, mind)
    with _existing_memory(ref, target) as (store, record):
        memory = _judged(store, record, target.project)
        if memory.verified:
            return VerifyResult(memory, changed=False, store=target.store)
        question = "mem verify: confirm that this memory is true (verified)?\n" + describe(record, target.store)
        proof = require_human("verify", question, project=target.project, signer=signer, human=human,
                              interactive=interactive)  # fmt: skip
        with store.transaction():
            _unchanged_since_asked(store, record, ref, target)
            record = {**record, "verified": True}
            store.update(record, action="verify", at=now)
            store.add_signature(_signature_for(proof, record, now))
        memory = _judged(store, record, target.project)
    return VerifyResult(memory, changed=True, store=target.store)


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
    target = resolve_target(kernel, user, directory, mind)
    entries: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    if target.backend.exists(target.directory):
        with target.backend.open_read_only(target.directory) as store:
            if memory_id is None:
                found = store.get_by_key(target.mind_id, category or "", key or "")
                memory_id = found["id"] if found else None
            if memory_id is not None:
                entries = store.history(memory_id)
                # each version as the memory's signatures now judge it; a signature
                # over another version's content says nothing against this one
                versions = [
                    {**r, "verification": "unsigned"} if r["verification"] == "signature-invalid" else r
                    for r in judge(store, [e["memory"] for e in entries], target.project)
                ]
    if not entries:
        raise target.not_found(ref)
    return HistoryResult(
        [
            HistoryEntry(version=number, seq=e["seq"], action=e["action"], at=e["at"], memory=Memory(version))
            for number, (e, version) in enumerate(zip(entries, versions, strict=True), 1)
        ],
        ref=ref,
        store=target.store,
    )


def restore(
    ref: str,
    version: str | int,
    *,
    mind: str | None = None,
    user: bool = False,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> RestoreResult:
    """Bring back version ``version`` (1 = its first, see
    :func:`memory_history`) of a memory: its content, tags, priority,
    confidence and expiry become the memory's again, stored by an agent
    (``source:"agent"``, unverified), ``updated_at`` now, and the history
    records a ``restore``. A forgotten memory (named by its id) comes back
    under its id, if its key is free. A memory a human stated, or a version a
    human stated, is refused: only a human can change it."""
    now = now or now_iso()
    memory_id, category, key = parse_ref(ref)
    target = resolve_target(kernel, user, directory, mind)
    if not target.backend.exists(target.directory):
        raise target.not_found(ref)
    with target.backend.open(target.directory, create=False) as store, store.transaction():
        if memory_id is None:
            found = store.get_by_key(target.mind_id, category or "", key or "")
            memory_id = found["id"] if found else None
        entries = store.history(memory_id) if memory_id is not None else []
        if memory_id is None or not entries:
            raise target.not_found(ref)
        number = parse_version(version, len(entries))
        chosen = entries[number - 1]["memory"]
        current = store.get(memory_id)
        base = current if current is not None else entries[-1]["memory"]
        for stated in (base, chosen):
            if stated["source"] == "user":
                raise MemError(stated_by_human(stated))
        if current is not None and _judged(store, current, target.project).source == "user":
            raise MemError(stated_by_human(current))  # what its signatures say, whatever the column
        if current is None:
            holder = store.get_by_key(base["mind_id"], base["category"], base["key"])
            if holder is not None:
                raise MemError(
                    f"{base['category']}/{base['key']} is held by another memory now ({holder['id']}); "
                    "forget it first to bring this one back"
                )
        record = {**base, **{name: chosen[name] for name in RESTORED}, "source": "agent", "verified": False}
        record["confidence"] = float(record["confidence"])
        changed = current is None or any(current[name] != record[name] for name in record if name != "updated_at")
        if changed:
            record["updated_at"] = now
            if current is None:
                store.insert(record, at=now, action="restore")
            else:
                store.update(record, action="restore", at=now)
            store.drop_signatures(memory_id)  # restored by an agent: what a human signed is gone
        elif current is not None:
            record = current
        memory = _judged(store, record, target.project)
    if changed:
        _refresh_brief(target)
    return RestoreResult(memory, version=number, changed=changed, store=target.store)


def list_minds(*, user: bool = False, directory: str | None = None, kernel: Kernel | None = None) -> MindsResult:
    """Every mind of the project's (``user``: the user-level) store that holds
    a memory, with how many it holds (expired ones included), by name."""
    target = resolve_target(kernel, user, directory, None)
    minds: list[tuple[str, int]] = []
    if target.backend.exists(target.directory):
        with target.backend.open_read_only(target.directory) as store:
            minds = store.minds()
    return MindsResult(minds, store=target.store)
