"""A team server with something to review, for the review pages' tests (over
HTTP here, in Chromium in tests/browser): memories stored by an agent key
(one holding a ``<script>``), two proposed promotions, journal events; the
first human's key kept with a passphrase on the server's host and trusted by
the project too, so the command line checks the signatures the pages make."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import httpx

from mem_core.humans.keys import write_public_key
from tests.server.kit import Replica, Team

__all__ = ["PASSPHRASE", "SCRIPT", "Seeded", "seed", "mem_cli", "form_csrf", "PAGES", "ACTIONS"]

PASSPHRASE = "correct horse battery"
#: stored by an agent: must be shown as text and never run
SCRIPT = "<script>document.title='pwned';window.pwned=1</script><img src=x onerror=\"window.pwned=2\">"
#: every page, and every action with the form fields it takes ({id}: a memory's, {pid}: a promotion's)
PAGES = ("/review", "/review/journal", "/review/charts", "/review/receipts", "/review/memories",
         "/review/search?q=fact", "/review/memory/{id}")  # fmt: skip
ACTIONS = (
    ("/review/memory/{id}/verify", {"passphrase": PASSPHRASE}),
    ("/review/memory/{id}/edit", {"content": "edited", "passphrase": PASSPHRASE}),
    ("/review/memory/{id}/forget", {}),
    ("/review/promotion/{pid}/decide", {"decision": "accept", "reason": "r"}),
    ("/review/logout", {}),
)


@dataclass
class Seeded:
    team: Team
    replica: Replica
    agent: str
    memories: dict[str, dict[str, Any]]
    promotions: dict[str, str]

    @property
    def url(self) -> str:
        return self.replica.url


def seed(team: Team, memories: int = 4) -> Seeded:
    """Start a replica and store what the review shows; the caller has
    pointed ``MEM_USER_CONFIG`` at ``team.env``'s (the key is kept there)."""
    team.ada.save(PASSPHRASE)
    write_public_key(team.ada.public_key("project"), str(team.project))
    [replica] = team.start(1)
    agent = team.agent_key("alpha")
    headers = {"Authorization": f"Bearer {agent}"}
    stored: dict[str, dict[str, Any]] = {}
    for number in range(memories):
        content = SCRIPT if number == 0 else f"fact number {number}: the build needs node 20"
        answer = httpx.post(f"{replica.url}/v1/memory", headers=headers, json={
            "category": "fact", "key": f"k{number}", "content": content, "mind": "alpha", "tags": ["build"],
            "confidence": 0.6, "expires": "30d"})  # fmt: skip
        assert answer.status_code == 201, answer.text
        stored[f"k{number}"] = answer.json()["memory"]
    events = []
    for task, outcome in (("deploy <b>api</b>", "failure"), ("fix the cache", "success"), ("write docs", "partial")):
        answer = httpx.post(f"{replica.url}/v1/journal", headers=headers, json={"task": task, "outcome": outcome,
                                                                               "cli": "claude-code"})  # fmt: skip
        assert answer.status_code == 201, answer.text
        events.append(answer.json()["written"]["id"])
    promotions = {}
    for pattern in ("Rate limit", "Cache <shortcut>"):
        for accept, ci in (("true", "pass"), ("true", "fail"), ("true", "pass"), ("true", "pass")):
            answer = httpx.post(f"{replica.url}/v1/reinforce", headers=headers, json={
                "pattern": pattern, "signals": {"accept": accept, "ci": ci}, "evidence": events[1]})  # fmt: skip
            assert answer.status_code == 200, answer.text
            if answer.json()["promotion"] is not None:
                promotions.setdefault(pattern, answer.json()["promotion"]["id"])
    assert len(promotions) == 2
    return Seeded(team, replica, agent, stored, promotions)


def mem_cli(team: Team, *args: str) -> dict[str, Any]:
    """``mem … --json -d <the server's project>`` in a process of its own: what the command line reads."""
    proc = subprocess.run([sys.executable, "-m", "mem_cli", *args, "--json", "-d", str(team.project)],
                          capture_output=True, text=True, timeout=60, env=team.env, start_new_session=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def form_csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, html[:500]
    return found.group(1)
