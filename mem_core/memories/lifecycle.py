"""The lifecycle of structured memories beyond storing one (structured-memory.md,
Lifecycle): a memory's versions brought back (``mem memories restore``), the
minds of a store (``mem minds``) and the check that a mind a reading command
names exists.

Like :mod:`mem_core.memories.api`, every function takes plain values,
validates them with a one-line ``MemError`` before a store is opened, and
returns a pydantic result whose ``to_json()`` is the command's JSON output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from mem_core.clock import now_iso
from mem_core.errors import MemError
from mem_core.memories.api import (
    Memory,
    StoreName,
    _judge,
    _not_found,
    _project_of,
    _store_name,
    _target,
    parse_mind,
    parse_ref,
    stated_by_human,
)
from mem_core.memories.core import content_of, read_content, require_mind
from mem_core.textsafe import escape as _visible

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore

__all__ = [
    "RestoreResult",
    "MindsResult",
    "restore",
    "list_minds",
    "require_mind",
    "parse_version",
    "content_of",
    "read_content",
]

#: the fields a restore brings back from a version
RESTORED = ("content", "tags", "priority", "confidence", "expires_at")


class RestoreResult(BaseModel):
    """The memory after :func:`restore`. JSON: ``{"memory", "restored",
    "changed"}`` (``restored``: the version brought back; ``changed`` false:
    the memory held that version's values already)."""

    memory: Memory
    version: int
    changed: bool
    store: StoreName

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory.to_json(), "restored": self.version, "changed": self.changed}


class MindsResult(BaseModel):
    """The minds of a store, by name. JSON: ``{"count", "minds": [{"name", "count"}]}``."""

    minds: list[tuple[str, int]]
    store: StoreName

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.minds), "minds": [{"name": name, "count": count} for name, count in self.minds]}


def parse_version(value: object, count: int) -> int:
    """A version number of a memory's history: 1 (its first) to ``count``."""
    text = value.strip() if isinstance(value, str) else value
    number = int(text) if isinstance(text, str) and text.isascii() and text.isdigit() else text
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        shown = _visible(str(value))[:40]
        raise MemError(f"version must be a number from 1 to {count} (see `mem memories history`; got '{shown}')")
    return number


def check_mind(
    store: MemoryStore | None, mind: str | None, mind_id: str, directory: str | None, kernel: Kernel | None, user: bool
) -> None:
    """:func:`require_mind` for a reading command, when its ``--mind`` was given."""
    if mind is None:
        return
    from mem_core.settings import project_settings

    require_mind(store, mind_id, project_settings(directory, kernel).default_mind, user)


def list_minds(*, user: bool = False, directory: str | None = None, kernel: Kernel | None = None) -> MindsResult:
    """Every mind of the project's (``user``: the user-level) store that holds
    a memory, with how many it holds (expired ones included), by name."""
    backend, directory_path, _mind = _target(kernel, user, directory, None)
    minds: list[tuple[str, int]] = []
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            minds = store.minds()
    return MindsResult(minds=minds, store=_store_name(user))


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
    :func:`mem_core.memories.api.memory_history`) of a memory: its content,
    tags, priority, confidence and expiry become the memory's again, stored
    by an agent (``source:"agent"``, unverified), ``updated_at`` now, and the
    history records a ``restore``. A forgotten memory (named by its id) comes
    back under its id, if its key is free. A memory a human stated, or a
    version a human stated, is refused: only a human can change it."""
    now = now or now_iso()
    memory_id, category, key = parse_ref(ref)
    parse_mind(mind)
    backend, directory_path, mind_id = _target(kernel, user, directory, mind)
    if not backend.exists(directory_path):
        raise _not_found(ref, mind_id, user)
    with backend.open(directory_path, create=False) as store, store.transaction():
        if memory_id is None:
            found = store.get_by_key(mind_id, category or "", key or "")
            memory_id = found["id"] if found else None
        entries = store.history(memory_id) if memory_id is not None else []
        if memory_id is None or not entries:
            raise _not_found(ref, mind_id, user)
        number = parse_version(version, len(entries))
        chosen = entries[number - 1]["memory"]
        current = store.get(memory_id)
        base = current if current is not None else entries[-1]["memory"]
        for stated in (base, chosen):
            if stated["source"] == "user":
                raise MemError(stated_by_human(stated))
        if current is not None and _judge(store, [current], directory, kernel)[0].source == "user":
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
        memory = _judge(store, [record], directory, kernel)[0]
    if changed and not user:
        from mem_core.brief.refresh import refresh_brief

        refresh_brief(_project_of(directory, kernel), kernel)
    return RestoreResult(memory=memory, version=number, changed=changed, store=_store_name(user))
