"""``/mcp`` on the team server: the ``mem mcp`` tools over streamable HTTP
(the SDK's own client), authenticated by agent keys and kept to their mind,
stateless across two replicas."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from tests.server.kit import Team

pytest.importorskip("mcp")

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


async def call(url: str, token: str, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """One tool call in a new session; (is error, structured result or error text)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as client:
        async with streamable_http_client(f"{url}/mcp", http_client=client) as (read, write, _id):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(name, arguments)
    if result.isError:
        return True, result.content[0].text  # type: ignore[union-attr]
    return False, result.structuredContent


def run(url: str, token: str, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    return anyio.run(call, url, token, name, arguments)


def test_mcp_tools_on_the_server_are_kept_to_the_key_s_mind(team: Team) -> None:
    one, two = team.start(2)
    alpha, beta = team.agent_key("alpha"), team.agent_key("beta")
    reader = team.agent_key("alpha", read_only=True)
    failed, stored = run(one.url, alpha, "remember", {"category": "fact", "key": "db", "content": "PostgreSQL 16"})
    assert not failed, stored
    memory = stored["memory"]
    assert memory["mind_id"] == "alpha"
    # the other replica answers the same key: no session is kept anywhere
    failed, found = run(two.url, alpha, "memories", {"search": "postgresql"})
    assert not failed and [m["id"] for m in found["memories"]] == [memory["id"]]
    # the same answer as the HTTP API's
    api = httpx.get(f"{two.url}/v1/memory/search", params={"q": "postgresql"},
                    headers={"Authorization": f"Bearer {alpha}"}).json()  # fmt: skip
    assert found == api
    before = team.snapshot()
    assert run(one.url, beta, "memories", {"mind": "alpha"}) == (
        True, f"the agent key {beta.split('_')[2]} is for the mind beta only")  # fmt: skip
    failed, message = run(one.url, beta, "forget", {"ref": memory["id"]})
    assert failed and message.startswith(f"No memory {memory['id']}")
    failed, message = run(one.url, reader, "remember", {"category": "fact", "key": "x", "content": "y"})
    assert failed and message.endswith("is read-only")
    failed, message = run(one.url, alpha, "remember", {"category": "fact", "key": "x", "content": "y", "user": True})
    assert failed
    failed, message = run(one.url, beta, "memories", {})  # beta holds none: a mistyped mind is an error
    assert failed and message.startswith("no mind 'beta' in the project store")
    failed, recalled = run(one.url, beta, "recall", {"query": "postgresql"})
    assert not failed and recalled["results"] == []
    assert team.snapshot() == before
    # no verify tool: a human's signature never comes from an agent
    assert "verify" not in {tool.name for tool in __import__("mem_core.mcp.tools", fromlist=["TOOLS"]).TOOLS}
    failed, recalled = run(one.url, alpha, "recall", {"query": "postgresql"})
    assert not failed and [r["ref"] for r in recalled["results"]] == ["fact/db"]


def test_mcp_refuses_what_is_not_an_agent_key(team: Team) -> None:
    (one,) = team.start(1)
    human = team.login(one.url)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    assert httpx.post(f"{one.url}/mcp", content=body, headers=headers).status_code == 401
    refused = httpx.post(f"{one.url}/mcp", content=body, headers={**headers, "Authorization": f"Bearer {human}"})
    assert refused.status_code == 403
    assert refused.json() == {"error": "/mcp is for agent keys; a human uses the API or the CLI"}
