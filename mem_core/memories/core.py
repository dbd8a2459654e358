"""Structured memories without pydantic: the work behind ``mem remember``,
``mem memories`` and ``mem context`` (structured-memory.md), on plain records.

:mod:`mem_core.memories.api` is the public API: it validates through the
same functions, calls the operations here and wraps their answers in its
pydantic models. The command line's fast path (:mod:`mem_cli.fast`) calls
them directly and prints the light results (:class:`MemoryView`,
:class:`Remembered`, :class:`Listing`, :class:`Summary`), whose ``to_json()``
and text are the models' own, byte for byte — so that these commands start
in the time of the five actions: no pydantic, no typer, and no plugin
manager where no plugin can change the answer (:func:`builtin_store`).

``context`` and ``memories --limit`` let the store order, filter, count and
cut (SQL for the built-in backends): ``context`` reads the memories it shows
one by one, as many as its token budget can hold, and counts the others in
the store; signatures are read and checked for the memories shown (and, for
the verified count, for the memories that have signature rows at all).
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.js.strings import JS_SPACE, js_trim
from mem_core.memories.backend import builtin_store, plugins_free
from mem_core.memories.records import (
    CATEGORIES,
    DEFAULT_MIND,
    FIELDS,
    PRIORITIES,
    SOURCES,
    MemoryFilter,
    project_store_dir,
)
from mem_core.textsafe import escape as _escape
from mem_core.textsafe import visible_name

if TYPE_CHECKING:
    from typing import Any

    from mem_core.humans.keys import HumanKey
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.memories.kinds import StoreName
    from mem_core.settings import Settings

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

_KEY = re.compile(r"[a-z0-9_]+")
_ID = re.compile(r"mem_[0-9a-f]{1,64}")
_TAG_CHAR_REFUSED = re.compile(f"[,{JS_SPACE}\\x00-\\x1f\\x7f]")
_NUMBER = re.compile(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DURATION = re.compile(r"([1-9][0-9]{0,9})([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})")
_WORD = re.compile(r"[^\W_]+")

#: the refusal of a change made while a human was being asked
CHANGED_WHILE_ASKING = "The memory changed while waiting for confirmation; nothing was changed."


# -- light results ------------------------------------------------------------

_MARKS = {
    "signed": "verified",
    "terminal": "verified (terminal)",
    "unsigned": "unverified",
    "signature-invalid": "unverified (signature invalid)",
}


class MemoryView:
    """One judged memory record (its trust fields decided by its signatures)
    with what the text and the JSON of :class:`~mem_core.memories.api.Memory`
    read from it."""

    __slots__ = (*FIELDS, "verification", "record")

    def __init__(self, record: dict[str, Any]) -> None:
        #: the judged record: the spec's fields and ``verification``
        self.record = record
        self.id = record["id"]
        self.category = record["category"]
        self.key = record["key"]
        self.content = record["content"]
        self.tags = record["tags"]
        self.priority = record["priority"]
        self.source = record["source"]
        self.verified = record["verified"]
        self.confidence = record["confidence"]
        self.expires_at = record["expires_at"]
        self.mind_id = record["mind_id"]
        self.created_at = record["created_at"]
        self.updated_at = record["updated_at"]
        self.verification = record["verification"]

    @property
    def ref(self) -> str:
        return f"{self.category}/{self.key}"

    @property
    def mark(self) -> str:
        return _MARKS[self.verification]

    def expired(self, now: str) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def to_json(self) -> dict[str, Any]:
        return memory_json(self.record)


def memory_json(record: dict[str, Any]) -> dict[str, Any]:
    """A judged record as the JSON of a memory: the spec's fields in order,
    ``verification`` after ``verified``."""
    shown: dict[str, Any] = {}
    for name in FIELDS:
        shown[name] = list(record["tags"]) if name == "tags" else record[name]
        if name == "verified":
            shown["verification"] = record["verification"]
    return shown


class Remembered:
    """What :func:`remember_plain` did (see :class:`~mem_core.memories.api.RememberResult`)."""

    __slots__ = ("memory", "created", "changed", "store")

    def __init__(self, memory: MemoryView, created: bool, changed: bool, store: str) -> None:
        self.memory = memory
        self.created = created
        self.changed = changed
        self.store = store

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "created": self.created}


class Listing:
    """What :func:`list_plain` found (see :class:`~mem_core.memories.api.MemoriesResult`)."""

    __slots__ = ("memories", "mind", "store", "now", "search", "expiring", "total")

    def __init__(self, memories: list[MemoryView], mind: str, store: str, now: str, search: str | None,
                 expiring: str | None, total: int | None) -> None:  # fmt: skip
        self.memories = memories
        self.mind = mind
        self.store = store
        self.now = now
        self.search = search
        self.expiring = expiring
        self.total = total

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"count": len(self.memories)}
        if self.total is not None:
            found["total"] = self.total
        found["memories"] = [m.to_json() for m in self.memories]
        return found


class Summary:
    """The context summary :func:`context_plain` made (see
    :class:`~mem_core.memories.api.ContextSummary`, whose layout it is)."""

    __slots__ = ("mind", "total", "verified", "unverified", "memories", "store", "omitted", "budget", "fitted")

    def __init__(self, mind: str, total: int, verified: int, unverified: int, memories: list[MemoryView],
                 store: str, omitted: int, budget: int | None, fitted: str | None) -> None:  # fmt: skip
        self.mind = mind
        self.total = total
        self.verified = verified
        self.unverified = unverified
        self.memories = memories
        self.store = store
        self.omitted = omitted
        self.budget = budget
        self.fitted = fitted

    @property
    def text(self) -> str:
        if self.fitted is not None:
            return self.fitted
        return summary_text(self.mind, self.total, self.verified, self.unverified, self.memories)

    def to_json(self) -> dict[str, Any]:
        return summary_json(self)


def summary_head(mind: str, total: int, verified: int, unverified: int) -> list[str]:
    """The two head lines of a context summary."""
    return [f"Mind: {_escape(mind)}", f"Memories: {total} total ({verified} verified, {unverified} unverified)"]


def summary_block(number: int, memory: Any) -> str:
    """The text of one memory's block, after the blank line that precedes it."""
    from mem_core.textsafe import escape_block

    lines = [f"[{number:03d}] {memory.category} ({memory.priority.upper()}) [{memory.mark}]", f"  {memory.key}"]
    lines.extend(f"  {line}" for line in escape_block(memory.content))
    lines.append("  Tags: " + (", ".join(_escape(t) for t in memory.tags) if memory.tags else "-"))
    return "\n".join(lines)


def summary_text(mind: str, total: int, verified: int, unverified: int, memories: list[Any]) -> str:
    """The whole summary: the head, then every block after a blank line."""
    parts = ["\n".join(summary_head(mind, total, verified, unverified))]
    parts.extend(summary_block(number, memory) for number, memory in enumerate(memories, 1))
    return "\n\n".join(parts)


def summary_json(summary: Any) -> dict[str, Any]:
    """The JSON of a context summary (light or pydantic)."""
    data: dict[str, Any] = {
        "mind": summary.mind,
        "total": summary.total,
        "verified": summary.verified,
        "unverified": summary.unverified,
        "memories": [m.to_json() for m in summary.memories],
    }
    if summary.omitted:
        data["omitted"] = summary.omitted
        data["budget"] = summary.budget
    data["text"] = summary.text
    return data


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
    from datetime import datetime, timezone

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
            from datetime import date

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
    """``--limit``: as ``mem recall`` reads it (:func:`mem_core.retrieval.api.parse_limit`,
    which this keeps off the start-up path: it imports the recall kernel)."""
    if value is None:
        return None
    return parse_count(value)


def parse_count(value: str | int) -> int:
    """A whole number >= 0 as JavaScript reads numbers (``3``, ``3.0``,
    ``0x3``, `` 3 ``); empty: 8 (recall's default). The same answers as
    :func:`mem_core.retrieval.api.parse_limit` (a test holds them alike)."""
    import math

    if value == "":
        return 8
    if isinstance(value, int) and not isinstance(value, bool):
        number: float = value
    elif isinstance(value, str):
        from mem_core.js.numbers import js_to_number

        number = js_to_number(value)
    else:
        number = math.nan
    if not math.isfinite(number) or number < 0 or number != int(number):
        raise MemError("--limit must be a non-negative integer")
    return int(number)


# -- signatures -------------------------------------------------------------


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


def _signature_for(proof: Any, memory: dict[str, Any], at: str) -> dict[str, Any]:
    from mem_core.memories.trust import sign, terminal_signature

    if proof.signer is not None:
        return sign(memory, proof.signer, at)
    return terminal_signature(memory, at)


# -- stores -----------------------------------------------------------------


class Target:
    """Where one call works: the settings of its project, the backend, the
    store's directory, the mind (``mind``, else the ``default_mind``
    setting) and the kernel, if one was given or had to be built."""

    __slots__ = ("settings", "backend", "directory", "mind_id", "kernel")

    def __init__(
        self, settings: Settings, backend: type[MemoryStore], directory: str, mind_id: str, kernel: Kernel | None
    ) -> None:
        self.settings = settings
        self.backend = backend
        self.directory = directory
        self.mind_id = mind_id
        self.kernel = kernel

    @property
    def project(self) -> str:
        return self.settings.project


def resolve_target(
    kernel: Kernel | None, user: bool, directory: str | None, mind: str | None, kernel_settings: Settings | None = None
) -> Target:
    """The :class:`Target` of one call. Without a kernel, one is built from
    the project's settings (``kernel_settings``: the command line's fast path
    gives the working directory's, which its typer path builds it from) — unless no plugin can change
    the answer (:func:`plugins_free`, :func:`builtin_store`): then the
    built-in ``sqlite`` backend is the one
    :func:`mem_core.memories.backend.choose_store` would choose, and no
    plugin manager is built."""
    from mem_core.settings import project_settings

    settings = project_settings(directory, kernel)
    directory_path = settings.user_store_dir() if user else project_store_dir(settings.project)
    backend: type[MemoryStore] | None = None
    if kernel is None:
        base = kernel_settings or settings
        if plugins_free(base) and plugins_free(settings):
            backend = builtin_store(settings, directory_path, user=user)
    if backend is None:
        from mem_core.memories.backend import choose_store

        if kernel is None:
            from mem_core.kernel import Kernel

            kernel = Kernel(settings=kernel_settings or settings)
        backend = choose_store(settings, kernel.stores, directory_path, user=user)
    mind_id = parse_mind(mind if mind is not None else settings.default_mind)
    return Target(settings, backend, directory_path, mind_id, kernel)


def _target(
    kernel: Kernel | None, user: bool, directory: str | None, mind: str | None
) -> tuple[type[MemoryStore], str, str]:
    """The backend, the store's directory and the mind of one call (see :func:`resolve_target`)."""
    target = resolve_target(kernel, user, directory, mind)
    return target.backend, target.directory, target.mind_id


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


# -- content ------------------------------------------------------------------

#: what ``--content-file`` and stdin may hold beyond the content's own bound
#: (surrounding white space, trimmed before the bound is checked)
_CONTENT_SLACK = 4096


def read_content(path: str | None) -> str:
    """The content of a memory from a file (``path``) or from stdin (``None``):
    UTF-8, at most the content's bound (``CONTENT_MAX_BYTES``, surrounding
    white space aside); anything else is a one-line error."""
    import sys

    name = "stdin" if path is None else path
    limit = CONTENT_MAX_BYTES + _CONTENT_SLACK
    try:
        if path is None:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
    except OSError as exc:
        raise MemError(f"Cannot read {name}: {exc.strerror or exc}.") from None
    if len(data) > limit:
        raise MemError(f"{name} holds more than {CONTENT_MAX_BYTES} bytes; a memory's content is at most that")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemError(f"{name} is not UTF-8 text (byte {exc.start + 1})") from None


def content_of(words: list[str] | None, text: str | None, file: str | None) -> str:
    """The content ``mem remember`` was given: its words, ``--content``,
    ``--content-file``, or ``-`` (one word) for stdin — exactly one of them."""
    given = [kind for kind, value in (("words", words), ("text", text), ("file", file)) if value]
    if not given:
        raise MemError(
            "content is missing: give it after the key (after -- when it starts with -), "
            "with --content TEXT or --content-file FILE, or - to read it from stdin"
        )
    if len(given) > 1:
        raise MemError("give the content once: as words, with --content, with --content-file, or - for stdin")
    if file is not None:
        return read_content(file)
    if text is not None:
        return text
    assert words is not None
    if words == ["-"]:
        return read_content(None)
    return " ".join(words)


# -- minds ----------------------------------------------------------------------


def require_mind(store: MemoryStore | None, mind_id: str, default_mind: str, user: bool) -> None:
    """Refuse a mind that holds no memory (a mistyped ``--mind`` is an error,
    not an empty answer); the default mind always exists."""
    if mind_id == default_mind:
        return
    minds = store.minds() if store is not None else []
    if any(name == mind_id for name, _ in minds):
        return
    known = ", ".join(_escape(name) for name, _ in minds) if minds else "none yet"
    raise MemError(f"no mind '{_escape(mind_id)}' in the {_store_name(user)} store (minds: {known})")


def check_mind(store: MemoryStore | None, mind: str | None, mind_id: str, settings: Settings, user: bool) -> None:
    """:func:`require_mind` for a reading command, when its ``--mind`` was given."""
    if mind is not None:
        require_mind(store, mind_id, settings.default_mind, user)


# -- the operations -------------------------------------------------------------


def remember_plain(
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
) -> Remembered:
    """:func:`mem_core.memories.api.remember` (see there), on plain records."""
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
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    mind_id, project = target.mind_id, target.project
    signature: dict[str, Any] | None = None
    if as_user:
        from mem_core.memories import api  # the one "is a human present?" decision

        question = "mem remember: store this memory as said by you, the user (source user, verified)?\n" + _describe(
            {"category": category, "key": key, "content": content}, mind_id, user
        )
        proof = api.require_human(
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
                record = {name: record[name] for name in (FIELDS)}
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
        memory = MemoryView(judge(store, [record], project)[0])
    if changed and not user:
        from mem_core.brief.refresh import refresh_brief

        refresh_brief(project, target.kernel)  # only if the brief file exists; never fails
    return Remembered(memory, created, changed, _store_name(user))


def stated_by_human(record: dict[str, Any]) -> str:
    """The refusal of an agent's change to a memory a human stated."""
    return f"{record['category']}/{record['key']} was stated by a human; only a human can change it"


def list_plain(
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
) -> Listing:
    """:func:`mem_core.memories.api.list_memories` (see there), on plain records.

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
        expires_before = _iso(min(now_ms + parse_duration(expiring), MAX_MS), "--expiring")
        include_expired = True
    source = parse_source(source)
    level = parse_priority(priority, default=None)
    parse_mind(mind)
    count = _limit(limit)
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    mind_id = target.mind_id
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
        # the store cuts (and counts) unless a filter on what the signatures say comes after it
        limit=count if not judged_filter else None,
    )
    records: list[dict[str, Any]] = []
    total = None if count is None else 0
    if target.backend.exists(target.directory):
        with target.backend.open_read_only(target.directory) as store, store.reading():
            check_mind(store, mind, mind_id, target.settings, user)
            found = store.search(words, where) if words is not None else store.query(where)
            records = judge(store, found, target.project)
            if where.limit is not None:
                total = store.search_count(words, where) if words is not None else store.count(where)
    else:
        check_mind(None, mind, mind_id, target.settings, user)
    if judged_filter:
        records = [
            r for r in records
            if (source is None or r["source"] == source) and (verified is None or r["verified"] is verified)
        ]  # fmt: skip
    if count is not None and where.limit is None:
        total = len(records)
    return Listing([MemoryView(r) for r in records[:count]], mind_id, _store_name(user), now, search, expiring, total)


def context_plain(
    *,
    mind: str | None = None,
    user: bool = False,
    limit: str | int | None = None,
    budget: str | int | None = None,
    directory: str | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
    kernel_settings: Settings | None = None,
) -> Summary:
    """:func:`mem_core.memories.api.context_summary` (see there), on plain
    records, read as the summary needs them: the store counts the memories;
    those with signature rows are judged for the verified count; the blocks
    are read in order, one at a time, only as far as the budget can reach."""
    from mem_core.brief.budget import parse_budget

    now = now or now_iso()
    parse_mind(mind)
    count = _limit(limit)
    tokens = parse_budget(budget) if budget is not None else None
    target = resolve_target(kernel, user, directory, mind, kernel_settings)
    mind_id = target.mind_id
    if tokens is None:
        tokens = target.settings.context_budget
    store_name = _store_name(user)
    if not target.backend.exists(target.directory):
        check_mind(None, mind, mind_id, target.settings, user)
        return _fitted(mind_id, 0, 0, iter(()), 0, store_name, tokens)
    with target.backend.open_read_only(target.directory) as store, store.reading():
        check_mind(store, mind, mind_id, target.settings, user)
        where = MemoryFilter(now=now, mind_id=mind_id)
        total = store.count(where)
        signed = {r["id"]: r for r in judge(store, store.signed(where), target.project)}
        verified = sum(1 for r in signed.values() if r["verified"])
        shown = total if count is None else min(count, total)
        where.limit = shown

        def views() -> Generator[MemoryView, None, None]:
            for record in store.iter_query(where):
                judged = signed.get(record["id"])
                if judged is None:  # no signature row: unsigned, nothing to read
                    judged = judge(store, [record], target.project, signatures={})[0]
                yield MemoryView(judged)

        blocks = views()
        try:
            return _fitted(mind_id, total, verified, blocks, shown, store_name, tokens)
        finally:
            blocks.close()


def _joined_tokens(head: int | None, items: list[int], tail: str) -> int:
    """The estimate of ``"\\n".join([*head, *items, tail])`` from the estimates
    of its parts — the head's (``None``: no head), each ``"\\n" + block``'s —
    when the head, every block and the tail start and end with a visible
    character: the estimate counts pieces (:mod:`mem_core.brief.tokens`), no
    piece spans a line break between visible characters, and a run of line
    breaks counts one, so ``"\\n\\n"`` before a block costs what its
    ``"\\n"`` did and the line break before the tail one more."""
    from mem_core.brief.tokens import estimate_tokens

    total = (head or 0) + sum(items)
    if tail:
        total += estimate_tokens(tail) + (1 if head is not None or items else 0)
    return total


def _fitted(mind_id: str, total: int, verified: int, views: Iterator[MemoryView], shown: int, store: str,
            budget: int) -> Summary:  # fmt: skip
    """The summary of ``shown`` memories (``views``, in order) within
    ``budget`` tokens: :func:`mem_core.memories.api.ContextSummary`'s text and
    the cut :func:`mem_core.brief.budget.fit` makes of it, reading the blocks
    only as far as needed (a test holds the two alike).

    The whole text fits when its estimate does; it cannot once the blocks
    read so far estimate above the budget (the estimate of blocks joined by
    blank lines is at least the sum of theirs), so reading stops there, or
    at the first block the greedy cut leaves out if that comes later."""
    from mem_core.brief.budget import more_line
    from mem_core.brief.tokens import estimate_tokens

    unverified = total - verified
    head = summary_head(mind_id, total, verified, unverified)
    read: list[MemoryView] = []
    items: list[str] = []  # "\n" + block, as fit() sees them
    costs: list[int] = []  # the estimate of each
    # every block starts and ends with a visible character (then the estimate
    # of the joined text is the sum of its parts', see _joined_tokens)
    joinable = True
    # the greedy cut (fit()'s one section, no title)
    reserve = estimate_tokens(more_line(shown, ["mem memories"])) + 1 if shown else 0
    head_cost = estimate_tokens("\n".join(head))
    kept_head = head
    used = head_cost
    if used + reserve > budget:
        kept_head, used = [], 0
    kept = 0
    greedy_open = True
    lower = 0  # the blocks' estimates so far: a lower bound of the whole text's
    for number, view in enumerate(views, 1):
        block = summary_block(number, view)
        joinable = joinable and not block[-1].isspace()
        item = "\n" + block
        read.append(view)
        items.append(item)
        cost = estimate_tokens(item)
        costs.append(cost)
        lower += cost - 1  # without the line break before the block
        if greedy_open:
            if used + cost + 1 + reserve <= budget:
                used += cost + 1
                kept += 1
            else:
                greedy_open = False
        if not greedy_open and lower > budget:
            break
        if number >= shown:
            break

    def tokens(with_head: bool, count: int, tail: str) -> int:
        if joinable:
            return _joined_tokens(head_cost if with_head else None, costs[:count], tail)
        return estimate_tokens("\n".join([*(head if with_head else []), *items[:count], *([tail] if tail else [])]))

    complete = len(read) == shown and (lower <= budget)
    if complete and tokens(True, shown, "") <= budget:
        return Summary(mind_id, total, verified, unverified, read, store, 0, budget, None)
    while True:
        cut = shown - kept
        tail = more_line(cut, ["mem memories"]) if cut else ""
        if tokens(bool(kept_head), kept, tail) <= budget:
            lines = [*kept_head, *items[:kept]]
            if tail:
                lines.append(tail)
            text = "\n".join(lines)
            break
        if kept:
            kept -= 1
        elif kept_head:
            kept_head = []
        else:  # not even the last line fits
            text = ""
            break
    return Summary(mind_id, total, verified, unverified, read[:kept], store, shown - kept, budget, text.lstrip("\n"))
