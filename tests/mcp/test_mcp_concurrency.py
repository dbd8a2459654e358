"""8 concurrent clients × 100 mixed calls (recall, write, remember, memories):
no error, no lost write — through one HTTP server (one kernel, calls in
worker threads) and through eight stdio servers (eight processes)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.conftest import cli_json, http_session, stdio_session

CLIENTS = 8
CALLS = 100

pytestmark = pytest.mark.slow


def _seed(project: Path) -> None:
    notes = project / ".agents" / "memory"
    notes.mkdir(parents=True)
    (notes / "decisions.md").write_text(
        "# Decisions\n\n### Use queues for jobs\nBullMQ with retries.\n\n### Cache tokens\nRedis, 5 minutes.\n",
        encoding="utf-8",
    )


async def _client(session: Any, client: int, failures: list[str]) -> tuple[int, int]:
    writes = remembered = 0
    for i in range(CALLS):
        kind = i % 4
        if kind == 0:
            result = await session.call_tool("recall", {"query": "queues retries cache"})
        elif kind == 1:
            result = await session.call_tool("write", {"agent": f"agent{client}", "task": f"task {client} {i}"})
            writes += 1
        elif kind == 2:
            result = await session.call_tool(
                "remember", {"category": "fact", "key": f"c{client}_n{i}", "content": f"fact {client} {i}"}
            )
            remembered += 1
        else:
            result = await session.call_tool("memories", {"search": "fact", "limit": 5})
        if result.isError:
            failures.append(f"client {client} call {i}: {result.content[0].text}")
    return writes, remembered


def _check(project: Path, failures: list[str], totals: list[tuple[int, int]]) -> None:
    assert failures == []
    writes = sum(w for w, _ in totals)
    remembered = sum(r for _, r in totals)
    assert writes == CLIENTS * CALLS // 4
    lines = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8").splitlines()
    assert len(lines) == writes
    tasks = {json.loads(line)["task"] for line in lines}
    assert len(tasks) == writes  # every write is there, none torn or doubled
    code, listed = cli_json(project, "memories", "--limit", "100000")
    assert code == 0 and listed["count"] == remembered == CLIENTS * CALLS // 4
    assert len({m["key"] for m in listed["memories"]}) == remembered


def _all_clients(one: Callable[[int], Awaitable[None]]) -> None:
    """``one(client)`` for each of the CLIENTS clients at once, within four minutes."""

    async def main() -> None:
        with anyio.fail_after(240):
            async with anyio.create_task_group() as group:
                for client in range(CLIENTS):
                    group.start_soon(one, client)

    anyio.run(main)


def test_eight_http_clients_on_one_server(project: Path, http_server: Any) -> None:
    _seed(project)
    server = http_server(project)
    failures: list[str] = []
    totals: list[tuple[int, int]] = []

    async def one(client: int) -> None:
        async with http_session(server.url) as session:
            totals.append(await _client(session, client, failures))

    _all_clients(one)
    _check(project, failures, totals)
    assert server.close() == b""


def test_eight_stdio_servers(project: Path, tmp_path: Path) -> None:
    _seed(project)
    failures: list[str] = []
    totals: list[tuple[int, int]] = []

    async def one(client: int) -> None:
        async with stdio_session(project, tmp_path / f"err-{client}.log") as session:
            totals.append(await _client(session, client, failures))

    _all_clients(one)
    _check(project, failures, totals)
