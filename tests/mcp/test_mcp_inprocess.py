"""The server's tool layer in-process: what a model may not do, and calls
from many threads on one kernel."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mem_core.humans.proof import NO_HUMAN
from mem_core.mcp.server import MemServer, ToolFailure, parse_http
from mem_core.mcp.tools import TOOLS
from tests.humans import signer_for


@pytest.fixture
def server(project: Path, kernel) -> MemServer:
    return MemServer(str(project), kernel=kernel)


def test_a_memory_a_human_confirmed_cannot_be_forgotten_by_a_tool(server: MemServer, project: Path) -> None:
    from mem_core import remember

    remember("fact", "owner", "Ana owns billing", as_user=True, signer=signer_for(project), directory=str(project))
    with pytest.raises(ToolFailure) as caught:
        server.call("forget", {"ref": "fact/owner"})
    assert caught.value.message == NO_HUMAN["forget"]
    listed, _ = server.call("memories", {})
    assert [m["key"] for m in listed["memories"]] == ["owner"]
    # what an agent stored, it may forget
    server.call("remember", {"category": "fact", "key": "tmp", "content": "scratch"})
    forgotten, text = server.call("forget", {"ref": "fact/tmp"})
    assert forgotten["forgotten"]["key"] == "tmp" and json.loads(text) == forgotten


def test_no_tool_stores_as_the_user_or_chooses_the_project(server: MemServer, project: Path, tmp_path: Path) -> None:
    for arguments in (
        {"category": "fact", "key": "k", "content": "c", "as_user": True},
        {"category": "fact", "key": "k", "content": "c", "directory": str(tmp_path)},
    ):
        with pytest.raises(ToolFailure, match="Input validation error: Additional properties are not allowed"):
            server.call("remember", arguments)
    stored, _ = server.call("remember", {"category": "fact", "key": "k", "content": "c"})
    assert stored["memory"]["source"] == "agent" and stored["memory"]["verified"] is False
    assert "verify" not in {tool.name for tool in TOOLS}
    for tool in TOOLS:
        assert tool.read_only == (tool.annotations()["readOnlyHint"]) and not (tool.read_only and tool.writes)


def test_calls_from_many_threads_share_one_kernel(server: MemServer, project: Path) -> None:
    def work(n: int) -> None:
        for i in range(25):
            server.call("write", {"agent": f"t{n}", "task": f"job {n} {i}"})
            server.call("recall", {"query": "job"})
            server.call("remember", {"category": "note", "key": f"t{n}_{i}", "content": f"note {n} {i}"})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(8)))
    lines = (project / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8").splitlines()
    assert len({json.loads(line)["task"] for line in lines}) == len(lines) == 200
    listed, _ = server.call("memories", {"limit": 1000})
    assert listed["count"] == 200


def test_results_are_plain_json(server: MemServer) -> None:
    written, text = server.call("write", {"agent": "a", "eval": 1, "accept": False, "ci": 0.5, "signals": {}})
    assert written["written"]["signals"] == {"evalScore": 1, "acceptance": False, "ci": 0.5}
    assert text.startswith('{"written":{"ts":') and "\n" not in text and json.loads(text) == written


@pytest.mark.parametrize(
    ("value", "parsed"),
    [("127.0.0.1:8765", ("127.0.0.1", 8765)), ("localhost:0", ("localhost", 0)), ("[::1]:9", ("::1", 9))],
)
def test_parse_http(value: str, parsed: tuple[str, int]) -> None:
    assert parse_http(value) == parsed


def test_a_tool_cannot_change_what_the_user_stated_and_keeps_what_it_does_not_mention(
    server: MemServer, project: Path
) -> None:
    from mem_core import remember
    from tests.humans import signer_for

    remember("identity", "user_name", "Ada Lovelace", as_user=True, signer=signer_for(project), directory=str(project))
    with pytest.raises(ToolFailure) as caught:
        server.call("remember", {"category": "identity", "key": "user_name", "content": "Mallory"})
    assert caught.value.message == "identity/user_name was stated by a human; only a human can change it"
    server.call(
        "remember", {"category": "fact", "key": "db", "content": "sqlite", "tags": ["storage"], "priority": "high"}
    )
    updated, _ = server.call("remember", {"category": "fact", "key": "db", "content": "postgres"})
    assert (updated["memory"]["tags"], updated["memory"]["priority"]) == (["storage"], "high")
