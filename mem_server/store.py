"""The store routes: what the ``server`` memory store of a client
(:mod:`mem_plugins.stores.server`) asks of the team server.

The client runs ``mem_core``'s own code (validation, trust, the rules of
``remember``/``forget``/``verify``) against a :class:`~mem_core.plugin.MemoryStore`
whose reads and writes are these requests; the server serves them from the
store it serves, which the ``/v1/memory`` routes serve too:

``POST /v1/store/read``
    one store read (``{"read": {"op", "args"}}``), answered with its result
    and the result's digest. Inside a client's transaction the body also
    carries the transaction's ``steps`` so far: the server applies them in a
    store transaction, answers the read, and rolls back — the client reads
    its own writes, and nothing is kept.
``POST /v1/store/lock`` and ``/v1/store/unlock``
    the client's transaction: a *lease* (15 s, renewed by every read under
    it) in the server's database, so that the transactions of every
    client, through every replica, take turns (:meth:`MemoryStore.transaction`
    is exclusive). The lease is about turns, not about safety: see commit.
``POST /v1/store/commit``
    the transaction's ``steps`` — its writes and the reads it made, each read
    with the digest of what it answered — replayed in order in one store
    transaction. A read whose answer differs now (a writer outside the lease:
    the ``/v1/memory`` routes, a lease that expired) refuses the whole commit
    with 409 and nothing changed; every write is checked as an export's
    record is, and authorised (below); each is appended to the audit log.

An agent key reads and writes its own mind only (naming another is 403; a
memory of another mind reads as missing), stores ``source:"agent"`` only,
never changes or forgets what a human stated or confirmed (as the server's
trust list judges its signatures), and never verifies, signs, imports or
exports: those are a human session's (403 with the CLI's one-line message).
``verified`` is never taken from a client: the store keeps the column, and
every reader computes it from signatures by the keys it trusts.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError
from mem_server.credentials import Refused
from mem_server.replica import TIMESTAMP, Call, about

if TYPE_CHECKING:
    from mem_core.plugin import MemoryStore

__all__ = ["store_read", "store_commit", "store_lock", "store_unlock", "LEASE_MS", "STEPS_MAX"]

#: how long a transaction's lease lasts without a request under it
LEASE_MS = 15_000
#: how long one lock request waits for the lease before answering 409 (the client asks again)
LOCK_WAIT_SECONDS = 5.0
#: the most steps one transaction may carry
STEPS_MAX = 4096
_LEASE = "memories"
_BUSY = "the memory store is in another client's transaction; try again"

READS = frozenset({"get", "get_by_key", "id_known", "history", "query", "count", "signed", "search", "search_count",
                   "recall_candidates", "minds", "known_ids", "signatures", "signatures_of"})  # fmt: skip
WRITES = frozenset({"insert", "update", "delete", "add_signature", "drop_signatures", "import_memory"})
_FILTER = ("mind_id", "category", "tag", "source", "verified", "priority", "include_expired", "now",
           "expires_before", "limit")  # fmt: skip


# -- arguments ------------------------------------------------------------------------


def _arg(args: dict[str, Any], name: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
    value = args.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise Refused(400, f"store argument {name} is missing or of the wrong type")
    if isinstance(value, str) and len(value) > 64 * 1024:
        raise Refused(400, f"store argument {name} is too long")
    return value


def _words(args: dict[str, Any], name: str) -> list[str]:
    value = args.get(name)
    if (
        not isinstance(value, list)
        or len(value) > 1024
        or not all(isinstance(v, str) and len(v) <= 2048 for v in value)
    ):
        raise Refused(400, f"store argument {name} must be a list of strings")
    return value


def _where(call: Call, args: dict[str, Any]) -> Any:
    """The ``MemoryFilter`` of a query, kept to an agent key's mind."""
    from mem_core.memories.records import MemoryFilter

    raw = args.get("where")
    if not isinstance(raw, dict) or set(raw) - set(_FILTER) or not isinstance(raw.get("now"), str):
        raise Refused(400, f"store argument where must be an object of {', '.join(_FILTER)}")
    for name in ("mind_id", "category", "tag", "source", "priority", "expires_before"):
        if raw.get(name) is not None and not (isinstance(raw[name], str) and len(raw[name]) <= 1024):
            raise Refused(400, f"store argument where.{name} must be a string")
    if raw.get("verified") is not None and not isinstance(raw["verified"], bool):
        raise Refused(400, "store argument where.verified must be true or false")
    limit = raw.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise Refused(400, "store argument where.limit must be a whole number")
    where = MemoryFilter(**{name: raw[name] for name in _FILTER if raw.get(name) is not None})
    where.include_expired = raw.get("include_expired") is True
    where.mind_id = call.mind(where.mind_id) if call.agent is not None else where.mind_id
    return where


def _own(call: Call, record: dict[str, Any] | None) -> dict[str, Any] | None:
    """``record``, or ``None`` when it is of a mind an agent key may not read."""
    agent = call.agent
    if record is None or agent is None or record["mind_id"] == agent.mind:
        return record
    return None


# -- reads ------------------------------------------------------------------------------


def _read(call: Call, store: MemoryStore, op: str, args: dict[str, Any]) -> Any:
    agent = call.agent
    if op == "get":
        return _own(call, store.get(_arg(args, "memory_id", str)))
    if op == "get_by_key":
        mind = call.mind(_arg(args, "mind_id", str))
        return store.get_by_key(mind, _arg(args, "category", str), _arg(args, "key", str))
    if op == "id_known":
        return store.id_known(_arg(args, "memory_id", str))
    if op == "history":
        entries = store.history(_arg(args, "memory_id", str))
        if agent is not None and any(e["memory"]["mind_id"] != agent.mind for e in entries):
            return []
        return entries
    if op in ("query", "count", "signed"):
        return getattr(store, op)(_where(call, args))
    if op in ("search", "search_count"):
        return getattr(store, op)(_words(args, "words"), _where(call, args))
    if op == "recall_candidates":
        tokens = None if args.get("tokens") is None else _words(args, "tokens")
        found = store.recall_candidates(tokens, now=_arg(args, "now", str))
        return [r for r in found if _own(call, r) is not None]
    if op == "minds":
        minds = store.minds()
        return [[name, count] for name, count in minds if agent is None or name == agent.mind]
    if op == "known_ids":
        if agent is not None:
            raise Refused(403, "only a human may export the whole store; an agent key never can")
        return store.known_ids()
    if op == "signatures":
        memory_id = _arg(args, "memory_id", str)
        return store.signatures(memory_id) if agent is None or _visible(store, call, memory_id) else []
    if op == "signatures_of":
        ids = _words(args, "memory_ids")
        if agent is not None:
            ids = [memory_id for memory_id in ids if _visible(store, call, memory_id)]
        return store.signatures_of(ids) if ids else {}
    raise Refused(400, f"unknown store read {op[:40]!r}")


def _visible(store: MemoryStore, call: Call, memory_id: str) -> bool:
    return _own(call, store.get(memory_id)) is not None


def digest(op: str, result: Any) -> str:
    """The digest of a read's answer, as the client receives it. A history's
    ``seq`` numbers are left out: a database sequence (PostgreSQL's) is not
    rolled back, so the same writes replayed number their versions anew;
    the versions' order is in the list."""
    from mem_core.js.jsonfmt import dumps

    if op == "history":
        result = [{name: value for name, value in entry.items() if name != "seq"} for entry in result]
    return hashlib.sha256(dumps(result).encode("utf-8")).hexdigest()


# -- writes ------------------------------------------------------------------------------


def _timestamp(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        raise Refused(400, f"store argument {name} must be a timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
    return value


def _record(args: dict[str, Any], name: str = "record") -> dict[str, Any]:
    from mem_core.api.transfer import check_record

    try:
        return check_record(args.get(name), f"store argument {name}")
    except MemError as exc:
        raise Refused(400, str(exc)) from None


def _human_only(call: Call, what: str) -> None:
    if call.agent is not None:
        raise Refused(403, f"an agent key cannot {what}: only a human can (log in with mem human login URL)")


def _stated(call: Call, store: MemoryStore, current: dict[str, Any]) -> bool:
    """Whether a human stated or confirmed ``current``, as the server's trust
    list judges its signatures (or as its columns say)."""
    from mem_core.api.memories import judge

    judged = judge(store, [current], call.server.config.project)[0]
    return bool(current["source"] == "user" or current["verified"] or judged["source"] == "user" or judged["verified"])


def _judged_source(call: Call, store: MemoryStore, current: dict[str, Any]) -> str:
    from mem_core.api.memories import judge

    return str(judge(store, [current], call.server.config.project)[0]["source"])


def _write(call: Call, store: MemoryStore, op: str, args: dict[str, Any], touched: set[str]) -> None:
    from mem_core.api.memories import stated_by_human

    agent = call.agent
    if op in ("insert", "update"):
        record = _record(args)
        at = _timestamp(args, "at")
        action = args.get("action", "create" if op == "insert" else None)
        allowed = ("create", "restore") if op == "insert" else ("update", "verify", "restore")
        if not isinstance(action, str) or action not in allowed:
            raise Refused(400, f"store argument action of {op} must be one of {', '.join(allowed)}")
        if agent is not None:
            call.mind(record["mind_id"])
            if action == "verify":
                _human_only(call, "verify a memory")
            if record["source"] != "agent" or record["verified"]:
                _human_only(call, "store a memory as the user or verified")
            if op == "insert" and store.id_known(record["id"]):
                # a forgotten memory brought back: of this mind only (its history is another mind's otherwise)
                if any(e["memory"]["mind_id"] != agent.mind for e in store.history(record["id"])):
                    raise Refused(403, f"the agent key {agent.id} is for the mind {agent.mind} only")
            current = store.get(record["id"]) if op == "update" else None
            if current is not None:
                call.mind(current["mind_id"])
                if current["source"] == "user" or _judged_source(call, store, current) == "user":
                    raise Refused(403, stated_by_human(current))
        if op == "insert":
            store.insert(record, at=at, action=action)
        else:
            store.update(record, action=action, at=at)
        touched.add(record["id"])
        call.record(f"memory.{action}", f"memory:{record['id']}", {**about(record), "via": "store"})
    elif op == "delete":
        memory_id = _arg(args, "memory_id", str)
        at = _timestamp(args, "at")
        current = store.get(memory_id)
        if agent is not None and current is not None:
            call.mind(current["mind_id"])
            if _stated(call, store, current):
                raise Refused(403, f"{current['category']}/{current['key']} was confirmed by a human; "
                                   "only a human can forget it")  # fmt: skip
        store.delete(memory_id, at=at)
        touched.add(memory_id)
        if current is not None:
            call.record("memory.delete", f"memory:{memory_id}", {**about(current), "via": "store"})
    elif op == "drop_signatures":
        memory_id = _arg(args, "memory_id", str)
        if agent is not None and memory_id not in touched:
            _human_only(call, "remove a memory's signatures without changing it")
        store.drop_signatures(memory_id)
    elif op == "add_signature":
        from mem_core.api.transfer import check_signature_row

        _human_only(call, "sign a memory (verify, or store as the user)")
        row = args.get("signature")
        try:
            check_signature_row(row, "store argument signature")
        except MemError as exc:
            raise Refused(400, str(exc)) from None
        assert isinstance(row, dict)
        store.add_signature(row)
        call.record("memory.sign", f"memory:{row['memory_id']}", {"by": row["by"], "fingerprint": row["fingerprint"],
                                                                  "via": "store"})  # fmt: skip
    elif op == "import_memory":
        _human_only(call, "import memories")
        record = _record(args)
        history = args.get("history")
        if not isinstance(history, list) or not history or len(history) > STEPS_MAX:
            raise Refused(400, "store argument history must be a non-empty list of versions")
        entries = []
        from mem_core.memories.kinds import ACTIONS

        for number, entry in enumerate(history, 1):
            if (
                not isinstance(entry, dict)
                or set(entry) != {"action", "at", "memory"}
                or entry["action"] not in ACTIONS
            ):
                raise Refused(400, f"store argument history[{number}] must be an object of action, at and memory")
            memory = _record(entry, "memory")
            if memory["id"] != record["id"]:
                raise Refused(400, f"store argument history[{number}] is of another memory")
            entries.append({"action": entry["action"], "at": _timestamp(entry, "at"), "memory": memory})
        forgotten = _arg(args, "forgotten", bool)
        store.import_memory(record, entries, forgotten=forgotten)
        touched.add(record["id"])
        call.record("memory.import", f"memory:{record['id']}", {**about(record), "via": "store"})
    else:
        raise Refused(400, f"unknown store write {op[:40]!r}")


# -- the routes --------------------------------------------------------------------------


class _Rollback(Exception):
    """Ends a transaction that only served a read."""


def _steps(call: Call) -> list[dict[str, Any]]:
    steps = call.body.get("steps", [])
    if not isinstance(steps, list) or len(steps) > STEPS_MAX:
        raise Refused(400, f"steps must be a list of at most {STEPS_MAX} store operations")
    for step in steps:
        if not isinstance(step, dict) or not isinstance(step.get("op"), str) or not isinstance(step.get("args"), dict):
            raise Refused(400, "a step is an object of op and args")
        if step["op"] in READS and not isinstance(step.get("digest"), str):
            raise Refused(400, "a read step carries the digest of its answer")
        if step["op"] not in READS | WRITES:
            raise Refused(400, f"unknown store operation {step['op'][:40]!r}")
    return steps


def _replay(call: Call, store: MemoryStore, steps: list[dict[str, Any]]) -> None:
    if call.agent is not None and call.agent.read_only and any(s["op"] in WRITES for s in steps):
        raise Refused(403, f"the agent key {call.agent.id} is read-only")
    touched: set[str] = set()
    for step in steps:
        if step["op"] in READS:
            if digest(step["op"], _read(call, store, step["op"], step["args"])) != step["digest"]:
                raise Refused(409, "the memory store changed during this transaction (another writer); "
                                   "nothing was changed, try again")  # fmt: skip
        else:
            _write(call, store, step["op"], step["args"], touched)


def _open(call: Call) -> Any:
    from mem_core.api.memories import resolve_target

    target = resolve_target(call.server.kernel, False, call.server.config.project, None)
    return target.backend.open(target.directory, create=True)


def _now_ms() -> int:
    return int(time.time() * 1000)  # the lease runs on the wall clock: MEM_NOW pins only what is recorded


def _held(call: Call, lease: object, *, renew: bool) -> None:
    """Refuse a ``lease`` that is not the store's now; ``renew``: extend it."""
    if not isinstance(lease, str) or len(lease) > 100:
        raise Refused(400, "lease must be the token /v1/store/lock answered")
    with call.server.db.transaction() as cursor:
        held = cursor.one("SELECT until_ms FROM mem_srv_store_lease WHERE name = ? AND holder = ?", (_LEASE, lease))
        if held is None or int(held[0]) <= _now_ms():
            raise Refused(409, "the transaction's lease on the memory store ended; nothing was changed, try again")
        if renew:
            cursor.run(
                "UPDATE mem_srv_store_lease SET until_ms = ? WHERE name = ? AND holder = ?",
                (_now_ms() + LEASE_MS, _LEASE, lease),
            )


def store_read(call: Call) -> Any:
    read = call.body.get("read")
    if not isinstance(read, dict) or set(read) != {"op", "args"} or read["op"] not in READS:
        raise Refused(400, f"read must be an object of op (one of {', '.join(sorted(READS))}) and args")
    if not isinstance(read["args"], dict):
        raise Refused(400, "read.args must be an object")
    from mem_server.client import steps_for_read

    steps = steps_for_read(_steps(call), read["op"], read["args"])
    lease = call.body.get("lease")
    if lease is not None:
        _held(call, lease, renew=False)
    with _open(call) as store:
        if not steps:
            result = _read(call, store, read["op"], read["args"])
        else:
            try:
                with store.transaction():
                    _replay(call, store, steps)
                    result = _read(call, store, read["op"], read["args"])
                    raise _Rollback
            except _Rollback:
                pass
    call.audit.clear()  # nothing was kept
    if lease is not None:
        _held(call, lease, renew=True)  # only once served: a refused request changes nothing
    return {"result": result, "digest": digest(read["op"], result)}


def store_commit(call: Call) -> Any:
    steps = _steps(call)
    lease = call.body.get("lease")
    _held(call, lease, renew=False)
    with _open(call) as store, store.transaction():
        _replay(call, store, steps)
    _release(call, lease)  # refused, a commit changes nothing: the client gives the lease back (unlock)
    return {"committed": len(steps)}


def store_lock(call: Call) -> Any:
    token = "lease_" + secrets.token_hex(16)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        with call.server.db.transaction() as cursor:
            cursor.run("INSERT INTO mem_srv_store_lease (name, holder, until_ms) VALUES (?, '', 0) "
                       "ON CONFLICT (name) DO NOTHING", (_LEASE,))  # fmt: skip
            now = _now_ms()
            # one statement that checks and takes: of two replicas racing, PostgreSQL re-checks the
            # second's condition once the first commits (and SQLite's writers take turns), so one wins
            taken = cursor.run("UPDATE mem_srv_store_lease SET holder = ?, until_ms = ? WHERE name = ? "
                               "AND until_ms <= ? RETURNING holder", (token, now + LEASE_MS, _LEASE, now))  # fmt: skip
            if taken:
                return {"lease": token, "seconds": LEASE_MS / 1000}
        if time.monotonic() > deadline:
            raise Refused(409, _BUSY)
        time.sleep(0.02)


def _release(call: Call, lease: object) -> None:
    with call.server.db.transaction() as cursor:
        cursor.run("UPDATE mem_srv_store_lease SET holder = '', until_ms = 0 WHERE name = ? AND holder = ?",
                   (_LEASE, lease))  # fmt: skip


def store_unlock(call: Call) -> Any:
    lease = call.body.get("lease")
    if not isinstance(lease, str) or len(lease) > 100:
        raise Refused(400, "lease must be the token /v1/store/lock answered")
    _release(call, lease)
    return {"released": True}
