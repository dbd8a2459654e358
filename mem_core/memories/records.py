"""Structured memories as plain records: the vocabulary of the model, where the
stores live, and the rules every backend and the recall source share.

A *memory record* is a plain ``dict`` with exactly the spec's fields, in this
order (:data:`FIELDS`)::

    {"id": "mem_…", "category": "fact", "key": "office_city", "content": "…",
     "tags": ["berlin"], "priority": "normal", "source": "agent",
     "verified": False, "confidence": 0.7, "expires_at": None,
     "mind_id": "default", "created_at": "…Z", "updated_at": "…Z"}

Backends (:class:`~mem_core.plugin.MemoryStore`) take and return such
records; :mod:`mem_core.api.memories` validates input into them and wraps them
in its results (:mod:`mem_core.memories.results`). This module imports nothing heavy (no
pydantic, no sqlite3): the recall source uses it on the start-up path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from mem_core.files import MEMORY_DIR
from mem_core.memories.kinds import PRIORITIES
from mem_core.text import tokenize

if TYPE_CHECKING:
    from typing import Any

    from mem_core.settings import Settings

__all__ = [
    "PRIORITY_RANK",
    "FIELDS",
    "DEFAULT_MIND",
    "PROJECT_STORE_DIR",
    "MemoryFilter",
    "project_store_dir",
    "user_store_dir",
    "is_expired",
    "order_key",
    "sort_records",
    "recall_text",
    "recall_terms",
]

PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}
#: the fields of a memory record, in output order
FIELDS = (
    "id",
    "category",
    "key",
    "content",
    "tags",
    "priority",
    "source",
    "verified",
    "confidence",
    "expires_at",
    "mind_id",
    "created_at",
    "updated_at",
)
DEFAULT_MIND = "default"
#: the project store's directory, beside the journal and the Markdown notes
PROJECT_STORE_DIR = MEMORY_DIR


class MemoryFilter:
    """What a listing or a search keeps. ``None`` means "any".

    ``mind_id`` — one mind, or every mind when ``None``;
    ``category``, ``source``, ``priority`` — exact values;
    ``tag`` — a lower-cased tag the memory must carry;
    ``verified`` — ``True``/``False`` to keep only (un)verified memories;
    ``include_expired`` — keep memories whose ``expires_at`` is at or before
    ``now`` (they are left out otherwise);
    ``expires_before`` — keep only memories with an ``expires_at`` at or
    before this timestamp (the "expiring within" query);
    ``limit`` — at most this many, after ordering.
    """

    __slots__ = (
        "mind_id",
        "category",
        "tag",
        "source",
        "verified",
        "priority",
        "include_expired",
        "now",
        "expires_before",
        "limit",
    )

    def __init__(
        self,
        *,
        now: str,
        mind_id: str | None = None,
        category: str | None = None,
        tag: str | None = None,
        source: str | None = None,
        verified: bool | None = None,
        priority: str | None = None,
        include_expired: bool = False,
        expires_before: str | None = None,
        limit: int | None = None,
    ) -> None:
        self.now = now
        self.mind_id = mind_id
        self.category = category
        self.tag = tag
        self.source = source
        self.verified = verified
        self.priority = priority
        self.include_expired = include_expired
        self.expires_before = expires_before
        self.limit = limit

    def keeps(self, record: dict[str, Any]) -> bool:
        """Whether ``record`` passes every condition (``limit`` aside): the
        reference semantics a backend's query must match."""
        if self.mind_id is not None and record["mind_id"] != self.mind_id:
            return False
        if self.category is not None and record["category"] != self.category:
            return False
        if self.tag is not None and self.tag not in record["tags"]:
            return False
        if self.source is not None and record["source"] != self.source:
            return False
        if self.verified is not None and record["verified"] is not self.verified:
            return False
        if self.priority is not None and record["priority"] != self.priority:
            return False
        if not self.include_expired and is_expired(record, self.now):
            return False
        if self.expires_before is not None:
            expires = record["expires_at"]
            if expires is None or expires > self.expires_before:
                return False
        return True

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"MemoryFilter({shown})"


def fetched_rows(cursor: Any, errors: Callable[[], Any], size: int = 64) -> Iterator[Any]:
    """The rows of an executed database cursor, ``size`` at a time, each
    fetch inside ``errors()`` (the backend's mapping of driver errors): a
    reader that stops early has no more rows fetched."""
    while True:
        with errors():
            rows = cursor.fetchmany(size)
        if not rows:
            return
        yield from rows


def sql_conditions(
    where: MemoryFilter,
    mark: str,
    *,
    tag_clause: str,
    tag_value: Callable[[str], Any],
    verified_value: Callable[[bool], Any],
) -> tuple[list[str], list[Any]]:
    """The SQL conditions (on a memories table aliased ``m``) and their
    parameters that keep what ``where`` keeps, for a backend whose parameter
    mark is ``mark``. The backend says how a tag is tested (``tag_clause``
    with one mark, ``tag_value`` its parameter) and how it stores ``verified``.
    """
    conditions: list[str] = []
    params: list[Any] = []
    for column in ("mind_id", "category", "source", "priority"):
        value = getattr(where, column)
        if value is not None:
            conditions.append(f"m.{column} = {mark}")
            params.append(value)
    if where.verified is not None:
        conditions.append(f"m.verified = {mark}")
        params.append(verified_value(bool(where.verified)))
    if where.tag is not None:
        conditions.append(tag_clause)
        params.append(tag_value(where.tag))
    if not where.include_expired:
        conditions.append(f"(m.expires_at IS NULL OR m.expires_at > {mark})")
        params.append(where.now)
    if where.expires_before is not None:
        conditions.append(f"m.expires_at IS NOT NULL AND m.expires_at <= {mark}")
        params.append(where.expires_before)
    return conditions, params


def project_store_dir(project: str) -> str:
    """The project store's directory (``<project>/.bmad/memory``), refusing
    a path through a symbolic link or out of the project (docs/contract.md §8)."""
    from mem_core.files import safe_file

    return safe_file(project, PROJECT_STORE_DIR)


def user_store_dir(settings: Settings | None = None) -> str:
    """The user-level store's directory: the ``user_dir`` setting
    (``$MEM_USER_DIR``) if set, else platformdirs' user data directory for
    ``mem`` (e.g. ``~/.local/share/mem``); see :meth:`Settings.user_store_dir`."""
    if settings is None:
        from mem_core.settings import load_settings

        settings = load_settings()
    return settings.user_store_dir()


def is_expired(record: dict[str, Any], now: str) -> bool:
    """A memory is expired from the instant its ``expires_at`` is reached.

    Timestamps are all ``YYYY-MM-DDTHH:MM:SS.mmmZ``, so they compare as text.
    """
    expires = record["expires_at"]
    return expires is not None and expires <= now


def order_key(record: dict[str, Any]) -> tuple[Any, ...]:
    """Priority (critical first), then most recently updated, then category,
    key and mind for a total order. Use with :func:`sort_records`."""
    return (
        PRIORITY_RANK[record["priority"]],
        _Desc(record["updated_at"]),
        record["category"],
        record["key"],
        record["mind_id"],
    )


class _Desc:
    """Reverses the order of a string inside a sort key."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __lt__(self, other: _Desc) -> bool:
        return self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.value == other.value


def sort_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` in the context summary's order (see :func:`order_key`)."""
    return sorted(records, key=order_key)


def recall_text(record: dict[str, Any]) -> str:
    """The text ``mem recall`` scores a memory on: the key, the key's words
    (``user_name`` also as ``user name``), the content and the tags."""
    key = record["key"]
    parts = [key]
    if "_" in key:
        parts.append(key.replace("_", " "))
    parts.append(record["content"])
    if record["tags"]:
        parts.append(" ".join(record["tags"]))
    return "\n".join(parts)


def recall_terms(record: dict[str, Any]) -> list[str]:
    """The unique recall tokens (docs/contract.md §1) of :func:`recall_text`: a
    memory can score above zero in lexical recall only if one of them is a
    query token, so a backend may index them to preselect candidates."""
    return list(dict.fromkeys(tokenize(recall_text(record))))
