"""2 000 malformed requests (broken JSON, bodies too large, wrong types,
Unicode edge cases, ids that try to walk the file system) with the most
powerful credentials: no 5xx, always a one-line JSON error, and nothing
changes."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest

from tests.server.kit import NOW, Team

REQUESTS = 2000

#: values no name (mind, pattern, human) or text field takes as they are
WRONG = [None, 0, -1, 1e308, True, [], {}, [1, 2], {"a": 1}, "", " ", "\ud800", "\u202e", "a" * 70000, "x\ny"]
#: for each field of a memory, values it refuses
INVALID: dict[str, list[Any]] = {
    "category": [0, [], {}, "", "Fact", "facts", "\u202efact", "../fact"],
    "key": [0, [], "", "Bad Key", "a" * 200, "x\ny", "../../etc/passwd", "ключ", "\ud800"],
    "content": [0, [], {}, "", " \n\t ", "💥" * 5000, "\x00", "a\ud800b", None],
    "tags": [0, {}, [1], ["a b"], ["a,,b"], [","], ["x" * 65], ["\u200b"], [f"t{i}" for i in range(40)]],
    "priority": [0, [], "", "urgent"],
    "confidence": [-1, 2, 1e308, "abc", True, [], "NaN"],
    "expires": [0, [], "", "yesterday", "2026-13-45", "-5d", "0d", "99999999999d", "2026-01-01T00:00"],
    "mind": [0, [], "", "\u200bx", "x" * 65, "a\nb"],
}
BAD_IDS = ["..%2F..%2Fetc%2Fpasswd", "mem_", "mem_XYZ", "mem_" + "a" * 65, "%00", "mem_12%00", "%E2%80%AE",
           "mem_0123456789abcdef%2F..", "..", "mem_deadbeefdeadbeef", "🙂", "mem_ABC"]  # fmt: skip
GOOD_MEMORY = {"category": "fact", "key": "k", "content": "v", "mind": "alpha"}
#: the fields a PUT may carry (the memory's identity comes from its id)
UPDATE_FIELDS = ("content", "tags", "priority", "confidence", "expires")


def broken_body(rng: random.Random, *, update: bool = False) -> tuple[bytes | None, Any]:
    """A body with at least one defect: bytes, or a JSON value."""
    good = {"content": "v"} if update else GOOD_MEMORY
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice([b"{", b'{"category": "fact",', b"\xff\xfe{}", b'{"a": 1}}', b"nul\x00l", b"{" * 5000]), None
    if kind == 1:
        return b"[" * 100_000 + b"]" * 100_000, None  # too large and too deep
    if kind == 2:
        return None, rng.choice([[], "text", 3, None, [GOOD_MEMORY]])
    if kind == 3:
        return None, {**good, rng.choice(["verified", "source", "id", "\u202eid", "mind_id"]): True}
    field = rng.choice(UPDATE_FIELDS if update else tuple(INVALID))
    return None, {**good, field: rng.choice(INVALID[field])}


def fuzzed(rng: random.Random, memory_id: str) -> tuple[str, str, bytes | None, Any]:
    choice = rng.randrange(6)
    bad_id = rng.choice(BAD_IDS)
    if choice == 0:
        data, value = broken_body(rng)
        return "POST", "/v1/memory", data, value
    if choice == 1:
        data, value = broken_body(rng, update=True)
        return "PUT", f"/v1/memory/{rng.choice([memory_id, bad_id])}", data, value
    if choice == 2:
        return rng.choice(["GET", "DELETE"]), f"/v1/memory/{bad_id}", None, None
    if choice == 3:
        body = rng.choice([{"signedAt": NOW, "signature": rng.choice(WRONG)}, {"signedAt": rng.choice(WRONG)},
                           {"signedAt": "2026-13-45T99:99:99.999Z", "signature": "AAAA"},
                           {"signature": "AAAA"}, {"extra": 1}])  # fmt: skip
        return "POST", f"/v1/memory/{rng.choice([memory_id, bad_id])}/verify", None, body
    if choice == 4:
        target = rng.choice(["/v1/journal", "/v1/reinforce", "/v1/minds", "/v1/keys", "/v1/humans"])
        value = rng.choice([{"signals": rng.choice([0, True, [], "x", {"eval": []}, {"eval": {"a": 1}}])}, {"pattern": rng.choice([None, "", " ", 0, [], {}])},
                            {"name": rng.choice(WRONG)}, {"mind": rng.choice(WRONG)},
                            {"publicKey": "ssh-ed25519 AAAA x", "name": "eve"}, {"unknown": 1}, {"task": 5}])  # fmt: skip
        if target == "/v1/reinforce" and "pattern" not in value:
            value = {**value, "pattern": None}
        return "POST", target, None, value
    data, value = broken_body(rng)
    return "POST", rng.choice(["/v1/auth/login", "/v1/memory/recall", "/v1/memory/"]), data, value


@pytest.mark.slow
def test_fuzzed_requests_get_one_line_errors_and_change_nothing(team: Team) -> None:
    one, two = team.start(2)
    agent = team.agent_key("alpha", rate_per_minute=1_000_000)
    human = team.login(one.url)
    stored = httpx.post(f"{one.url}/v1/memory", json=GOOD_MEMORY, headers={"Authorization": f"Bearer {agent}"})
    memory_id = stored.json()["memory"]["id"]
    rng = random.Random(20261105)
    before = team.snapshot()
    statuses: dict[int, int] = {}
    with httpx.Client(timeout=60) as client:
        for number in range(REQUESTS):
            method, path, data, value = fuzzed(rng, memory_id)
            token = human if number % 2 else agent
            content = data if data is not None else json.dumps(value).encode("utf-8", "surrogatepass")
            url = (one if number % 3 else two).url
            answer = client.request(method, url + path, content=content,
                                    headers={"Authorization": f"Bearer {token}",
                                             "Content-Type": "application/json"})  # fmt: skip
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            assert answer.status_code < 500, (method, path, content[:200], answer.text)
            assert answer.status_code >= 400, (method, path, content[:200], answer.text)
            error = answer.json()["error"]
            assert error and "\n" not in error and "Traceback" not in error
            if number % 250 == 249:
                assert team.snapshot() == before, f"changed by one of requests {number - 249}..{number}"
    assert team.snapshot() == before
    assert set(statuses) <= {400, 401, 403, 404, 405, 409, 413}
    for replica in (one, two):
        assert "Traceback" not in replica.logged()
