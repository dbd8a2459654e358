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
confidence 0.7 by default. Storing ``as_user`` (``source:"user"``, verified,
confidence 1.0) and :func:`verify` need a human confirmation: the ``confirm``
callable, by default :func:`mem_core.memories.human.human_confirmation` (the
terminal confirmation, which refuses unless stdin and stdout are both
terminals). No argument sets ``verified`` directly. An agent's change to a
memory a human stated is refused (:func:`stated_by_human`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.js.strings import JS_SPACE, js_trim
from mem_core.kernel import Kernel
from mem_core.memories.human import human_confirmation
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

if TYPE_CHECKING:
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
    "Confirm",
    "remember",
    "list_memories",
    "search_memories",
    "expiring_memories",
    "forget",
    "verify",
    "context_summary",
    "memory_history",
    "terminal_confirmation",
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

#: ``confirm(action, question) -> bool``: ask a human; ``action`` is
#: ``"remember"``, ``"verify"`` or ``"forget"``. Raise ``MemError`` if no
#: human can be asked.
Confirm = Callable[[str, str], bool]

_KEY = re.compile(r"[a-z0-9_]+")
_ID = re.compile(r"mem_[0-9a-f]{1,64}")
_TAG_CHAR_REFUSED = re.compile(f"[,{JS_SPACE}\\x00-\\x1f\\x7f]")
_CONTROL = re.compile("[\\x00-\\x1f\\x7f]")
_NUMBER = re.compile(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DURATION = re.compile(r"([1-9][0-9]{0,9})([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})")
_WORD = re.compile(r"[^\W_]+")
#: C0 and C1 controls but the newline, and the bidirectional and zero-width formatting characters
_INVISIBLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")

NO_TTY = {
    "remember": (
        "--as-user needs a human: confirm it in an interactive terminal (stdin and stdout must be a TTY); "
        "nothing was stored."
    ),
    "verify": (
        "verify needs a human: confirm it in an interactive terminal (stdin and stdout must be a TTY); "
        "nothing was changed."
    ),
    "forget": (
        "forgetting a memory a human confirmed (verified or said by the user) needs a human: "
        "confirm it in an interactive terminal (stdin and stdout must be a TTY); nothing was deleted."
    ),
}
NOT_CONFIRMED = {
    "remember": "Not confirmed; nothing was stored.",
    "verify": "Not confirmed; nothing was changed.",
    "forget": "Not confirmed; nothing was deleted.",
}
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
    confidence: float = Field(ge=0, le=1)
    expires_at: str | None
    mind_id: str = Field(min_length=1)
    created_at: str
    updated_at: str

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
        return data


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
        return [
            f"Mind: {self.mind}",
            f"Memories: {self.total} total ({self.verified} verified, {self.unverified} unverified)",
        ]

    @staticmethod
    def block(number: int, memory: Memory) -> str:
        """The text of one memory's block, after the blank line that precedes it."""
        mark = "verified" if memory.verified else "unverified"
        lines = [f"[{number:03d}] {memory.category} ({memory.priority.upper()}) [{mark}]", f"  {memory.key}"]
        content = memory.content.replace("\r\n", "\n").replace("\r", "\n")
        lines.extend(f"  {line}" for line in content.split("\n"))
        lines.append("  Tags: " + (", ".join(memory.tags) if memory.tags else "-"))
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
    """A value quoted for a one-line message."""
    text = _CONTROL.sub(" ", value if isinstance(value, str) else repr(value))
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
            if not tag or _TAG_CHAR_REFUSED.search(tag) or not any(ch.isalnum() for ch in tag):
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
        or _CONTROL.search(value)
    ):
        raise MemError(
            f"mind must be 1-{MIND_MAX} characters without control characters or surrounding spaces "
            f"(got {_shown(value)})"
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


# -- human confirmation -----------------------------------------------------


def _isatty(stream: object) -> bool:
    try:
        return os.isatty(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


def terminal_confirmation(action: str, question: str) -> bool:
    """Ask on the terminal; true only for ``y`` or ``yes``.

    Refuses (``MemError``) unless stdin and stdout are both terminals: an agent
    running commands through pipes has no way to answer.
    """
    if not (_isatty(sys.stdin) and _isatty(sys.stdout)):
        raise MemError(NO_TTY[action])
    sys.stdout.write(question + "\nType 'yes' to confirm: ")
    sys.stdout.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _ask(confirm: Confirm | None, action: str, question: str) -> None:
    if confirm is None:
        raise MemError(NO_TTY[action])
    if not confirm(action, question):
        raise MemError(NOT_CONFIRMED[action])


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


def _visible(text: str) -> str:
    """``text`` with every control and bidirectional-formatting character
    shown as an escape, so that what a human confirms is what is stored."""
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _describe(record: dict[str, Any], mind_id: str, user: bool) -> str:
    """The memory as a confirmation question shows it: in full, every line
    indented, nothing hidden."""
    content = "\n".join(f"  {_visible(line)}" for line in record["content"].split("\n"))
    return f"  {record['category']}/{record['key']} (mind {_visible(mind_id)}, {_store_name(user)} store)\n{content}"


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
    confirm: Confirm | None = human_confirmation,
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
    update of a memory a human stated (``source:"user"``) is refused; one
    that changes a verified agent memory makes it unverified. ``as_user``
    stores ``source:"user"``, verified, after ``confirm``.
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
    if as_user:
        question = "mem remember: store this memory as said by you, the user (source user, verified)?\n" + _describe(
            {"category": category, "key": key, "content": content}, mind_id, user
        )
        _ask(confirm, "remember", question)
    source = "user" if as_user else "agent"
    given: dict[str, Any] = {"content": content}
    if tag_list is not None:
        given["tags"] = tag_list
    if level is not None:
        given["priority"] = level
    if expires_at is not None or no_expiry:
        given["expires_at"] = expires_at
    with backend.open(directory_path, create=True) as store, store.transaction():
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
            conf = explicit_confidence
            if conf is None:
                # a memory a human now states takes the human's default, unless it was theirs already
                conf = USER_CONFIDENCE if as_user and old["source"] != "user" else old["confidence"]
            given["confidence"] = conf
            same = all(old[name] == value for name, value in given.items())
            if as_user:
                same = same and old["source"] == "user" and old["verified"]
            created = False
            changed = not same
            record = old
            if changed and not as_user and old["source"] == "user":
                raise MemError(stated_by_human(old))
            if changed:
                record = {**old, **given, "source": source, "verified": as_user, "updated_at": now}
                store.update(record, action="update", at=now)
    if changed and not user:
        from mem_core.brief.refresh import refresh_brief

        refresh_brief(_project_of(directory, kernel), kernel)  # only if the brief file exists; never fails
    return RememberResult(
        memory=Memory.model_validate(record), created=created, changed=changed, store=_store_name(user)
    )


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
    where = MemoryFilter(
        now=now,
        mind_id=mind_id,
        category=category,
        tag=tag_name,
        source=source,
        verified=verified,
        priority=level,
        include_expired=include_expired,
        expires_before=expires_before,
        limit=None,  # applied below, so that the result says how many there were
    )
    from mem_core.memories.lifecycle import check_mind

    records: list[dict[str, Any]] = []
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            check_mind(store, mind, mind_id, directory, kernel, user)
            records = store.search(words, where) if words is not None else store.query(where)
    else:
        check_mind(None, mind, mind_id, directory, kernel, user)
    total = None if count is None else len(records)
    return MemoriesResult(
        memories=[Memory.model_validate(r) for r in records[:count]],
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
    confirm: Confirm | None = human_confirmation,
) -> ForgetResult:
    """Delete a memory (by id, or ``<category>/<key>`` in ``mind``); the
    history keeps a tombstone with its last value.

    An agent may forget what agents stored; a memory a human confirmed
    (verified, or ``source:"user"``) is forgotten only after ``confirm``, so
    that an agent cannot quietly undo what the user said."""
    now = now or now_iso()
    with _existing_memory(ref, mind, user, directory, kernel) as (store, record, mind_id):
        if record["verified"] or record["source"] == "user":
            question = "mem forget: delete this memory a human confirmed?\n" + _describe(
                record, record["mind_id"], user
            )
            _ask(confirm, "forget", question)
        with store.transaction():
            _unchanged_since_asked(store, record, ref, mind_id, user)
            store.delete(record["id"], at=now)
    return ForgetResult(memory=Memory.model_validate(record), store=_store_name(user))


def verify(
    ref: str,
    *,
    mind: str | None = None,
    user: bool = False,
    confirm: Confirm | None = human_confirmation,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> VerifyResult:
    """Mark a memory verified after a human confirms it (``confirm``). Its
    source, confidence and ``updated_at`` are kept; the history records the
    verification. Verifying a verified memory changes nothing."""
    now = now or now_iso()
    with _existing_memory(ref, mind, user, directory, kernel) as (store, record, mind_id):
        if record["verified"]:
            return VerifyResult(memory=Memory.model_validate(record), changed=False, store=_store_name(user))
        question = "mem verify: confirm that this memory is true (verified)?\n" + _describe(
            record, record["mind_id"], user
        )
        _ask(confirm, "verify", question)
        with store.transaction():
            _unchanged_since_asked(store, record, ref, mind_id, user)
            record = {**record, "verified": True}
            store.update(record, action="verify", at=now)
    return VerifyResult(memory=Memory.model_validate(record), changed=True, store=_store_name(user))


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

    records: list[dict[str, Any]] = []
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            check_mind(store, mind, mind_id, directory, kernel, user)
            records = store.query(MemoryFilter(now=now, mind_id=mind_id))
    else:
        check_mind(None, mind, mind_id, directory, kernel, user)
    memories = [Memory.model_validate(r) for r in records]
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
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            if memory_id is None:
                found = store.get_by_key(mind_id, category or "", key or "")
                memory_id = found["id"] if found else None
            if memory_id is not None:
                entries = store.history(memory_id)
    if not entries:
        raise _not_found(ref, mind_id, user)
    return HistoryResult(
        entries=[
            HistoryEntry(
                version=number,
                seq=e["seq"],
                action=e["action"],
                at=e["at"],
                memory=Memory.model_validate(e["memory"]),
            )
            for number, e in enumerate(entries, 1)
        ],
        ref=ref,
        store=_store_name(user),
    )
