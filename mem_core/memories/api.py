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

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.humans.proof import NO_HUMAN
from mem_core.js.strings import JS_SPACE, js_trim
from mem_core.kernel import Kernel
from mem_core.memories.records import (
    CATEGORIES,
    DEFAULT_MIND,
    FIELDS,
    PRIORITIES,
    SOURCES,
    MemoryFilter,
    project_store_dir,
)
from mem_core.plain import PlainResult
from mem_core.textsafe import escape as _escape
from mem_core.textsafe import visible_name

if TYPE_CHECKING:
    from mem_core.humans.keys import HumanKey
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

KEY_MAX = 128
#: content is bounded: 16 KiB of UTF-8
CONTENT_MAX_BYTES = 16 * 1024
TAG_MAX = 64
TAGS_MAX = 32
MIND_MAX = 64
AGENT_CONFIDENCE = 0.7
USER_CONFIDENCE = 1.0
#: the latest timestamp a memory can carry (timestamps keep four-digit years)
MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

Category = Literal["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"]
Priority = Literal["low", "normal", "high", "critical"]
Source = Literal["user", "agent"]
StoreName = Literal["project", "user"]

Verification = Literal["signed", "terminal", "signature-invalid", "unsigned"]

_KEY = re.compile(r"[a-z0-9_]+")
_ID = re.compile(r"mem_[0-9a-f]{1,64}")
_TAG_CHAR_REFUSED = re.compile(f"[,{JS_SPACE}\\x00-\\x1f\\x7f]")
_NUMBER = re.compile(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DURATION = re.compile(r"([1-9][0-9]{0,9})([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})")
_WORD = re.compile(r"[^\W_]+")

#: the refusals when no human can be proven, by action
NO_TTY = NO_HUMAN
CHANGED_WHILE_ASKING = "The memory changed while waiting for confirmation; nothing was changed."


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
        data = {name: getattr(self, name) for name in FIELDS}
        data["tags"] = list(self.tags)
        shown: dict[str, Any] = {}
        for name, value in data.items():
            shown[name] = value
            if name == "verified":
                shown["verification"] = self.verification
        return shown

    @property
    def mark(self) -> str:
        """The trust mark text shows: ``verified``, ``verified (terminal)``,
        ``unverified`` or ``unverified (signature invalid)``."""
        return _MARKS[self.verification]


_MARKS = {
    "signed": "verified",
    "terminal": "verified (terminal)",
    "unsigned": "unverified",
    "signature-invalid": "unverified (signature invalid)",
}


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
        from mem_core.textsafe import escape

        return [
            f"Mind: {escape(self.mind)}",
            f"Memories: {self.total} total ({self.verified} verified, {self.unverified} unverified)",
        ]

    @staticmethod
    def block(number: int, memory: Memory) -> str:
        """The text of one memory's block, after the blank line that precedes it."""
        from mem_core.textsafe import escape, escape_block

        lines = [f"[{number:03d}] {memory.category} ({memory.priority.upper()}) [{memory.mark}]", f"  {memory.key}"]
        lines.extend(f"  {line}" for line in escape_block(memory.content))
        lines.append("  Tags: " + (", ".join(escape(t) for t in memory.tags) if memory.tags else "-"))
        return "\n".join(lines)

    @property
    def text(self) -> str:
        if self.fitted is not None:
            return self.fitted
        parts = ["\n".join(self.head_lines())]
        parts.extend(self.block(number, memory) for number, memory in enumerate(self.memories, 1))
        return "\n\n".join(parts)

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


# -- validation (exact, one-line messages) ----------------------------------


def _shown(value: object, limit: int = 40) -> str:
    """A value quoted for a one-line message (invisible characters escaped)."""
    text = _escape(value) if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "'" + text + "'"


def parse_category(value: object) -> str:
    if value not in CATEGORIES:
        raise MemError(f"category must be one of {', '.join(CATEGORIES)} (got {_shown(value)})")
    return str(value)


def parse_key(value: object) -> str:
    if not isinstance(value, str) or not _KEY.fullmatch(value) or len(value) > KEY_MAX:
        raise MemError(f"key must be snake_case: 1-{KEY_MAX} characters of a-z, 0-9 and _ (got {_shown(value)})")
    return value


def parse_content(value: object) -> str:
    """Content is stored without surrounding white space; it must not be empty."""
    if not isinstance(value, str) or not js_trim(value):
        raise MemError("content must be non-empty text")
    content = js_trim(value)
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > CONTENT_MAX_BYTES:
        raise MemError(f"content must be at most {CONTENT_MAX_BYTES} bytes of UTF-8 (got {size})")
    return content


def parse_tags(values: list[str] | str | None) -> list[str]:
    """Tags as given (each value may hold several, comma-separated), lower-cased,
    de-duplicated in first-seen order."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    tags: list[str] = []
    for value in values:
        for part in str(value).split(","):
            tag = js_trim(part).lower()
            if (
                not tag
                or _TAG_CHAR_REFUSED.search(tag)
                or not visible_name(tag, spaces=False)
                or not any(ch.isalnum() for ch in tag)
            ):
                raise MemError(f"tag must have a letter or digit and no spaces or commas (got {_shown(js_trim(part))})")
            if len(tag) > TAG_MAX:
                raise MemError(f"tag must be at most {TAG_MAX} characters (got {len(tag)}: {_shown(tag)})")
            if tag not in tags:
                tags.append(tag)
    if len(tags) > TAGS_MAX:
        raise MemError(f"a memory has at most {TAGS_MAX} tags (got {len(tags)})")
    return tags


def parse_tag_filter(value: str | None) -> str | None:
    if value is None:
        return None
    tags = parse_tags(value)
    if len(tags) != 1:
        raise MemError(f"--tag filters on one tag (got {_shown(value)})")
    return tags[0]


def parse_priority(value: object, default: str | None = "normal") -> str | None:
    if value is None:
        return default
    if value not in PRIORITIES:
        raise MemError(f"priority must be one of low, normal, high, critical (got {_shown(value)})")
    return str(value)


def parse_source(value: object) -> str | None:
    if value is None:
        return None
    if value not in SOURCES:
        raise MemError(f"source must be user or agent (got {_shown(value)})")
    return str(value)


def parse_confidence(value: str | float | None) -> float | None:
    """A number from 0 to 1 (``None``: the source's default)."""
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        number = float(value.strip())
    if number is None or not 0 <= number <= 1:
        raise MemError(f"confidence must be a number from 0 to 1 (got {_shown(value)})")
    return number + 0.0  # -0.0 -> 0.0


def parse_mind(value: object) -> str:
    """A mind's name: 1-64 characters, no control characters, no surrounding
    white space (``None``: the default mind)."""
    if value is None:
        return DEFAULT_MIND
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MIND_MAX
        or js_trim(value) != value
        or not visible_name(value, spaces=True)
    ):
        raise MemError(
            f"mind must be 1-{MIND_MAX} visible characters (no control, zero-width or bidirectional "
            f"characters, no surrounding spaces) (got {_shown(value)})"
        )
    return value


def parse_duration(value: object, option: str = "--expiring") -> int:
    """``7d``, ``12h``, ``30m``, ``45s``, ``2w`` as milliseconds."""
    m = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if not m:
        raise MemError(f"{option} must be a duration like 7d, 12h or 30m (got {_shown(value)})")
    return int(m.group(1)) * _UNIT_MS[m.group(2)]


def _iso(ms: float, option: str) -> str:
    if not 0 <= ms <= MAX_MS:
        raise MemError(f"{option} must fall between 1970-01-01 and 9999-12-31")
    ms = int(ms)
    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}.{ms % 1000:03d}Z"


def parse_expires(value: object, now: str) -> str | None:
    """``--expires``: an ISO-8601 date (UTC midnight) or date-time with ``Z`` or
    an offset, or a duration from ``now``; returned as a UTC timestamp
    ``YYYY-MM-DDTHH:MM:SS.mmmZ``."""
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and _DURATION.fullmatch(text):
        now_ms = parse_ms(now)
        assert now_ms is not None
        return _iso(now_ms + parse_duration(text, "--expires"), "--expires")
    m = (_DATE.fullmatch(text) or _DATE_TIME.fullmatch(text)) if isinstance(text, str) else None
    ms = parse_ms(text) if m else None
    if m:
        try:
            date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            ms = None
    if ms is None:
        raise MemError(
            "--expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) "
            f"or a duration like 7d, 12h or 30m (got {_shown(value)})"
        )
    return _iso(ms, "--expires")


def parse_ref(value: object) -> tuple[str | None, str | None, str | None]:
    """``mem_<hex>`` → (id, None, None); ``<category>/<key>`` → (None, category, key)."""
    if isinstance(value, str) and _ID.fullmatch(value):
        return value, None, None
    if isinstance(value, str) and "/" in value:
        category, _, key = value.partition("/")
        return None, parse_category(category), parse_key(key)
    raise MemError(f"a memory is named by its id (mem_…) or <category>/<key> (got {_shown(value)})")


def parse_search(value: str) -> list[str]:
    """The words of a search text (letters and digits; everything else separates)."""
    words = _WORD.findall(value) if isinstance(value, str) else []
    if not words:
        raise MemError(f"--search needs at least one word of letters or digits (got {_shown(value)})")
    return words


def _limit(value: str | int | None) -> int | None:
    if value is None:
        return None
    from mem_core.retrieval.api import parse_limit

    return parse_limit(value)


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
    from mem_core.memories.trust import judge_records

    project = _project_of(directory, kernel)
    return [Memory.model_validate(r) for r in judge_records(records, store, project, judge)]


def _signature_for(proof: Any, memory: dict[str, Any], at: str) -> dict[str, Any]:
    from mem_core.memories.trust import sign, terminal_signature

    if proof.signer is not None:
        return sign(memory, proof.signer, at)
    return terminal_signature(memory, at)


# -- stores -----------------------------------------------------------------


def _target(
    kernel: Kernel | None, user: bool, directory: str | None, mind: str | None
) -> tuple[type[MemoryStore], str, str]:
    """The backend, the store's directory and the mind (``mind``, else the
    ``default_mind`` setting) of one call, from the project's settings."""
    from mem_core.memories.backend import choose_store
    from mem_core.settings import resolve

    kernel, settings = resolve(directory, kernel)
    directory_path = settings.user_store_dir() if user else project_store_dir(settings.project)
    backend = choose_store(settings, kernel.stores, directory_path, user=user)
    return backend, directory_path, parse_mind(mind if mind is not None else settings.default_mind)


def _project_of(directory: str | None, kernel: Kernel | None) -> str:
    from mem_core.settings import project_settings

    return project_settings(directory, kernel).project


def _store_name(user: bool) -> StoreName:
    return "user" if user else "project"


def _new_id(store: MemoryStore) -> str:
    while True:
        memory_id = "mem_" + os.urandom(8).hex()  # (``secrets`` costs 6 ms of imports for the same)
        if not store.id_known(memory_id):
            return memory_id


def _find(store: MemoryStore, ref: tuple[str | None, str | None, str | None], mind_id: str) -> dict[str, Any] | None:
    memory_id, category, key = ref
    if memory_id is not None:
        return store.get(memory_id)
    assert category is not None and key is not None
    return store.get_by_key(mind_id, category, key)


def _not_found(ref: str, mind_id: str, user: bool) -> MemError:
    where = f"the {_store_name(user)} store"
    if _ID.fullmatch(ref):
        return MemError(f"No memory {ref} in {where}.")
    return MemError(f"No memory {ref} in mind {mind_id} of {where}.")


@contextmanager
def _existing_memory(
    ref: str, mind: str | None, user: bool, directory: str | None, kernel: Kernel | None
) -> Iterator[tuple[MemoryStore, dict[str, Any], str]]:
    """The open store and the memory ``ref`` names in it (with its mind), or
    the "No memory …" refusal."""
    parsed = parse_ref(ref)
    parse_mind(mind)
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    if not backend.exists(directory_path):
        raise _not_found(ref, mind_id, user)
    with backend.open(directory_path, create=False) as store:
        record = _find(store, parsed, mind_id)
        if record is None:
            raise _not_found(ref, mind_id, user)
        yield store, record, mind_id


def _unchanged_since_asked(store: MemoryStore, record: dict[str, Any], ref: str, mind_id: str, user: bool) -> None:
    """Inside the write transaction, after a human was asked about ``record``:
    refuse if the memory went away or changed meanwhile."""
    current = store.get(record["id"])
    if current is None:
        raise _not_found(ref, mind_id, user)
    if current != record:
        raise MemError(CHANGED_WHILE_ASKING)


def _describe(record: dict[str, Any], mind_id: str, user: bool) -> str:
    """The memory as a confirmation question shows it: in full, every line
    indented, every invisible character escaped, so that what a human
    confirms is what is stored."""
    from mem_core.textsafe import escape_block

    content = "\n".join(f"  {line}" for line in escape_block(record["content"]))
    return f"  {record['category']}/{record['key']} (mind {_escape(mind_id)}, {_store_name(user)} store)\n{content}"


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
    parse_mind(mind)
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    signature: dict[str, Any] | None = None
    if as_user:
        question = "mem remember: store this memory as said by you, the user (source user, verified)?\n" + _describe(
            {"category": category, "key": key, "content": content}, mind_id, user
        )
        proof = require_human(
            "remember", question, directory=directory, kernel=kernel, signer=signer, human=human,
            interactive=interactive,
        )  # fmt: skip
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
    with backend.open(directory_path, create=True) as store:
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
                record = {name: record[name] for name in (FIELDS)}
                store.insert(record, at=now)
                created = changed = True
            else:
                judged = _judge(store, [old], directory, kernel)[0]
                conf = explicit_confidence
                if conf is None:
                    # a memory a human now states takes the human's default, unless it was theirs already
                    conf = USER_CONFIDENCE if as_user and old["source"] != "user" else old["confidence"]
                given["confidence"] = conf
                same = all(old[name] == value for name, value in given.items())
                if as_user:
                    same = same and old["source"] == "user" and judged.verified
                created = False
                changed = not same
                record = old
                if changed and not as_user and (old["source"] == "user" or judged.source == "user"):
                    raise MemError(stated_by_human(old))
                if changed:
                    record = {**old, **given, "source": source, "verified": as_user, "updated_at": now}
                    store.update(record, action="update", at=now)
                    store.drop_signatures(old["id"])
            if changed and signature is not None:
                store.add_signature({**signature, "memory_id": record["id"]})
        memory = _judge(store, [record], directory, kernel)[0]
    if changed and not user:
        from mem_core.brief.refresh import refresh_brief

        refresh_brief(_project_of(directory, kernel), kernel)  # only if the brief file exists; never fails
    return RememberResult(memory=memory, created=created, changed=changed, store=_store_name(user))


def stated_by_human(record: dict[str, Any]) -> str:
    """The refusal of an agent's change to a memory a human stated."""
    return f"{record['category']}/{record['key']} was stated by a human; only a human can change it"


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
    now = now or now_iso()
    category = parse_category(category) if category is not None else None
    tag_name = parse_tag_filter(tag)
    words = parse_search(search) if search is not None else None
    expires_before = None
    if expiring is not None:
        now_ms = parse_ms(now)
        assert now_ms is not None
        expires_before = _iso(min(now_ms + parse_duration(expiring), MAX_MS), "--expiring")
        include_expired = True
    source = parse_source(source)
    level = parse_priority(priority, default=None)
    parse_mind(mind)
    count = _limit(limit)
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    # source and verified are what the signatures say, not the columns: those
    # filters apply after the signatures are checked
    judged_filter = source is not None or verified is not None
    where = MemoryFilter(
        now=now,
        mind_id=mind_id,
        category=category,
        tag=tag_name,
        priority=level,
        include_expired=include_expired,
        expires_before=expires_before,
        # a plain listing is cut by the store (and counted there); a search or a
        # filter on what the signatures say is cut below, once judged
        limit=count if words is None and not judged_filter else None,
    )
    from mem_core.memories.lifecycle import check_mind

    memories: list[Memory] = []
    total = None if count is None else 0
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            check_mind(store, mind, mind_id, directory, kernel, user)
            records = store.search(words, where) if words is not None else store.query(where)
            memories = _judge(store, records, directory, kernel)
            if where.limit is not None:
                total = store.count(where)
    else:
        check_mind(None, mind, mind_id, directory, kernel, user)
    if judged_filter:
        memories = [
            m for m in memories
            if (source is None or m.source == source) and (verified is None or m.verified is verified)
        ]  # fmt: skip
    if count is not None and where.limit is None:
        total = len(memories)
    return MemoriesResult(
        memories=memories[:count],
        mind=mind_id,
        store=_store_name(user),
        now=now,
        search=search,
        expiring=expiring,
        total=total,
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
    from mem_core.brief.budget import parse_budget

    now = now or now_iso()
    parse_mind(mind)
    count = _limit(limit)
    tokens = parse_budget(budget) if budget is not None else None
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    if tokens is None:
        from mem_core.settings import project_settings

        tokens = project_settings(directory, kernel).context_budget
    from mem_core.memories.lifecycle import check_mind

    memories: list[Memory] = []
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            check_mind(store, mind, mind_id, directory, kernel, user)
            memories = _judge(store, store.query(MemoryFilter(now=now, mind_id=mind_id)), directory, kernel)
    else:
        check_mind(None, mind, mind_id, directory, kernel, user)
    verified = sum(1 for m in memories if m.verified)
    summary = ContextSummary(
        mind=mind_id,
        total=len(memories),
        verified=verified,
        unverified=len(memories) - verified,
        memories=memories if count is None else memories[:count],
        store=_store_name(user),
        budget=tokens,
    )
    return _within_budget(summary, tokens)


def _within_budget(summary: ContextSummary, budget: int) -> ContextSummary:
    """``summary`` with the blocks that fit in ``budget`` tokens (in order:
    the most important first), the others counted on the last line."""
    from mem_core.brief.budget import Section, fit
    from mem_core.brief.tokens import estimate_tokens

    if estimate_tokens(summary.text) <= budget:
        return summary
    # each block after a blank line, as the text shows it
    blocks = ["\n" + summary.block(n, m) for n, m in enumerate(summary.memories, 1)]
    fitted = fit(summary.head_lines(), [Section("memories", "", blocks, hint="mem memories")], budget)
    kept = fitted.kept["memories"]
    text = fitted.text.lstrip("\n")
    update = {"memories": summary.memories[:kept], "omitted": len(blocks) - kept, "fitted": text}
    return summary.model_copy(update=update)


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
