"""``mem serve`` over real HTTP: two replicas on one PostgreSQL database, the
agent keys' scope, the human's login and signatures, the audit chain."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from tests.server.kit import NOW, Team, signature_over


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def remember(url: str, token: str, key: str, content: str, **extra: object) -> httpx.Response:
    body = {"category": "fact", "key": key, "content": content, **extra}
    return httpx.post(f"{url}/v1/memory", json=body, headers=bearer(token))


def test_health_ready_openapi_and_metrics(team: Team) -> None:
    (one,) = team.start(1)
    assert httpx.get(f"{one.url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{one.url}/readyz").json() == {"status": "ready"}
    document = httpx.get(f"{one.url}/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert "post" in document["paths"]["/v1/memory/{id}/verify"]
    assert document["paths"]["/v1/memory/{id}/verify"]["post"]["description"].startswith("A human session only")
    httpx.get(f"{one.url}/v1/minds")
    metrics = httpx.get(f"{one.url}/metrics").text
    assert 'mem_http_requests_total{method="GET",route="/v1/minds",status="401"} 1' in metrics
    assert 'mem_http_request_duration_seconds_bucket{le="+Inf"}' in metrics
    missing = httpx.get(f"{one.url}/v1/nothing")
    assert (missing.status_code, missing.json()) == (404, {"error": "no such route"})


def test_a_write_on_one_replica_reads_on_the_other(team: Team) -> None:
    one, two = team.start(2)
    token = team.agent_key("alpha")
    stored = remember(one.url, token, "db_engine", "PostgreSQL 16", tags=["db"])
    assert stored.status_code == 201, stored.text
    memory = stored.json()["memory"]
    assert (memory["mind_id"], memory["source"], memory["verified"]) == ("alpha", "agent", False)
    read = httpx.get(f"{two.url}/v1/memory/{memory['id']}", headers=bearer(token))
    assert read.json() == {"memory": memory}
    found = httpx.get(f"{two.url}/v1/memory/search", params={"q": "postgresql"}, headers=bearer(token)).json()
    assert [m["id"] for m in found["memories"]] == [memory["id"]]
    again = remember(two.url, token, "db_engine", "PostgreSQL 17")
    assert again.status_code == 200 and again.json()["created"] is False
    text = httpx.get(f"{one.url}/v1/memory/recall", headers=bearer(token)).text
    assert text.startswith("Mind: alpha\nMemories: 1 total (0 verified, 1 unverified)\n")
    assert "PostgreSQL 17" in text


def test_an_agent_key_is_kept_to_its_mind(team: Team) -> None:
    (one,) = team.start(1)
    alpha, beta = team.agent_key("alpha"), team.agent_key("beta")
    memory = remember(one.url, alpha, "secret", "alpha's fact").json()["memory"]
    before = team.snapshot()
    assert httpx.get(f"{one.url}/v1/memory/{memory['id']}", headers=bearer(beta)).status_code == 404
    refused = remember(one.url, beta, "secret", "overwritten", mind="alpha")
    assert refused.status_code == 403
    assert refused.json() == {"error": f"the agent key {beta.split('_')[2]} is for the mind beta only"}
    assert httpx.get(f"{one.url}/v1/memory", params={"mind": "alpha"}, headers=bearer(beta)).status_code == 403
    assert httpx.delete(f"{one.url}/v1/memory/{memory['id']}", headers=bearer(beta)).status_code == 404
    listed = httpx.get(f"{one.url}/v1/minds", headers=bearer(beta)).json()
    assert listed == {"minds": [{"name": "beta", "count": 0}]}
    assert team.snapshot() == before


def test_only_a_human_signature_verifies(team: Team) -> None:
    one, two = team.start(2)
    agent = team.agent_key("alpha")
    memory = remember(one.url, agent, "db_engine", "PostgreSQL 16").json()["memory"]
    signed = {"signedAt": NOW, "signature": signature_over(memory, team.ada)}
    before = team.snapshot()
    # an agent key cannot verify, not even with a human's signature in hand
    refused = httpx.post(f"{one.url}/v1/memory/{memory['id']}/verify", json=signed, headers=bearer(agent))
    assert (refused.status_code, refused.json()) == (403, {"error": "only a human may do this; an agent key never can"})
    # nor store as the user
    as_user = remember(one.url, agent, "user_name", "Ada", asUser=True)
    assert as_user.status_code == 403
    assert team.snapshot() == before
    session = team.login(two.url)
    impossible = {"signedAt": "2026-13-45T99:99:99.999Z", "signature": signed["signature"]}
    answer = httpx.post(f"{two.url}/v1/memory/{memory['id']}/verify", json=impossible, headers=bearer(session))
    assert (answer.status_code, answer.json()) == (
        400,
        {"error": "signedAt must be a timestamp YYYY-MM-DDTHH:MM:SS.mmmZ"},
    )
    # a signature over other content is refused, nothing changes
    forged = {"signedAt": NOW, "signature": signature_over({**memory, "content": "other"}, team.ada)}
    wrong = httpx.post(f"{two.url}/v1/memory/{memory['id']}/verify", json=forged, headers=bearer(session))
    assert wrong.status_code == 409, wrong.text
    done = httpx.post(f"{two.url}/v1/memory/{memory['id']}/verify", json=signed, headers=bearer(session))
    assert done.status_code == 200, done.text
    assert done.json()["memory"]["verification"] == "signed"
    read = httpx.get(f"{one.url}/v1/memory/{memory['id']}", headers=bearer(agent)).json()["memory"]
    assert (read["verified"], read["verification"]) == (True, "signed")
    # the verified column is never believed: an edit in the database reads unverified
    import psycopg

    with psycopg.connect(team.dsn or "", autocommit=True) as conn:
        conn.execute("UPDATE mem_memories SET content = 'PostgreSQL 9', verified = true")
    read = httpx.get(f"{one.url}/v1/memory/{memory['id']}", headers=bearer(agent)).json()["memory"]
    assert (read["verified"], read["verification"]) == (False, "signature-invalid")


def test_a_human_row_written_into_the_database_is_not_trusted(team: Team) -> None:
    from mem_core.humans.keys import HumanKey

    (one,) = team.start(1)
    mallory = HumanKey.generate("mallory")
    import psycopg

    with psycopg.connect(team.dsn or "", autocommit=True) as conn:
        conn.execute(
            "INSERT INTO mem_srv_humans VALUES ('mallory', %s, %s, %s, 'sql', 'AAAA', NULL)",
            (mallory.fingerprint, mallory.public_key("user").line().strip(), NOW),
        )
    with pytest.raises(Exception, match="login refused"):
        team.login(one.url, mallory)


def test_revocation_and_expiry_hold_on_every_replica(team: Team) -> None:
    from mem_server.credentials import revoke_key

    one, two = team.start(2)
    token = team.agent_key("alpha")
    expired = team.agent_key("alpha", expires="1d", now="2026-11-01T00:00:00.000Z")
    assert httpx.get(f"{one.url}/v1/minds", headers=bearer(token)).status_code == 200
    answer = httpx.get(f"{two.url}/v1/minds", headers=bearer(expired))
    assert answer.status_code == 401 and "expired" in answer.json()["error"]
    revoke_key(team.db, token.split("_")[2])
    for replica in (one, two):
        refused = httpx.get(f"{replica.url}/v1/minds", headers=bearer(token))
        assert refused.status_code == 401 and "revoked" in refused.json()["error"]


def test_the_rate_limit_is_counted_across_replicas(team: Team) -> None:
    one, two = team.start(2)
    token = team.agent_key("alpha", rate_per_minute=4)
    codes = [httpx.get(f"{r.url}/v1/minds", headers=bearer(token)).status_code for r in (one, two, one, two, one)]
    assert codes == [200, 200, 200, 200, 429]  # MEM_NOW pins the minute


def test_read_only_keys_and_bad_input(team: Team) -> None:
    (one,) = team.start(1)
    reader, writer = team.agent_key("alpha", read_only=True), team.agent_key("alpha")
    before = team.snapshot()
    assert remember(one.url, reader, "k", "v").status_code == 403
    cases = [
        (b"{", 400, "the body is not valid JSON (UTF-8)"),
        (b"[]", 400, "the body must be a JSON object"),
        (json.dumps({"category": "fact", "key": "k", "content": 3}).encode(), 400, "content must be a string"),
        (json.dumps({"category": "fact", "key": "Bad Key", "content": "v"}).encode(), 400, None),
        (json.dumps({"category": "fact", "key": "k", "content": "v", "verified": True}).encode(), 400, None),
        (b"x" * 200_000, 413, "the request body is larger than 131072 bytes"),
    ]
    for body, status, message in cases:
        answer = httpx.post(f"{one.url}/v1/memory", content=body, headers=bearer(writer))
        assert answer.status_code == status, (body[:40], answer.text)
        error = answer.json()["error"]
        assert "\n" not in error and "Traceback" not in error
        if message is not None:
            assert error == message
    assert team.snapshot() == before


def test_the_audit_chain_records_and_detects_edits(team: Team) -> None:
    from mem_server.audit import verify

    (one,) = team.start(1)
    token = team.agent_key("alpha")
    for number in range(3):
        assert remember(one.url, token, f"k{number}", f"value {number}").status_code == 201
    session = team.login(one.url)
    entries = httpx.get(f"{one.url}/v1/audit", headers=bearer(session)).json()["entries"]
    actions = [e["action"] for e in entries]
    assert actions == ["human.add", "key.create", "memory.create", "memory.create", "memory.create", "human.login"]
    assert entries[2]["actor"] == f"key:{token.split('_')[2]}"
    assert verify(team.db, team.db.signer).ok
    cli = [sys.executable, "-m", "mem_cli", "serve", "audit", "verify", "--store", "postgres", "-d", str(team.project)]
    held = subprocess.run(cli, env=team.env, capture_output=True, text=True)
    assert held.returncode == 0, held.stderr
    assert held.stdout.startswith("mem serve audit: 6 entries, the chain holds; head 6:")
    import psycopg

    with psycopg.connect(team.dsn or "", autocommit=True) as conn:
        conn.execute("UPDATE mem_srv_audit SET actor = 'human:ada' WHERE seq = 3")
    broken = subprocess.run(cli, env=team.env, capture_output=True, text=True)
    assert broken.returncode == 1
    assert broken.stderr.startswith("mem serve: the audit chain breaks at entry 3: its hash does not match")
    with psycopg.connect(team.dsn or "", autocommit=True) as conn:
        conn.execute("UPDATE mem_srv_audit SET actor = %s WHERE seq = 3", (entries[2]["actor"],))
        assert verify(team.db, team.db.signer).ok
        conn.execute("DELETE FROM mem_srv_audit WHERE seq = 4")
    report = verify(team.db, team.db.signer)
    assert report.broken == {"seq": 4, "problem": "entry 4 is missing (the next is 5): an entry was deleted"}


def test_the_newest_entries_deleted_show_against_a_logged_head(team: Team) -> None:
    import re
    import time

    from mem_server.audit import verify

    team.env["MEM_SERVE_HEAD_SECONDS"] = "0.2"
    (one,) = team.start(1)
    token = team.agent_key("alpha")
    assert remember(one.url, token, "k", "v").status_code == 201
    deadline = time.monotonic() + 30
    heads: dict[str, str] = {}
    while "3" not in heads and time.monotonic() < deadline:  # 3: human.add, key.create, memory.create
        time.sleep(0.1)
        heads = dict(re.findall(r"audit head (\d+):([0-9a-f]{64})", one.logged()))
    seq, digest = "3", heads["3"]
    import psycopg

    with psycopg.connect(team.dsn or "", autocommit=True) as conn:
        conn.execute("DELETE FROM mem_srv_audit WHERE seq = 3")
    assert verify(team.db, team.db.signer).ok  # a shorter chain holds by itself
    report = verify(team.db, team.db.signer, expect=(int(seq), digest))
    assert report.broken is not None and report.broken["seq"] == 3
    assert "entries were removed or rewritten" in report.broken["problem"]


def test_binding_beyond_loopback_needs_tls_or_insecure_http(team: Team) -> None:
    argv = [sys.executable, "-m", "mem_cli", "serve", "--store", "postgres", "-d", str(team.project), "--host",
            "0.0.0.0", "--port", "1"]  # fmt: skip
    refused = subprocess.run(argv, env=team.env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    assert refused.stderr.startswith("mem serve: binding to 0.0.0.0 needs TLS (--tls-cert and --tls-key)")


def test_sqlite_store_serves_one_person(sqlite_team: Team) -> None:
    (one,) = sqlite_team.start(1)
    token = sqlite_team.agent_key("default")
    assert remember(one.url, token, "k", "value").status_code == 201
    session = sqlite_team.login(one.url)
    listed = httpx.get(f"{one.url}/v1/memory", headers=bearer(session)).json()
    assert [m["key"] for m in listed["memories"]] == ["k"]
    assert (sqlite_team.project / ".bmad" / "memory" / "server.sqlite3").is_file()


def test_mem_human_login_signs_the_challenge_and_keeps_the_session(team: Team) -> None:
    from mem_core.errors import MemError
    from mem_core.humans.keys import HumanKey
    from mem_server.client import login, session_token

    (one,) = team.start(1)
    bob = HumanKey.generate("bob")
    bob.save("correct horse battery")
    ada = team.login(one.url)
    added = httpx.post(f"{one.url}/v1/humans", json={"name": "bob", "publicKey": bob.public_key("user").line()},
                       headers=bearer(ada))  # fmt: skip
    assert added.status_code == 201, added.text
    with pytest.raises(MemError, match="wrong passphrase for the human key bob"):
        login(one.url, passphrase="not the passphrase")
    with pytest.raises(MemError, match="not logged in to"):
        session_token(one.url)
    kept = login(one.url, passphrase="correct horse battery")
    assert (kept["human"], kept["fingerprint"]) == ("bob", bob.fingerprint)
    import os
    import stat

    assert stat.S_IMODE(os.stat(kept["sessionFile"]).st_mode) == 0o600
    token = session_token(one.url)
    assert token.startswith("mem_hs_")
    entries = httpx.get(f"{one.url}/v1/audit", headers=bearer(token)).json()["entries"]
    assert [e["action"] for e in entries][-2:] == ["human.add", "human.login"]
    assert entries[-1]["actor"] == "human:bob"
