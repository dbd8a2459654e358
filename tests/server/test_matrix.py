"""The authorisation matrix: every route of the API × every kind of
credential gives the status docs/server.md documents, over real HTTP on two
replicas, and every refused request leaves the database and the server's
files exactly as they were."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from mem_core.humans.keys import HumanKey
from mem_server.app import ROUTES
from tests.server.kit import NOW, Team, signature_over

CREDENTIALS = ("none", "bad", "revoked", "expired", "other_mind", "read_only", "agent", "human")


@dataclass
class Ctx:
    team: Team
    tokens: dict[str, str | None]
    names: itertools.count

    def fresh_memory(self) -> dict[str, Any]:
        """A new memory of mind alpha (stored by the alpha agent key)."""
        answer = httpx.post(
            f"{self.team.replicas[0].url}/v1/memory",
            json={"category": "fact", "key": f"m{next(self.names)}", "content": "the sky is blue", "mind": "alpha"},
            headers={"Authorization": f"Bearer {self.tokens['agent']}"},
        )
        assert answer.status_code == 201, answer.text
        return answer.json()["memory"]

    def fresh_key_id(self) -> str:
        return self.team.agent_key("gamma").split("_")[2]


#: route → (the request, given the context: method, path, params, body), the
#: status of a success, and the status an agent key of another mind gets
Request = Callable[[Ctx], tuple[str, dict[str, str], Any]]


def _memory_path(suffix: str = "") -> Request:
    return lambda c: (f"/v1/memory/{c.fresh_memory()['id']}{suffix}", {}, None)


def _verify(c: Ctx) -> tuple[str, dict[str, str], Any]:
    memory = c.fresh_memory()
    return f"/v1/memory/{memory['id']}/verify", {}, {"signedAt": NOW, "signature": signature_over(memory, c.team.ada)}


def _new_human(c: Ctx) -> tuple[str, dict[str, str], Any]:
    key = HumanKey.generate(f"h{next(c.names)}")
    return "/v1/humans", {}, {"name": key.name, "publicKey": key.public_key("user").line()}


def _lease(c: Ctx) -> str:
    """A store transaction's lease, taken by the human after any earlier one
    is cleared (a refused commit or unlock leaves its lease to expire)."""
    with c.team.db.transaction() as cursor:
        cursor.run("DELETE FROM mem_srv_store_lease")
    answer = httpx.post(f"{c.team.replicas[0].url}/v1/store/lock", json={},
                        headers={"Authorization": f"Bearer {c.tokens['human']}"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return str(answer.json()["lease"])


def _store_lock(c: Ctx) -> tuple[str, dict[str, str], Any]:
    with c.team.db.transaction() as cursor:
        cursor.run("DELETE FROM mem_srv_store_lease")
    return "/v1/store/lock", {}, {}


def _store_commit(c: Ctx) -> tuple[str, dict[str, str], Any]:
    n = next(c.names)
    record = {"id": f"mem_{n:016x}", "category": "fact", "key": f"s{n}", "content": "v", "tags": [],
              "priority": "normal", "source": "agent", "verified": False, "confidence": 0.7, "expires_at": None,
              "mind_id": "alpha", "created_at": NOW, "updated_at": NOW}  # fmt: skip
    steps = [{"op": "insert", "args": {"record": record, "at": NOW, "action": "create"}}]
    return "/v1/store/commit", {}, {"lease": _lease(c), "steps": steps}


CASES: dict[tuple[str, str], tuple[Request, int, int]] = {
    ("POST", "/v1/memory"): (
        lambda c: ("/v1/memory", {}, {"category": "fact", "key": f"k{next(c.names)}", "content": "v", "mind": "alpha"}),
        201,
        403,
    ),  # fmt: skip
    ("GET", "/v1/memory"): (lambda c: ("/v1/memory", {"mind": "alpha"}, None), 200, 403),
    ("GET", "/v1/memory/recall"): (lambda c: ("/v1/memory/recall", {"mind": "alpha"}, None), 200, 403),
    ("GET", "/v1/memory/by-tag"): (lambda c: ("/v1/memory/by-tag", {"mind": "alpha", "tag": "x"}, None), 200, 403),
    ("GET", "/v1/memory/search"): (lambda c: ("/v1/memory/search", {"mind": "alpha", "q": "sky"}, None), 200, 403),
    ("GET", "/v1/memory/expiring"): (lambda c: ("/v1/memory/expiring", {"mind": "alpha"}, None), 200, 403),
    ("GET", "/v1/memory/{id}"): (_memory_path(), 200, 404),
    ("PUT", "/v1/memory/{id}"): (
        lambda c: (f"/v1/memory/{c.fresh_memory()['id']}", {}, {"content": "the sky is grey"}),
        200,
        404,
    ),
    ("DELETE", "/v1/memory/{id}"): (_memory_path(), 200, 404),
    ("GET", "/v1/memory/{id}/history"): (_memory_path("/history"), 200, 404),
    ("POST", "/v1/memory/{id}/verify"): (_verify, 200, 403),
    ("GET", "/v1/minds"): (lambda c: ("/v1/minds", {}, None), 200, 200),
    ("POST", "/v1/minds"): (lambda c: ("/v1/minds", {}, {"name": f"mind{next(c.names)}"}), 201, 403),
    ("POST", "/v1/journal"): (lambda c: ("/v1/journal", {}, {"task": "t", "outcome": "success"}), 201, 201),
    ("POST", "/v1/reinforce"): (
        lambda c: ("/v1/reinforce", {}, {"pattern": "p", "signals": {"eval": "0.9"}}),
        200,
        200,
    ),  # fmt: skip
    ("GET", "/v1/scores"): (lambda c: ("/v1/scores", {}, None), 200, 200),
    ("GET", "/v1/promotions"): (lambda c: ("/v1/promotions", {}, None), 200, 200),
    ("POST", "/v1/promotions/{id}/decision"): (
        lambda c: ("/v1/promotions/nope/decision", {}, {"decision": "accept", "reason": "r"}),
        404,
        403,
    ),
    ("GET", "/v1/recall"): (lambda c: ("/v1/recall", {"q": "sky"}, None), 200, 200),
    ("POST", "/v1/keys"): (lambda c: ("/v1/keys", {}, {"mind": "alpha"}), 201, 403),
    ("DELETE", "/v1/keys/{id}"): (lambda c: (f"/v1/keys/{c.fresh_key_id()}", {}, None), 200, 403),
    ("POST", "/v1/humans"): (_new_human, 201, 403),
    ("GET", "/v1/audit"): (lambda c: ("/v1/audit", {}, None), 200, 403),
    ("POST", "/v1/store/read"): (
        lambda c: (
            "/v1/store/read",
            {},
            {"read": {"op": "query", "args": {"where": {"now": NOW, "mind_id": "alpha"}}}},
        ),
        200,
        403,
    ),
    ("POST", "/v1/store/lock"): (_store_lock, 200, 200),
    ("POST", "/v1/store/unlock"): (lambda c: ("/v1/store/unlock", {}, {"lease": _lease(c)}), 200, 200),
    ("POST", "/v1/store/commit"): (_store_commit, 200, 403),
}
PUBLIC = {("POST", "/v1/auth/challenge"), ("POST", "/v1/auth/login")}


def expected(rule: str, credential: str, success: int, other: int) -> int:
    """The documented status (docs/server.md, What each credential can do)."""
    if credential in ("none", "bad", "revoked", "expired"):
        return 401
    if credential == "human":
        return success
    if rule == "human":
        return 403
    if credential == "read_only":
        return 403 if rule == "write" else success
    if credential == "other_mind":
        return other
    return success


def test_every_route_is_in_the_matrix() -> None:
    assert {(e.method, e.path) for e in ROUTES} == set(CASES) | PUBLIC


@pytest.fixture
def ctx(team: Team) -> Ctx:
    from mem_server.credentials import revoke_key

    team.start(2)
    revoked = team.agent_key("alpha")
    revoke_key(team.db, revoked.split("_")[2])
    tokens: dict[str, str | None] = {
        "none": None,
        "bad": "mem_ak_000000000000_" + "x" * 43,
        "revoked": revoked,
        "expired": team.agent_key("alpha", expires="1d", now="2026-11-01T00:00:00.000Z"),
        "other_mind": team.agent_key("beta"),
        "read_only": team.agent_key("alpha", read_only=True),
        "agent": team.agent_key("alpha"),
        "human": team.login(team.replicas[1].url),
    }
    return Ctx(team, tokens, itertools.count())


def test_the_authorisation_matrix(ctx: Ctx) -> None:
    rules = {(e.method, e.path): e.rule.name for e in ROUTES}
    failures = []
    turn = itertools.cycle(ctx.team.replicas)
    for (method, route), (build, success, other) in CASES.items():
        for credential in CREDENTIALS:
            path, params, body = build(ctx)
            token = ctx.tokens[credential]
            want = expected(rules[(method, route)], credential, success, other)
            before = ctx.team.snapshot() if want >= 400 else None
            headers = {} if token is None else {"Authorization": f"Bearer {token}"}
            answer = httpx.request(method, f"{next(turn).url}{path}", params=params, json=body, headers=headers)
            if answer.status_code != want:
                failures.append(f"{method} {route} as {credential}: {answer.status_code} (want {want}) {answer.text}")
                continue
            if want >= 400:
                error = answer.json()["error"]
                assert error and "\n" not in error
                if ctx.team.snapshot() != before:
                    failures.append(f"{method} {route} as {credential}: refused ({want}) but changed the database")
    assert failures == []
