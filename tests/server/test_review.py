"""The review pages over real HTTP (docs/server.md, Review in the browser):
a human's session only, every form's CSRF token, a strict CSP, stored text
escaped; each action through the command line's code, seen by the command
line and in the audit log. tests/browser drives the same pages in Chromium."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from mem_server import audit
from tests.server.kit import Team, snapshot
from tests.server.review_kit import ACTIONS, PAGES, PASSPHRASE, Seeded, form_csrf, mem_cli, seed


@pytest.fixture
def seeded(sqlite_team: Team, monkeypatch: pytest.MonkeyPatch) -> Iterator[Seeded]:
    monkeypatch.setenv("MEM_USER_CONFIG", sqlite_team.env["MEM_USER_CONFIG"])
    yield seed(sqlite_team)


@pytest.fixture
def client(seeded: Seeded) -> Iterator[httpx.Client]:
    """A human's browser, logged in."""
    with httpx.Client(base_url=seeded.url, follow_redirects=False, timeout=30) as client:
        yield logged_in(client)


def logged_in(client: httpx.Client) -> httpx.Client:
    page = client.get("/review/login")
    answer = client.post("/review/login", data={"csrf": form_csrf(page.text), "name": "ada", "passphrase": PASSPHRASE})
    assert answer.status_code == 303 and answer.headers["location"] == "/review", answer.text
    cookie = answer.headers["set-cookie"]
    assert "mem_review=mem_hs_" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Path=/review" in cookie
    return client


def paths(seeded: Seeded, template: str) -> str:
    return template.format(id=seeded.memories["k1"]["id"], pid=seeded.promotions["Rate limit"])


def test_pages_for_a_human_only_and_nothing_changes_when_refused(seeded: Seeded) -> None:
    team = seeded.team
    before = snapshot(team)
    for template in PAGES:
        path = paths(seeded, template)
        answer = httpx.get(f"{seeded.url}{path}", follow_redirects=False)
        assert (answer.status_code, answer.headers.get("location")) == (303, "/review/login"), path
        for headers, cookies in (({"Authorization": f"Bearer {seeded.agent}"}, {}), ({}, {"mem_review": seeded.agent})):
            answer = httpx.get(f"{seeded.url}{path}", headers=headers, cookies=cookies, follow_redirects=False)
            assert answer.status_code == 403, path
            assert "an agent key never can" in answer.text
    for template, fields in ACTIONS:
        path = paths(seeded, template)
        for headers, cookies in (({}, {}), ({"Authorization": f"Bearer {seeded.agent}"}, {}),
                                 ({}, {"mem_review": seeded.agent})):  # fmt: skip
            answer = httpx.post(f"{seeded.url}{path}", data={**fields, "csrf": "x"}, headers=headers, cookies=cookies,
                                follow_redirects=False)  # fmt: skip
            assert answer.status_code == 403, (path, headers, cookies)
    assert snapshot(team) == before


def test_headers_escaping_and_csrf(seeded: Seeded, client: httpx.Client) -> None:
    queue = client.get("/review")
    assert queue.status_code == 200
    assert queue.headers["content-security-policy"].startswith("default-src 'none'")
    assert "script-src" not in queue.headers["content-security-policy"]  # none allowed: default-src 'none'
    assert queue.headers["x-frame-options"] == "DENY"
    assert "<script" not in queue.text and "&lt;script&gt;document.title=" in queue.text
    assert "<img src=x" not in queue.text
    assert "alpha · success · fix the cache" in queue.text  # the evidence event, from the journal
    for template in PAGES:
        page = client.get(paths(seeded, template))
        assert page.status_code == 200 and "<script" not in page.text.lower(), template
    before = snapshot(seeded.team)
    for template, fields in ACTIONS:
        path = paths(seeded, template)
        for forged in ({}, {"csrf": "not-the-token"}):
            answer = client.post(path, data={**fields, **forged})
            assert answer.status_code == 403 and "CSRF" in answer.text, path
        answer = client.post(path, data={**fields, "csrf": form_csrf(queue.text)},
                             headers={"Origin": "http://evil.example"})  # fmt: skip
        assert answer.status_code == 403, path
    assert snapshot(seeded.team) == before


def test_actions_are_the_command_lines(seeded: Seeded, client: httpx.Client) -> None:
    csrf = form_csrf(client.get("/review").text)
    ids = {key: memory["id"] for key, memory in seeded.memories.items()}
    wrong = client.post(f"/review/memory/{ids['k1']}/verify", data={"csrf": csrf, "passphrase": "wrong passphrase"})
    assert wrong.status_code == 400
    done = client.post(f"/review/memory/{ids['k1']}/verify",
                       data={"csrf": csrf, "passphrase": PASSPHRASE, "back": "/review"})  # fmt: skip
    assert (done.status_code, done.headers["location"]) == (303, "/review?done=verified")
    done = client.post(f"/review/memory/{ids['k2']}/edit", data={"csrf": csrf, "passphrase": PASSPHRASE,
                                                                 "content": "node 22 now"})  # fmt: skip
    assert done.status_code == 303, done.text
    assert client.post(f"/review/memory/{ids['k3']}/forget", data={"csrf": csrf}).status_code == 303
    rate, cache = seeded.promotions["Rate limit"], seeded.promotions["Cache <shortcut>"]
    assert client.post(f"/review/promotion/{rate}/decide", data={"csrf": csrf, "decision": "accept",
                                                                 "reason": "holds"}).status_code == 303  # fmt: skip
    assert client.post(f"/review/promotion/{cache}/decide", data={"csrf": csrf, "decision": "reject",
                                                                  "reason": "too early"}).status_code == 303  # fmt: skip
    again = client.post(f"/review/promotion/{cache}/decide", data={"csrf": csrf, "decision": "accept", "reason": "r"})
    assert again.status_code == 400 and "decided already" in again.text
    # the command line, in a process of its own, over the same store
    listed = {m["key"]: m for m in mem_cli(seeded.team, "memories", "--mind", "alpha")["memories"]}
    assert (listed["k1"]["verified"], listed["k1"]["verification"]) == (True, "signed")
    assert (listed["k2"]["verified"], listed["k2"]["content"]) == (True, "node 22 now")
    assert "k3" not in listed and listed["k0"]["verified"] is False
    decided = {d["pattern"]: d for d in mem_cli(seeded.team, "promotions")["decisions"]}
    assert (decided["Rate limit"]["status"], decided["Rate limit"]["by"], decided["Rate limit"]["reason"]) == (
        "APPROVED", "ada", "holds")  # fmt: skip
    assert (decided["Cache <shortcut>"]["status"], decided["Cache <shortcut>"]["decidedWith"]) == (
        "REJECTED",
        "session",
    )
    # and the MCP tools an agent has, over the same project: verified as the browser left it, and the brief
    # no longer lists the decided promotions as awaiting a decision
    from mem_core.mcp.server import MemServer

    tools = MemServer(str(seeded.team.project))
    by_tool = {m["key"]: m for m in tools.call("memories", {"mind": "alpha"})[0]["memories"]}
    assert (by_tool["k1"]["verified"], by_tool["k2"]["verified"], "k3" in by_tool) == (True, True, False)
    brief = tools.call("brief", {})[0]
    awaiting = [item["patternId"] for section in brief["sections"] if section["name"] == "promotions"
                for item in section["items"]]  # fmt: skip
    assert "Rate limit" not in awaiting and "Cache <shortcut>" not in awaiting
    actions = [e["action"] for e in audit.entries(seeded.team.db, limit=1000) if e["actor"] == "human:ada"]
    for name in ("memory.verify", "memory.update", "memory.delete", "promotion.accept", "promotion.reject"):
        assert name in actions
    # a row edited in the database reads unverified: verified comes from the signature
    with closing(sqlite3.connect(Path(seeded.team.project) / ".bmad/memory/memories.sqlite3")) as conn:
        conn.execute("UPDATE memories SET content = 'edited by hand' WHERE id = ?", (ids["k1"],))
        conn.commit()
    listed = {m["key"]: m for m in mem_cli(seeded.team, "memories", "--mind", "alpha")["memories"]}
    assert (listed["k1"]["verified"], listed["k1"]["verification"]) == (False, "signature-invalid")


def test_the_api_records_a_decision_too(seeded: Seeded) -> None:
    token = seeded.team.login(seeded.url)
    rate = seeded.promotions["Rate limit"]
    refused = httpx.post(f"{seeded.url}/v1/promotions/{rate}/decision", json={"decision": "accept", "reason": "r"},
                         headers={"Authorization": f"Bearer {seeded.agent}"})  # fmt: skip
    assert refused.status_code == 403
    answer = httpx.post(f"{seeded.url}/v1/promotions/{rate}/decision", json={"decision": "accept", "reason": "ok"},
                        headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    record = answer.json()["promotion"]
    assert (record["status"], record["approvedBy"], record["decidedWith"]) == ("APPROVED", "ada", "session")
    answer = httpx.post(f"{seeded.url}/v1/promotions/{rate}/decision", json={"decision": "reject", "reason": "no"},
                        headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert answer.status_code == 409


def test_the_stored_script_is_text_in_every_view(seeded: Seeded, client: httpx.Client) -> None:
    memory = client.get(f"/review/memory/{seeded.memories['k0']['id']}")
    assert "&lt;script&gt;" in memory.text and "<script" not in memory.text
    search = client.get("/review/search", params={"q": "pwned script"})
    assert "<script" not in search.text
    assert "&lt;b&gt;api&lt;/b&gt;" in client.get("/review/journal").text
    assert "Cache &lt;shortcut&gt;" in client.get("/review/charts").text
    assert "<svg" in client.get("/review/charts").text


def test_a_decision_is_seen_by_a_second_replica_over_postgres(team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_USER_CONFIG", team.env["MEM_USER_CONFIG"])
    seeded = seed(team)
    [other] = team.start(1)
    with httpx.Client(base_url=seeded.url, follow_redirects=False, timeout=30) as client:
        csrf = form_csrf(logged_in(client).get("/review").text)
        memory = seeded.memories["k1"]["id"]
        assert (
            client.post(f"/review/memory/{memory}/verify", data={"csrf": csrf, "passphrase": PASSPHRASE}).status_code
            == 303
        )
        rate = seeded.promotions["Rate limit"]
        decided = client.post(
            f"/review/promotion/{rate}/decide", data={"csrf": csrf, "decision": "accept", "reason": "ok"}
        )
        assert decided.status_code == 303
    headers = {"Authorization": f"Bearer {seeded.agent}"}
    read = httpx.get(f"{other.url}/v1/memory/{memory}", headers=headers).json()["memory"]
    assert (read["verified"], read["verification"]) == (True, "signed")
    records = httpx.get(f"{other.url}/v1/promotions", headers=headers).json()["promotions"]
    assert [(r["status"], r["approvedBy"]) for r in records if r["id"] == rate][-1] == ("APPROVED", "ada")
    listed = {m["key"]: m for m in mem_cli(team, "memories", "--mind", "alpha")["memories"]}
    assert listed["k1"]["verified"] is True
