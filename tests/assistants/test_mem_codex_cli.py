"""``mem adapters install codex-cli``, then one headless ``codex exec`` turn against the fake model.

What ``mem`` wrote must reach the requests Codex really sends: the ``AGENTS.md`` block, the
session brief of the SessionStart hook and the recall of the UserPromptSubmit hook (both as
``developer`` messages), ``mem``'s MCP tools (namespace ``mcp__mem``); the fake model calls
``recall`` and the decision's section comes back in the next request and in the printed
answer; the Stop hook journals the session once. The project is trusted the way a user
trusts it (``[projects."<project>"] trust_level = "trusted"`` in ``~/.codex/config.toml``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import programs
import project_memory as pm
import pytest
from fake_model import FakeModel

ASSISTANT = "codex-cli"


@dataclass
class Turn:
    project: Path
    home: Path
    installed: programs.Completed
    done: programs.Completed
    fake: FakeModel


@pytest.fixture(scope="module")
def turn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Turn]:
    programs.need(ASSISTANT)
    project, home = pm.make_project(tmp_path_factory.mktemp("codex"))
    installed = pm.install(ASSISTANT, project, home)
    with FakeModel() as fake:
        fake.call_tool("recall", {"query": pm.QUERY})
        done = programs.RUN_TURN[ASSISTANT](project, home, pm.PROMPT, fake.url)
        yield Turn(project, home, installed, done, fake)


def developer_texts(turn: Turn) -> list[str]:
    """The text of the ``developer`` messages (where Codex puts the hooks' additionalContext) of the first request."""
    first = turn.fake.requests[0].body
    return [
        part.get("text", "")
        for item in first["input"]
        if item.get("role") == "developer"
        for part in item.get("content", [])
    ]


def test_the_turn_succeeds(turn: Turn) -> None:
    assert turn.done.returncode == 0, turn.done.describe()
    assert [r.path for r in turn.fake.requests] == ["/v1/responses", "/v1/responses"], turn.done.describe()
    assert all(r.status == 200 for r in turn.fake.requests)
    assert "AGENTS.md" in turn.installed.stdout and "trusted" in turn.installed.stdout


def test_the_instruction_block_is_sent(turn: Turn) -> None:
    first = turn.fake.requests[0]
    assert any(pm.BLOCK_PHRASE in text and "<!-- mem:begin -->" in text for text in first.texts())


def test_the_session_brief_is_sent(turn: Turn) -> None:
    briefs = [t for t in developer_texts(turn) if t.startswith("# Project memory (mem brief)")]
    assert len(briefs) == 1, developer_texts(turn)
    assert f"- {pm.DECISION}" in briefs[0] and f"- {pm.LESSON}" in briefs[0]
    assert pm.FAILURE_TASK in briefs[0]


def test_the_prompt_recall_is_sent(turn: Turn) -> None:
    recalls = [t for t in developer_texts(turn) if t.startswith("Project memory relevant to this prompt")]
    assert len(recalls) == 1, developer_texts(turn)
    assert pm.DECISION in recalls[0] and pm.DECISION_TEXT in recalls[0]


def test_mem_tools_are_offered(turn: Turn) -> None:
    offered = set(turn.fake.requests[0].tool_names())
    assert {programs.mcp_tool_name(ASSISTANT, "mem", tool) for tool in pm.MEM_TOOLS} <= offered, sorted(offered)
    assert not any(name.startswith("mcp__mem__") and "verify" in name for name in offered)


def test_the_recall_result_comes_back(turn: Turn) -> None:
    second = turn.fake.requests[1]
    results = second.tool_results()
    assert len(results) == 1 and pm.DECISION_TEXT in results[0], results
    # Codex wraps the tool's output ("Wall time: …\nOutput:\n<the JSON of mem recall --json>")
    answer = json.loads(results[0].split("Output:\n", 1)[1])
    top = answer["results"][0]
    assert (top["kind"], top.get("sourceFile"), top.get("ref")) == ("note", ".agents/memory/decisions.md", pm.DECISION)
    assert pm.DECISION_TEXT in turn.done.stdout and turn.fake.reply_text in turn.done.stdout


def test_the_stop_hook_journals_the_session_once(turn: Turn) -> None:
    events = pm.new_events(turn.project)
    assert len(events) == 1, events
    assert (events[0]["agent"], events[0]["cli"], events[0]["task"]) == (ASSISTANT, ASSISTANT, pm.PROMPT)


def test_mcp_list_reads_the_project_server(turn: Turn) -> None:
    """``codex mcp list`` only reads the configuration (no health check; the turn above proved the
    connection, ``required = true`` fails the turn otherwise): it sees the trusted project's server."""
    codex_home = turn.home / ".codex"
    env = programs.base_env(turn.home, turn.fake.url, {"CODEX_HOME": str(codex_home)})
    listed = programs._run([programs.executable(ASSISTANT), "mcp", "list", "--json"], turn.project, env, 60)
    assert listed.returncode == 0, listed.describe()
    servers = {s["name"]: s for s in json.loads(listed.stdout)}
    assert servers["mem"]["enabled"] is True
    assert servers["mem"]["transport"]["command"] == "mem" and servers["mem"]["transport"]["args"] == ["mcp"]


def test_no_traffic_but_loopback(turn: Turn) -> None:
    assert turn.fake.escapes() == []
    assert not (turn.project / ".bmad" / "memory" / "hooks.log").exists()
