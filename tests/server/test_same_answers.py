"""The server answers what the command line answers: the same memories
stored through the API and through ``mem remember`` in a local project
give the same JSON (ids aside) for remember, memories (list, search, tag,
expiring), history, the context summary and recall."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from tests.server.kit import Team

MEMORIES = [
    {"category": "project", "key": "synapse_status", "content": "v1.5.0 deployed", "tags": ["synapse", "deploy"],
     "priority": "high"},
    {"category": "fact", "key": "db_engine", "content": "PostgreSQL 16 with pgvector", "tags": ["db"]},
    {"category": "context", "key": "meeting_topic", "content": "Discussing the Q3 roadmap", "expires": "12h"},
    {"category": "mistake", "key": "cache_zero", "content": "Never drop zero values from the cache",
     "confidence": "0.9"},
]  # fmt: skip


def normalized(value: Any) -> str:
    ids: dict[str, str] = {}
    text = json.dumps(value, sort_keys=True)
    return re.sub(r"mem_[0-9a-f]{16}", lambda m: ids.setdefault(m.group(0), f"mem_<{len(ids)}>"), text)


def cli_args(memory: dict[str, Any]) -> list[str]:
    args = ["remember", memory["category"], memory["key"], memory["content"], "--mind", "alpha", "--json"]
    for name in ("priority", "expires", "confidence"):
        if name in memory:
            args += [f"--{name}", memory[name]]
    if "tags" in memory:
        args += ["--tag", ",".join(memory["tags"])]
    return args


def test_the_api_gives_the_command_line_s_answers(team: Team, mem: Any, tmp_path: Path) -> None:
    (one,) = team.start(1)
    token = team.agent_key("alpha")
    headers = {"Authorization": f"Bearer {token}"}
    local = tmp_path / "local"
    (local / ".bmad" / "memory").mkdir(parents=True)
    d = ["-d", str(local)]

    def cli(*args: str) -> Any:
        run = mem(*args, *d)
        assert run.code == 0, run.err
        return json.loads(run.out)

    for memory in MEMORIES:
        served = httpx.post(f"{one.url}/v1/memory", json=memory, headers=headers)
        assert served.status_code == 201, served.text
        assert normalized(served.json()) == normalized(cli(*cli_args(memory)))

    def get(path: str, **params: str) -> Any:
        answer = httpx.get(f"{one.url}{path}", params=params, headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    assert normalized(get("/v1/memory")) == normalized(cli("memories", "--mind", "alpha", "--json"))
    assert normalized(get("/v1/memory/search", q="postgresql cache")) == normalized(
        cli("memories", "--mind", "alpha", "--search", "postgresql cache", "--json"))  # fmt: skip
    assert normalized(get("/v1/memory/by-tag", tag="db")) == normalized(
        cli("memories", "--mind", "alpha", "--tag", "db", "--json"))  # fmt: skip
    assert normalized(get("/v1/memory/expiring", within="1d")) == normalized(
        cli("memories", "--mind", "alpha", "--expiring", "1d", "--json"))  # fmt: skip
    memory_id = get("/v1/memory/search", q="pgvector")["memories"][0]["id"]
    history = get(f"/v1/memory/{memory_id}/history")
    assert normalized(history) == normalized(cli("memories", "history", "fact/db_engine", "--mind", "alpha", "--json"))
    summary = httpx.get(f"{one.url}/v1/memory/recall", headers=headers).text
    run = mem("context", "--mind", "alpha", *d)
    assert summary == run.out
    recalled = get("/v1/recall", q="postgresql deployed")
    local_recall = cli("recall", "postgresql deployed", "--json")
    assert normalized(recalled["results"]) == normalized(local_recall["results"])
