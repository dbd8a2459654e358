"""The team server's ASGI application: JSON over HTTP under ``/v1``
(docs/server.md has every route, who may call it and its statuses).

Every request runs the same steps, in a worker thread (the ``mem_core``
functions are synchronous):

1. the body is read up to :data:`BODY_MAX` bytes (413 beyond) and must be a
   JSON object of the route's fields (400 otherwise);
2. one database transaction authenticates the credential (401), checks the
   route's rule for it (403), charges an agent key's rate counter (429) and
   reads the server's trust list of humans;
3. the route calls the ``mem_core`` function the command line calls, with
   :func:`mem_core.humans.keys.serving_trust` making the server's humans the
   only trusted keys, so ``verified`` is computed from their signatures;
4. a change is appended to the audit log (:mod:`mem_server.audit`).

Errors are ``{"error": "<one line>"}`` with the status; a database that
cannot be reached is 503; anything unexpected is 500 with a generic line (the
traceback goes to the server's log, never to the client).
"""

from __future__ import annotations

import base64
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError, TryAgain
from mem_server import audit
from mem_server.credentials import (
    AgentKey,
    HumanSession,
    Refused,
    authenticate,
    charge_rate,
    create_key,
    login,
    new_challenge,
    register_human,
    revoke_key,
    trust_list,
)
from mem_server.db import Unavailable
from mem_server.replica import (
    TIMESTAMP,
    UNAVAILABLE,
    Call,
    Json,
    Server,
    ServerConfig,
    SessionHuman,
    about,
    memory_at,
)

__all__ = ["ServerConfig", "create_app", "BODY_MAX", "ROUTES"]

log = logging.getLogger("mem.serve")

#: the largest request body accepted (a memory's content is at most 16 KiB of
#: UTF-8; JSON escapes can make that six times longer)
BODY_MAX = 128 * 1024
#: the largest body of a store transaction's requests (its writes: a migrated store's memories)
STORE_BODY_MAX = 8 * 1024 * 1024
#: the longest query parameter value accepted
PARAM_MAX = 2048
#: how far a human's signed timestamp may be from the server's clock
SIGNED_AT_SLACK_MS = 15 * 60 * 1000


# -- a route ---------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """Who may call a route: ``public`` (anyone), ``read`` (any agent key or
    human), ``write`` (an agent key that is not read-only, or a human),
    ``human`` (a human session only)."""

    name: str


PUBLIC, READ, WRITE, HUMAN = Rule("public"), Rule("read"), Rule("write"), Rule("human")


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    rule: Rule
    function: Callable[[Call], Any]
    summary: str
    fields: tuple[str, ...] = ()
    status: int = 200
    #: the largest body this route reads (a store transaction carries its writes)
    body_max: int = BODY_MAX


# -- body and parameter validation --------------------------------------------------


def _string(body: dict[str, Any], name: str, *, required: bool = False, limit: int = 64 * 1024) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise Refused(400, f"{name} is required")
        return None
    if not isinstance(value, str):
        raise Refused(400, f"{name} must be a string")
    if len(value) > limit:
        raise Refused(400, f"{name} is at most {limit} characters")
    return value


def _bool(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise Refused(400, f"{name} must be true or false")
    return value


def _tags(body: dict[str, Any]) -> list[str] | str | None:
    value = body.get("tags")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) <= 64 and all(isinstance(t, str) and len(t) <= 256 for t in value):
        return value
    raise Refused(400, "tags must be a list of strings or one comma-separated string")


def _confidence(body: dict[str, Any]) -> float | str | None:
    value = body.get("confidence")
    if value is None or isinstance(value, str) and len(value) <= 64:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise Refused(400, "confidence must be a number from 0 to 1")


def _signed_at(value: object, now: str) -> str:
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        raise Refused(400, "signedAt must be a timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
    signed, current = parse_ms(value), parse_ms(now)
    if signed is None or current is None:
        raise Refused(400, "signedAt must be a timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
    if abs(signed - current) > SIGNED_AT_SLACK_MS:
        raise Refused(400, "signedAt is more than 15 minutes from the server's clock; sign again")
    return value


class _Presigned:
    """A human key's signature made on the human's machine, standing in for
    the key where ``mem_core`` signs: it hands over the signature only if it
    is the trusted key's over exactly the bytes ``mem_core`` would sign (the
    memory as it is when the transaction writes it)."""

    def __init__(self, key: Any, signature: object) -> None:
        if not isinstance(signature, str) or len(signature) > 200:
            raise Refused(400, "signature must be the base64 Ed25519 signature of the human key")
        try:
            self._raw = base64.b64decode(signature, validate=True)
        except ValueError:
            raise Refused(400, "signature must be the base64 Ed25519 signature of the human key") from None
        self._key = key
        self.name = key.name
        self.fingerprint = key.fingerprint

    def sign(self, data: bytes) -> bytes:
        from cryptography.exceptions import InvalidSignature

        try:
            self._key.verifier().verify(self._raw, data)
        except InvalidSignature:
            raise Refused(
                409,
                "the human signature does not cover this memory as it is now (mind, category, key, content, "
                "signedAt, by); read it again and sign what you read; nothing was changed.",
            ) from None
        return self._raw


def _human_key(call: Call) -> Any:
    from mem_core.humans.keys import trusted_keys

    session = call.human
    assert session is not None
    key = trusted_keys(None).get(session.fingerprint)
    if key is None:
        raise Refused(401, f"the human {session.human} is no longer trusted by this server")
    return key


# -- memories ------------------------------------------------------------------------

_REMEMBER_FIELDS = ("category", "key", "content", "tags", "priority", "confidence", "expires", "noTags",
                    "noExpiry", "mind", "asUser", "signedAt", "signature")  # fmt: skip


def _remember(call: Call, category: str, key: str, mind: str, body: dict[str, Any]) -> Any:
    from mem_core.api.memories import remember

    content = _string(body, "content", required=True)
    as_user = _bool(body, "asUser")
    signer = None
    now = call.now
    if as_user:
        if call.human is None:
            raise Refused(403, "an agent key cannot store as the user: only a human's signature can")
        now = _signed_at(body.get("signedAt"), call.now)
        signer = _Presigned(_human_key(call), body.get("signature"))
    done = remember(
        category, key, content or "", tags=_tags(body), priority=_string(body, "priority", limit=64),
        confidence=_confidence(body), expires=_string(body, "expires", limit=64), no_tags=_bool(body, "noTags"),
        no_expiry=_bool(body, "noExpiry"), mind=mind, as_user=as_user, signer=signer,  # type: ignore[arg-type]
        interactive=False,
        directory=call.server.config.project, kernel=call.server.kernel, now=now,
    )  # fmt: skip
    memory = done.memory.to_json()
    if done.changed:
        call.record("memory.create" if done.created else "memory.update", f"memory:{memory['id']}", about(memory))
    return done


def post_memory(call: Call) -> Any:
    body = call.body
    mind = call.mind(body.get("mind"))
    category = _string(body, "category", required=True, limit=64)
    key = _string(body, "key", required=True, limit=256)
    done = _remember(call, category or "", key or "", mind, body)
    return (201 if done.created else 200), done.to_json()


def get_memory(call: Call) -> Any:
    return {"memory": memory_at(call)}


def put_memory(call: Call) -> Any:
    memory = memory_at(call)
    body = call.body
    for name in ("category", "key", "mind"):
        if name in body and body[name] != memory[{"mind": "mind_id"}.get(name, name)]:
            raise Refused(400, f"{name} of a memory cannot change (store a new memory instead)")
    done = _remember(call, memory["category"], memory["key"], memory["mind_id"], body)
    return done.to_json()


def delete_memory(call: Call) -> Any:
    from mem_core.api.memories import forget

    memory = memory_at(call)
    signer = SessionHuman(call.human) if call.human is not None else None
    done = forget(memory["id"], mind=memory["mind_id"], signer=signer, interactive=False,  # type: ignore[arg-type]
                  directory=call.server.config.project, kernel=call.server.kernel, now=call.now)  # fmt: skip
    call.record("memory.delete", f"memory:{memory['id']}", about(memory))
    return done.to_json()


def verify_memory(call: Call) -> Any:
    from mem_core.api.memories import verify

    memory = memory_at(call)
    at = _signed_at(call.body.get("signedAt"), call.now)
    signer = _Presigned(_human_key(call), call.body.get("signature"))
    done = verify(memory["id"], mind=memory["mind_id"], signer=signer, interactive=False,  # type: ignore[arg-type]
                  directory=call.server.config.project, kernel=call.server.kernel, now=at)  # fmt: skip
    if done.changed:
        call.record("memory.verify", f"memory:{memory['id']}", {**about(memory), "by": signer.name,
                                                                 "fingerprint": signer.fingerprint})  # fmt: skip
    return done.to_json()


def memory_history_route(call: Call) -> Any:
    from mem_core.api.memories import memory_history

    memory = memory_at(call)
    return memory_history(
        memory["id"], mind=memory["mind_id"], directory=call.server.config.project, kernel=call.server.kernel
    ).to_json()


def _listing(call: Call, **options: Any) -> Any:
    from mem_core.api.memories import list_memories

    found = list_memories(mind=call.mind(call.param("mind")), limit=call.param("limit"),
                          directory=call.server.config.project, kernel=call.server.kernel, now=call.now, **options)  # fmt: skip
    return found.to_json()


def list_route(call: Call) -> Any:
    return _listing(call, category=call.param("category"), tag=call.param("tag"),
                    include_expired=call.param("includeExpired") == "true")  # fmt: skip


def by_tag(call: Call) -> Any:
    tag = call.param("tag")
    if not tag:
        raise Refused(400, "tag is required (?tag=NAME)")
    return _listing(call, tag=tag)


def search_route(call: Call) -> Any:
    text = call.param("q")
    if not text:
        raise Refused(400, "q is required (?q=WORDS)")
    return _listing(call, search=text, tag=call.param("tag"))


def expiring_route(call: Call) -> Any:
    return _listing(call, expiring=call.param("within") or "7d")


def memory_recall(call: Call) -> Any:
    """The plain-text context summary of a mind (the model's ``recall``)."""
    from mem_core.api.memories import context_summary

    summary = context_summary(mind=call.mind(call.param("mind")), budget=call.param("budget"),
                              directory=call.server.config.project, kernel=call.server.kernel, now=call.now)  # fmt: skip
    return PlainTextResponse(summary.text + "\n")


# -- minds ---------------------------------------------------------------------------


def list_minds_route(call: Call) -> Any:
    from mem_core.api.memories import list_minds

    counts = dict(list_minds(directory=call.server.config.project, kernel=call.server.kernel).minds)
    with call.server.db.transaction() as cursor:
        for (name,) in cursor.run("SELECT name FROM mem_srv_minds"):
            counts.setdefault(name, 0)
    counts.setdefault(call.server.default_mind, 0)
    if call.agent is not None:
        counts = {call.agent.mind: counts.get(call.agent.mind, 0)}
    return {"minds": [{"name": name, "count": count} for name, count in sorted(counts.items())]}


def create_mind(call: Call) -> Any:
    from mem_core.memories.validate import parse_mind

    name = parse_mind(_string(call.body, "name", required=True, limit=256))
    with call.server.db.transaction() as cursor:
        if cursor.one("SELECT name FROM mem_srv_minds WHERE name = ?", (name,)):
            raise Refused(409, f"the mind {name} exists already; nothing was changed.")
        cursor.run("INSERT INTO mem_srv_minds (name, created_at, created_by) VALUES (?, ?, ?)",
                   (name, call.now, call.who.actor if call.who else "server"))  # fmt: skip
        audit.append(cursor, call.who.actor if call.who else "server", "mind.create", f"mind:{name}", {}, call.now)
    return 201, {"mind": name}


# -- journal and reinforcement ---------------------------------------------------------


def _signals(body: dict[str, Any]) -> dict[str, str]:
    value = body.get("signals")
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > 32:
        raise Refused(400, "signals must be an object of signal name to value text")
    for name, text in value.items():
        if not isinstance(text, (str, int, float)) or isinstance(text, bool) or len(str(name)) > 64:
            raise Refused(400, "signals must be an object of signal name to value text")
    return {str(k): str(v) for k, v in value.items()}


def post_journal(call: Call) -> Any:
    from mem_core.api.write import write

    body = call.body
    agent = _string(body, "agent", limit=256)
    if call.agent is not None:
        if agent is not None and agent != call.agent.mind:
            raise Refused(403, f"the agent key {call.agent.id} journals as {call.agent.mind} only")
        agent = call.agent.mind
    elif agent is None and call.human is not None:
        agent = call.human.human
    done = write(agent=agent, cli=_string(body, "cli", limit=256), model=_string(body, "model", limit=256),
                 task=_string(body, "task", limit=16 * 1024), outcome=_string(body, "outcome", limit=64),
                 signals=_signals(body), directory=call.server.config.project, kernel=call.server.kernel, now=call.now)  # fmt: skip
    event = done.to_json()
    call.record("journal.write", f"journal:{event.get('written', {}).get('id', '')}", {"agent": agent})
    return 201, event


def post_reinforce(call: Call) -> Any:
    from mem_core.api.reinforce import reinforce

    body = call.body
    pattern = _string(body, "pattern", required=True, limit=1024)
    evidence = body.get("evidence")
    if evidence is not None and not (isinstance(evidence, str) and len(evidence) <= 4096 or isinstance(
            evidence, list) and len(evidence) <= 256 and all(isinstance(e, str) for e in evidence)):  # fmt: skip
        raise Refused(400, "evidence must be a comma-separated string or a list of strings")
    done = reinforce(pattern, signals=_signals(body), evidence=evidence, directory=call.server.config.project, kernel=call.server.kernel,
                     now=call.now)  # fmt: skip
    # the score after it: the review pages chart each pattern's Elo and mean over time from these
    call.record("reinforce", f"pattern:{pattern}", {"elo": done.next.get("elo"), "mean": done.next.get("mean"),
                                                    "updates": done.next.get("updates"), "at": call.now})  # fmt: skip
    return done.to_json()


def get_scores(call: Call) -> Any:
    from mem_core.api.reinforce import read_scores

    return {"scores": read_scores(call.server.config.project)}


def get_promotions(call: Call) -> Any:
    from mem_core.api.reinforce import read_promotions

    return {"promotions": [p.model_dump(mode="json", by_alias=True) for p in
                           read_promotions(call.server.config.project)]}  # fmt: skip


def decide_promotion(call: Call) -> Any:
    from mem_core.api.decisions import decide

    session = call.human
    assert session is not None
    decision = _string(call.body, "decision", required=True, limit=16) or ""
    done = decide(call.path["id"][:64], decision, _string(call.body, "reason", limit=4096),
                  directory=call.server.config.project, session=session.human, now=call.now)  # fmt: skip
    record = done.record
    call.record(f"promotion.{decision}", f"promotion:{record['id']}",
                {"pattern": record["patternId"], "status": record["status"], "reason": record["decisionReason"]})  # fmt: skip
    return done.to_json()


def get_recall(call: Call) -> Any:
    from mem_core.api.recall import recall

    text = call.param("q")
    if not text:
        raise Refused(400, "q is required (?q=WORDS)")
    found = recall(text, directory=call.server.config.project, kernel=call.server.kernel, limit=call.param("limit"),
                   ranking=call.param("ranking"), now=call.now, index=False).to_json()  # fmt: skip
    agent = call.agent
    if agent is not None:  # an agent key sees its mind's memories and the journal
        found["results"] = [
            r for r in found["results"]
            if (r.get("memory") or {}).get("mind_id") == agent.mind or r.get("source") == "journal"
        ]  # fmt: skip
        found["count"] = len(found["results"])
    return found


# -- credentials and audit ----------------------------------------------------------------


def post_challenge(call: Call) -> Any:
    name = _string(call.body, "name", required=True, limit=64)
    return {"challenge": new_challenge(call.server.db, name or "", now=call.now)}


def post_login(call: Call) -> Any:
    body = call.body
    session, token = login(call.server.db, call.server.key, _string(body, "name", required=True, limit=64) or "",
                           _string(body, "challenge", required=True, limit=200) or "",
                           _string(body, "signature", required=True, limit=200) or "", now=call.now)  # fmt: skip
    return 201, {"token": token, "human": session.human, "expiresAt": session.expires_at, "csrf": session.csrf}


def post_key(call: Call) -> Any:
    body = call.body
    rate = body.get("ratePerMinute", call.server.config.rate_per_minute)
    if not isinstance(rate, int) or isinstance(rate, bool):
        raise Refused(400, "ratePerMinute must be a whole number")
    key, secret = create_key(call.server.db, _string(body, "mind", required=True, limit=256) or "",
                             read_only=_bool(body, "readOnly"), expires=_string(body, "expires", limit=64),
                             rate_per_minute=rate, label=_string(body, "label", limit=200) or "",
                             by=call.who.actor if call.who else "server", now=call.now)  # fmt: skip
    return 201, {"key": secret, **key.to_json()}


def delete_key(call: Call) -> Any:
    key = revoke_key(call.server.db, call.path["id"][:64], by=call.who.actor if call.who else "server", now=call.now)
    return key.to_json()


def post_human(call: Call) -> Any:
    body = call.body
    return 201, register_human(call.server.db, call.server.key, _string(body, "name", required=True, limit=64) or "",
                               _string(body, "publicKey", required=True, limit=1024) or "",
                               by=call.who.actor if call.who else "server", now=call.now)  # fmt: skip


def get_audit(call: Call) -> Any:
    after = call.param("after") or "0"
    limit = call.param("limit") or "100"
    if not (after.isdigit() and limit.isdigit() and len(after) < 19 and 1 <= int(limit) <= 1000):
        raise Refused(400, "after is a whole number and limit one from 1 to 1000")
    found = audit.entries(call.server.db, after=int(after), limit=int(limit))
    with call.server.db.transaction() as cursor:
        current = audit.head(cursor)
    return {"entries": found, "head": current}


def _store(name: str) -> Callable[[Call], Any]:
    """A store route of :mod:`mem_server.store`, imported when first called."""

    def route(call: Call) -> Any:
        from mem_server import store

        return getattr(store, name)(call)

    route.__name__ = name
    return route


# -- the route table ----------------------------------------------------------------------

ROUTES: tuple[Endpoint, ...] = (
    Endpoint("POST", "/v1/auth/challenge", PUBLIC, post_challenge, "A one-time challenge for a human's login",
             ("name",)),
    Endpoint("POST", "/v1/auth/login", PUBLIC, post_login, "A session for the human key that signed the challenge",
             ("name", "challenge", "signature"), 201),
    Endpoint("POST", "/v1/memory", WRITE, post_memory, "Create or update a memory by (mind, category, key)",
             _REMEMBER_FIELDS, 201),
    Endpoint("GET", "/v1/memory", READ, list_route, "List a mind's memories (category, tag, limit)"),
    Endpoint("GET", "/v1/memory/recall", READ, memory_recall, "The plain-text context summary of a mind"),
    Endpoint("GET", "/v1/memory/by-tag", READ, by_tag, "A mind's memories with a tag"),
    Endpoint("GET", "/v1/memory/search", READ, search_route, "Full-text search of a mind's memories"),
    Endpoint("GET", "/v1/memory/expiring", READ, expiring_route, "Memories expiring within a window (7d)"),
    Endpoint("GET", "/v1/memory/{id}", READ, get_memory, "One memory"),
    Endpoint("PUT", "/v1/memory/{id}", WRITE, put_memory, "Update a memory", _REMEMBER_FIELDS),
    Endpoint("DELETE", "/v1/memory/{id}", WRITE, delete_memory, "Forget a memory (its history keeps a tombstone)"),
    Endpoint("GET", "/v1/memory/{id}/history", READ, memory_history_route, "Every version of a memory"),
    Endpoint("POST", "/v1/memory/{id}/verify", HUMAN, verify_memory, "A human's signature that a memory is true",
             ("signedAt", "signature")),
    Endpoint("GET", "/v1/minds", READ, list_minds_route, "The minds (an agent key: its own)"),
    Endpoint("POST", "/v1/minds", HUMAN, create_mind, "Create a mind", ("name",), 201),
    Endpoint("POST", "/v1/journal", WRITE, post_journal, "Append a journal event",
             ("agent", "cli", "model", "task", "outcome", "signals"), 201),
    Endpoint("POST", "/v1/reinforce", WRITE, post_reinforce, "Reinforce a pattern", ("pattern", "signals",
                                                                                        "evidence")),
    Endpoint("GET", "/v1/scores", READ, get_scores, "Every pattern's score"),
    Endpoint("GET", "/v1/promotions", READ, get_promotions, "The promotion records"),
    Endpoint("POST", "/v1/promotions/{id}/decision", HUMAN, decide_promotion, "A human's decision on a promotion",
             ("decision", "reason")),
    Endpoint("GET", "/v1/recall", READ, get_recall, "Ranked recall over what the server holds"),
    Endpoint("POST", "/v1/keys", HUMAN, post_key, "Create an agent key (shown once)",
             ("mind", "readOnly", "expires", "ratePerMinute", "label"), 201),
    Endpoint("DELETE", "/v1/keys/{id}", HUMAN, delete_key, "Revoke an agent key"),
    Endpoint("POST", "/v1/humans", HUMAN, post_human, "Trust another human's public key", ("name", "publicKey"),
             201),
    Endpoint("GET", "/v1/audit", HUMAN, get_audit, "Audit log entries (after, limit) and the chain's head"),
    Endpoint("POST", "/v1/store/read", READ, _store("store_read"),
             "A store read of the server memory store (mem_plugins.stores.server)", ("read", "steps", "lease"),
             body_max=STORE_BODY_MAX),
    Endpoint("POST", "/v1/store/lock", WRITE, _store("store_lock"), "Take the store's transaction lease"),
    Endpoint("POST", "/v1/store/unlock", WRITE, _store("store_unlock"), "Give back a transaction lease",
             ("lease",)),
    Endpoint("POST", "/v1/store/commit", WRITE, _store("store_commit"),
             "Replay a transaction's reads and writes in one store transaction", ("steps", "lease"),
             body_max=STORE_BODY_MAX),
)  # fmt: skip


def _allowed(rule: Rule, who: AgentKey | HumanSession | None) -> None:
    if rule is PUBLIC or isinstance(who, HumanSession):
        return
    assert isinstance(who, AgentKey)
    if rule is HUMAN:
        raise Refused(403, "only a human may do this; an agent key never can")
    if rule is WRITE and who.read_only:
        raise Refused(403, f"the agent key {who.id} is read-only")


_STATED = "was stated by a human; only a human can change it"


def _status_of(error: MemError) -> int:
    """The HTTP status of a ``mem_core`` refusal."""
    text = str(error)
    if text.startswith("No memory ") or text.startswith("no mind ") or text.startswith("no proposed promotion "):
        return 404
    if _STATED in text or "needs a human" in text:
        return 403
    if "changed while waiting" in text or "already exists" in text or "is decided already" in text:
        return 409
    return 400


def _run(server: Server, endpoint: Endpoint, token: str | None, path: dict[str, str], query: dict[str, str],
         body: dict[str, Any]) -> tuple[int, Any]:  # fmt: skip
    """One request, in a worker thread: authenticate, authorise, run, audit."""
    from mem_core.humans.keys import serving_trust

    now = now_iso()
    call = Call(None, path, query, body, now, server)
    with server.db.transaction() as cursor:
        if endpoint.rule is not PUBLIC:
            call.who = authenticate(cursor, token, now)
            _allowed(endpoint.rule, call.who)
            if isinstance(call.who, AgentKey):
                charge_rate(cursor, call.who, now)
        trust = trust_list(cursor, server.key)
    with serving_trust(trust):
        result = endpoint.function(call)
    if call.audit:
        actor = call.who.actor if call.who is not None else "anonymous"
        with server.db.transaction() as cursor:
            for action, target, detail in call.audit:
                audit.append(cursor, actor, action, target, detail, now)
    status = endpoint.status if endpoint.status != 201 else 200
    if isinstance(result, tuple):
        status, result = result
    return status, result


def _error(status: int, message: str) -> JSONResponse:
    return Json({"error": " ".join(message.split())[:1000]}, status_code=status)


async def _read_body(request: Request, limit: int = BODY_MAX) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise Refused(413, f"the request body is larger than {limit} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise Refused(413, f"the request body is larger than {limit} bytes")
    return bytes(data)


def _parse_body(data: bytes, fields: tuple[str, ...]) -> dict[str, Any]:
    if not data.strip():
        return {}
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(400, "the body is not valid JSON (UTF-8)") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    unknown = [name for name in body if name not in fields]
    if unknown:
        raise Refused(400, f"unknown field {str(unknown[0])[:64]!r} (known: {', '.join(fields) or 'none'})")
    return body


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def _query(request: Request) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if len(value) > PARAM_MAX or len(name) > 64:
            raise Refused(400, f"a query parameter is at most {PARAM_MAX} characters")
        if "\x00" in value:
            raise Refused(400, "a query parameter cannot hold a NUL character")
        found.setdefault(name, value)
    return found


def _handler(server: Server, endpoint: Endpoint) -> Callable[[Request], Any]:
    from starlette.concurrency import run_in_threadpool

    async def handle(request: Request) -> Response:
        started = time.perf_counter()
        status = 500
        try:
            body = (
                _parse_body(await _read_body(request, endpoint.body_max), endpoint.fields)
                if endpoint.method in ("POST", "PUT")
                else {}
            )
            status, result = await run_in_threadpool(
                _run, server, endpoint, _token(request), dict(request.path_params), _query(request), body
            )
            response = result if isinstance(result, Response) else Json(result, status_code=status)
        except Refused as refused:
            response = _error(refused.status, str(refused))
        except (Unavailable, TryAgain):
            response = _error(503, UNAVAILABLE)
        except MemError as error:
            if server.config.store == "postgres" and not await run_in_threadpool(server.check_database):
                response = _error(503, UNAVAILABLE)
            else:
                response = _error(_status_of(error), str(error))
        except Exception:  # never a traceback to the client: one line, the traceback in the log
            log.exception("%s %s failed", endpoint.method, endpoint.path)
            server.metrics.error()
            response = _error(500, "internal error: the server's log has the details (nothing may have changed)")
        status = response.status_code
        server.metrics.observe(endpoint.method, endpoint.path, status, time.perf_counter() - started)
        return response

    return handle


# -- process endpoints -------------------------------------------------------------------------


def create_app(config: ServerConfig) -> Starlette:
    """The application serving ``config``'s store (one replica)."""
    from starlette.concurrency import run_in_threadpool

    server = Server(config)

    async def healthz(request: Request) -> Response:
        return Json({"status": "ok"})

    async def readyz(request: Request) -> Response:
        if await run_in_threadpool(server.check_database):
            return Json({"status": "ready"})
        return _error(503, UNAVAILABLE)

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(server.metrics.render(server.db.pool_size),
                                 media_type="text/plain; version=0.0.4")  # fmt: skip

    async def openapi(request: Request) -> Response:
        from mem_server.openapi import document

        return Json(document(ROUTES))

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        message = "no such route" if status == 404 else "method not allowed for this route"
        return _error(status, message)

    async def crashed(request: Request, exc: Exception) -> Response:  # pragma: no cover - handlers catch all
        return _error(500, "internal error: the server's log has the details")

    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics),
        Route("/openapi.json", openapi),
    ]
    by_path: dict[str, list[Endpoint]] = {}
    for endpoint in ROUTES:
        by_path.setdefault(endpoint.path, []).append(endpoint)
    for path, endpoints in by_path.items():
        for endpoint in endpoints:
            routes.append(Route(path, _handler(server, endpoint), methods=[endpoint.method],
                                name=f"{endpoint.method} {path}"))  # fmt: skip
    from contextlib import asynccontextmanager

    from mem_server.mcp import mcp_endpoint

    endpoint, manager = mcp_endpoint(server)
    routes.append(Route("/mcp", endpoint=endpoint))
    try:
        import jinja2  # noqa: F401
    except ImportError:  # the API serves without the review pages
        log.warning("the review pages (/review) need Jinja2: pip install 'mem-agent-memory[server]'")
    else:
        from mem_server.review import review_routes

        routes += review_routes(server)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        import anyio

        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(_log_heads, server)
            yield
            group.cancel_scope.cancel()
        server.db.close()

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found, 500: crashed},
                    lifespan=lifespan)  # fmt: skip
    app.router.redirect_slashes = False  # a path is the route's or 404, never a redirect
    app.state.server = server
    return app


async def _log_heads(server: Server) -> None:
    """Every ``head_log_seconds``, write the audit chain's signed head to the
    log: a copy outside the database, against which a chain cut short
    (its newest entries deleted) shows (``audit verify --expect``)."""
    import anyio
    from starlette.concurrency import run_in_threadpool

    def read() -> dict[str, Any] | None:
        with server.db.transaction() as cursor:
            return audit.head(cursor)

    last = None
    while True:
        await anyio.sleep(server.config.head_log_seconds)
        try:
            current = await run_in_threadpool(read)
        except Unavailable:
            continue
        if current is not None and current != last:
            log.info("audit head %s:%s signature %s", current["seq"], current["hash"], current["signature"])
            last = current


def app_from_environment() -> Starlette:
    """The application uvicorn's factory loads (``mem serve`` passes its
    options in ``MEM_SERVE_CONFIG``, JSON)."""
    import os

    options = json.loads(os.environ["MEM_SERVE_CONFIG"])
    dsn = os.environ.get(options.pop("dsn_env", ""), "") or None
    seconds = os.environ.get("MEM_SERVE_HEAD_SECONDS", "")
    if seconds.replace(".", "", 1).isdigit() and float(seconds) > 0:
        options["head_log_seconds"] = float(seconds)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    return create_app(ServerConfig(dsn=dsn, **options))
