"""Moving structured memories between stores (structured-memory.md, Lifecycle
"Move"): ``mem memories export``, ``import`` and ``migrate``.

**The export format** is JSON Lines, one object per memory ever stored
(forgotten ones included), in the order the store first recorded them::

    {"id": "mem_…", "category": …, … "updated_at": …,   # the memory's fields
     "forgotten": false,                               # true: a tombstone ends its history
     "history": [{"action": "create", "at": "…", "memory": {…}}, …],
     "signatures": [{…}, …]}                           # the store's signatures, as it keeps them

A forgotten memory's fields are its last value. **Import** reads such a file
into any backend in one transaction, after checking every line (a bad line is
a one-line error naming it, and nothing is written): a memory whose id the
store knows already is left as it is (import is idempotent by id); every
other one is added with its history as it was and keeps its ``source``. Its
``verified`` is never taken from the file: it reads verified only when one of
its signatures (trust's rows ``{"memory_id", "by", "fingerprint",
"verified_at", "signature"}``, re-added to the store as they are) passes
:func:`mem_core.memories.trust.signature_verifies` with the keys trusted
where it is imported — and every read judges them again, like any other
signature row (structured-memory.md, Trust).

**Migrate** copies a project's (or the user-level) store to another backend
while holding the source's write transaction, checks the copy before it
commits (same memories, same content hashes, same history), and only then
selects the new backend in the config file; the old store is left as it
was, and the result says what to delete.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import TYPE_CHECKING, Any

from mem_core.api.backend import POSTGRES_MARKER, SQLITE_FILE
from mem_core.api.memories import resolve_target, store_name
from mem_core.errors import MemError
from mem_core.memories.kinds import ACTIONS, PRIORITIES, SOURCES
from mem_core.memories.records import FIELDS
from mem_core.memories.results import ExportResult, ImportResult, MigrateResult
from mem_core.memories.validate import (
    CONTENT_MAX_BYTES,
    is_memory_id,
    parse_category,
    parse_content,
    parse_key,
    parse_mind,
    parse_tags,
    read_bounded,
)
from mem_core.textsafe import escape as _visible

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore

__all__ = [
    "export_memories",
    "import_memories",
    "migrate_store",
    "memory_digest",
    "check_record",
    "check_signature_row",
    "IMPORT_MAX_BYTES",
]

#: the largest export ``mem memories import`` reads
IMPORT_MAX_BYTES = 1 << 30
#: the fields of an exported memory beyond the memory's own
EXTRA = ("forgotten", "history", "signatures")
#: the fields of a signature row (:mod:`mem_core.memories.trust`)
SIGNATURE_FIELDS = ("memory_id", "by", "fingerprint", "verified_at", "signature")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


# -- reading a store -----------------------------------------------------------------


def _items(store: MemoryStore) -> list[dict[str, Any]]:
    """Every memory of ``store`` as an export object (see the module's docstring)."""
    items = []
    for memory_id in store.known_ids():
        history = store.history(memory_id)
        if not history:
            continue
        current = store.get(memory_id)
        record = current if current is not None else history[-1]["memory"]
        items.append(
            {
                **{name: record[name] for name in FIELDS},
                "forgotten": current is None,
                "history": [{"action": e["action"], "at": e["at"], "memory": e["memory"]} for e in history],
                "signatures": store.signatures(memory_id),
            }
        )
    return items


def _line(item: dict[str, Any]) -> str:
    from mem_core.js.jsonfmt import dumps

    return dumps(item) + "\n"


def memory_digest(item: dict[str, Any]) -> str:
    """The SHA-256 of an export object without its ``verified`` (which a copy
    computes anew): what ``migrate`` compares between the stores."""
    from mem_core.js.jsonfmt import dumps

    kept = {name: value for name, value in item.items() if name != "verified"}
    return hashlib.sha256(dumps(kept).encode("utf-8", "surrogatepass")).hexdigest()


def export_memories(
    output: str | None = None,
    *,
    user: bool = False,
    directory: str | None = None,
    kernel: Kernel | None = None,
) -> ExportResult:
    """Every memory of the project's (``user``: the user-level) store with its
    history and signatures, as JSON Lines (``text``); with ``output``, also
    written to that file (replaced atomically)."""
    target = resolve_target(kernel, user, directory, None)
    backend, directory_path = target.backend, target.directory
    items: list[dict[str, Any]] = []
    location = None
    if backend.exists(directory_path):
        with backend.open_read_only(directory_path) as store:
            location = store.location
            items = _items(store)
    text = "".join(_line(item) for item in items)
    if output is not None:
        _write_file(output, text.encode("utf-8", "surrogatepass"))
    return ExportResult(
        text=text,
        memories=len(items),
        forgotten=sum(1 for item in items if item["forgotten"]),
        history=sum(len(item["history"]) for item in items),
        signatures=sum(len(item["signatures"]) for item in items),
        file=os.path.abspath(output) if output is not None else None,
        store=target.store,
        location=location,
    )


def _write_file(path: str, data: bytes) -> None:
    """``data`` into ``path``, atomically (:func:`mem_core.files.io.atomic_write`)."""
    from mem_core.files.io import atomic_write

    try:
        atomic_write(path, data)
    except OSError as exc:
        raise MemError(f"Cannot write {path}: {exc.strerror or exc}.") from None


# -- reading an export ---------------------------------------------------------------


def check_record(value: object, where: str) -> dict[str, Any]:
    """A memory record of an export (or of a ``server`` store's write, which
    the team server checks the same way), checked field by field."""
    if not isinstance(value, dict):
        raise MemError(f"{where}: a memory must be a JSON object")
    missing = [name for name in FIELDS if name not in value]
    if missing:
        raise MemError(f"{where}: missing field '{missing[0]}'")
    unknown = [name for name in value if name not in FIELDS]
    if unknown:
        raise MemError(f"{where}: unknown field '{_visible(str(unknown[0]))[:40]}'")
    try:
        memory_id = value["id"]
        if not isinstance(memory_id, str) or not is_memory_id(memory_id):
            raise MemError("id must be mem_ and 1-64 lower-case hex digits")
        parse_category(value["category"])
        parse_key(value["key"])
        content = value["content"]
        if not isinstance(content, str) or parse_content(content) != content:
            raise MemError(
                f"content must be non-empty text without surrounding space, at most {CONTENT_MAX_BYTES} bytes"
            )
        tags = value["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags) or parse_tags(tags) != tags:
            raise MemError("tags must be a list of distinct lower-case tags")
        if value["priority"] not in PRIORITIES:
            raise MemError("priority must be one of low, normal, high, critical")
        if value["source"] not in SOURCES:
            raise MemError("source must be user or agent")
        if not isinstance(value["verified"], bool):
            raise MemError("verified must be true or false")
        confidence = value["confidence"]
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
            raise MemError("confidence must be a number from 0 to 1")
        for name in ("expires_at", "created_at", "updated_at"):
            stamp = value[name]
            if (stamp is not None or name != "expires_at") and not (
                isinstance(stamp, str) and _TIMESTAMP.fullmatch(stamp)
            ):
                raise MemError(f"{name} must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
        if parse_mind(value["mind_id"]) != value["mind_id"]:
            raise MemError("mind_id must name a mind")
    except MemError as exc:
        raise MemError(f"{where}: {exc.message}") from None
    record = {name: value[name] for name in FIELDS}
    record["confidence"] = float(confidence) + 0.0
    record["tags"] = list(tags)
    return record


def check_signature_row(row: object, where: str) -> None:
    """A signature row as a store keeps it: its five fields, each non-empty text."""
    if not isinstance(row, dict) or set(row) != set(SIGNATURE_FIELDS):
        raise MemError(f"{where} must be an object of {', '.join(SIGNATURE_FIELDS)}")
    if not all(isinstance(row[field], str) and row[field] and "\x00" not in row[field] for field in SIGNATURE_FIELDS):
        raise MemError(f"{where}: every field must be non-empty text")


def _item(value: object, where: str) -> dict[str, Any]:
    """One line of an export, checked."""
    if not isinstance(value, dict):
        raise MemError(f"{where}: not a JSON object")
    unknown = [name for name in value if name not in FIELDS and name not in EXTRA]
    if unknown:
        raise MemError(f"{where}: unknown field '{_visible(str(unknown[0]))[:40]}'")
    missing = [name for name in EXTRA if name not in value]
    if missing:
        raise MemError(f"{where}: missing field '{missing[0]}'")
    record = check_record({name: value[name] for name in value if name in FIELDS}, where)
    forgotten = value["forgotten"]
    if not isinstance(forgotten, bool):
        raise MemError(f"{where}: forgotten must be true or false")
    history = value["history"]
    if not isinstance(history, list) or not history:
        raise MemError(f"{where}: history must be a non-empty list of versions")
    entries = []
    for number, entry in enumerate(history, 1):
        at = f"{where}: history[{number}]"
        if not isinstance(entry, dict) or set(entry) != {"action", "at", "memory"}:
            raise MemError(f"{at} must be an object of action, at and memory")
        if entry["action"] not in ACTIONS:
            raise MemError(f"{at}: action must be one of {', '.join(ACTIONS)}")
        if not isinstance(entry["at"], str) or not _TIMESTAMP.fullmatch(entry["at"]):
            raise MemError(f"{at}: at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
        memory = check_record(entry["memory"], at)
        if memory["id"] != record["id"]:
            raise MemError(f"{at}: the version is of another memory ({memory['id']})")
        entries.append({"action": entry["action"], "at": entry["at"], "memory": memory})
    if forgotten != (entries[-1]["action"] == "delete"):
        raise MemError(f"{where}: a forgotten memory's history ends with its delete, and only then")
    signatures = value["signatures"]
    if not isinstance(signatures, list):
        raise MemError(f"{where}: signatures must be a list of objects")
    for number, row in enumerate(signatures, 1):
        check_signature_row(row, f"{where}: signatures[{number}]")
        if row["memory_id"] != record["id"]:
            raise MemError(f"{where}: signatures[{number}]: the signature is of another memory "
                           f"({_visible(row['memory_id'])[:40]})")  # fmt: skip
    return {**record, "forgotten": forgotten, "history": entries, "signatures": signatures}


def _read_items(name: str, data: bytes) -> list[dict[str, Any]]:
    """Every memory of an export's bytes, each line checked; ids and (mind,
    category, key) of the memories that are not forgotten unique."""
    import json

    items: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    keys: dict[tuple[str, str, str], int] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        where = f"{name} line {number}"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MemError(f"{where}: not UTF-8 text") from None
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise MemError(f"{where}: not JSON ({str(exc).split(':')[0]})") from None
        item = _item(value, where)
        if item["id"] in ids:
            raise MemError(f"{where}: {item['id']} is already on line {ids[item['id']]}")
        ids[item["id"]] = number
        if not item["forgotten"]:
            slot = (item["mind_id"], item["category"], item["key"])
            if slot in keys:
                raise MemError(f"{where}: {item['category']}/{item['key']} is already on line {keys[slot]}")
            keys[slot] = number
        item["line"] = number
        items.append(item)
    return items


def _read_input(path: str | None) -> tuple[str, bytes]:
    name, data = read_bounded(path, IMPORT_MAX_BYTES)
    if len(data) > IMPORT_MAX_BYTES:
        raise MemError(f"{name} is larger than {IMPORT_MAX_BYTES} bytes; split it")
    return name, data


def _verified(record: dict[str, Any], signatures: list[dict[str, Any]], keys: Any) -> bool:
    """Whether a signature row proves a trusted human's word over ``record``
    as it is (a ``terminal`` row counts only where no key is trusted, as on
    every read)."""
    from mem_core.memories.trust import TERMINAL, signature_verifies

    if keys and all(row["fingerprint"] == TERMINAL for row in signatures):
        return False
    return any(signature_verifies(record, row, keys=keys) for row in signatures)


def _bring_in(store: MemoryStore, items: list[dict[str, Any]], name: str, project: str | None) -> dict[str, int]:
    """Add ``items`` to ``store`` inside its open transaction (see
    :func:`import_memories`); the counts of what happened. ``project``: where
    the keys that judge the signatures are trusted."""
    keys: Any = None
    if any(item["signatures"] for item in items):
        from mem_core.humans.keys import trusted_keys

        keys = trusted_keys(project)
    counts = {"imported": 0, "forgotten": 0, "already": 0, "different": 0, "signatures": 0, "unverified": 0}
    for item in items:
        record = {field: item[field] for field in FIELDS}
        if store.id_known(item["id"]):
            counts["already"] += 1
            current = store.get(item["id"])
            was = [{"action": e["action"], "at": e["at"], "memory": e["memory"]} for e in store.history(item["id"])]
            same = (current is None) == item["forgotten"] and was == item["history"]
            if current is not None:
                same = same and {**current, "verified": False} == {**record, "verified": False}
            counts["different"] += not same
            continue
        if not item["forgotten"]:
            holder = store.get_by_key(item["mind_id"], item["category"], item["key"])
            if holder is not None:
                raise MemError(
                    f"{name} line {item.get('line', '?')}: {item['category']}/{item['key']} in mind "
                    f"{_visible(item['mind_id'])} is another memory in this store ({holder['id']}); nothing was imported"
                )
        record["verified"] = bool(item["signatures"]) and _verified(record, item["signatures"], keys)
        counts["unverified"] += item["verified"] and not record["verified"] and not item["forgotten"]
        store.import_memory(record, item["history"], forgotten=item["forgotten"])
        for signature in item["signatures"]:
            store.add_signature(dict(signature))
        counts["imported"] += 1
        counts["forgotten"] += item["forgotten"]
        counts["signatures"] += len(item["signatures"])
    return counts


def import_memories(
    path: str | None,
    *,
    user: bool = False,
    directory: str | None = None,
    kernel: Kernel | None = None,
) -> ImportResult:
    """Read an export (``path``, or stdin when ``None``) into the project's
    (``user``: the user-level) store, in one transaction (see the module's
    docstring). A bad line is a one-line error naming it; nothing is written."""
    name, data = _read_input(path)
    items = _read_items(name, data)
    target = resolve_target(kernel, user, directory, None)
    backend, directory_path = target.backend, target.directory
    from mem_core.kernel import project_settings

    project = project_settings(directory, kernel).project
    counts = {"imported": 0, "forgotten": 0, "already": 0, "different": 0, "signatures": 0, "unverified": 0}
    location = None
    if items:
        with backend.open(directory_path, create=True) as store:
            location = store.location
            with store.transaction():
                counts = _bring_in(store, items, name, project)
        if counts["imported"] and not user:
            from mem_core.api.refresh import refresh_brief

            refresh_brief(project, kernel)
    return ImportResult(**counts, store=target.store, location=location, file=name)


# -- migrate ---------------------------------------------------------------------------


def _shell_files(directory: str) -> set[str]:
    try:
        return {name for name in os.listdir(directory) if name.startswith("memories")}
    except FileNotFoundError:
        return set()


def migrate_store(
    to: str,
    *,
    user: bool = False,
    directory: str | None = None,
    kernel: Kernel | None = None,
) -> MigrateResult:
    """Move the project's (``user``: the user-level) store to the backend
    ``to`` (see the module's docstring). Refused, changing nothing, when the
    store is that backend already, when there is no store, when ``to`` holds
    a store there already, or when the copy does not check."""
    from mem_core.api.backend import choose_store
    from mem_core.api.configure import set_config
    from mem_core.kernel import resolve
    from mem_core.memories.records import project_store_dir

    kernel, settings = resolve(directory, kernel)
    stores = kernel.stores
    if to not in stores:
        raise MemError(f"--to must be one of: {', '.join(stores.names())} (got '{_visible(to)[:40]}')")
    directory_path = settings.user_store_dir() if user else project_store_dir(settings.project)
    source_backend = choose_store(settings, stores, directory_path, user=user)
    where = f"the {store_name(user)} store"
    if source_backend.name == to:
        raise MemError(f"{where} is {to} already; nothing to migrate")
    if not source_backend.exists(directory_path):
        raise MemError(f"{where} has no memories yet ({directory_path}); nothing to migrate")
    target_backend = stores.get(to).configure(settings)
    if target_backend.exists(directory_path):
        raise MemError(f"{directory_path} holds a {to} store already; move it away first")
    before = _shell_files(directory_path)
    with source_backend.open(directory_path, create=False) as source, source.transaction():
        items = _items(source)
        try:
            with target_backend.open(directory_path, create=True) as target:
                with target.transaction():
                    if target.known_ids():
                        raise MemError(f"the {to} store of {directory_path} ({target.location}) holds memories already")
                    counts = _bring_in(target, items, source.location, settings.project)
                    copied = _items(target)  # read back inside the transaction: it commits only if it checks
                    _check_copy(items, copied, target.location)
                target_location = target.location
        except BaseException:
            for name in _shell_files(directory_path) - before:  # what opening the target created, and only that
                try:
                    os.unlink(os.path.join(directory_path, name))
                except OSError:
                    pass
            raise
        source_location = source.location
        config = set_config("store", to, user=user, directory=settings.project)
    digest = hashlib.sha256("".join(memory_digest(item) for item in items).encode("ascii")).hexdigest()
    note = None
    if settings.layer("store") == "env":
        note = f"MEM_STORE still selects {settings.store} in this environment: change it to {to}"
    return MigrateResult(
        source_backend=source_backend.name,
        target_backend=to,
        memories=len(items) - counts["forgotten"],
        forgotten=counts["forgotten"],
        history=sum(len(item["history"]) for item in items),
        signatures=counts["signatures"],
        digest=digest,
        unverified=counts["unverified"],
        config=config.file,
        source=source_location,
        target=target_location,
        delete=_leftovers(source_backend.name, directory_path, source_location),
        note=note,
        store=store_name(user),
    )


def _check_copy(items: list[dict[str, Any]], copied: list[dict[str, Any]], location: str) -> None:
    """Refuse a copy that differs from the source: the same memories in the
    same order, each with the same content hash (its fields but ``verified``,
    its history, its signatures)."""
    if len(copied) != len(items):
        raise MemError(f"the copy in {location} holds {len(copied)} memories, not {len(items)}; nothing was changed")
    for mine, theirs in zip(items, copied, strict=True):
        if memory_digest({k: v for k, v in mine.items() if k != "line"}) != memory_digest(theirs):
            raise MemError(f"the copy of {mine['id']} in {location} differs from the original; nothing was changed")


def _leftovers(backend: str, directory: str, location: str) -> list[str]:
    """What the old store is, for the person to delete."""
    if backend == "sqlite":
        base = os.path.join(directory, SQLITE_FILE)
        return [path for path in (base, base + "-wal", base + "-shm") if os.path.exists(path)]
    if backend == "postgres":
        return [os.path.join(directory, POSTGRES_MARKER), location]
    return [location]
