"""``mem adapters install opencode``, then one headless ``opencode run`` turn against the fake model.

OpenCode has no hook file: the adapter writes the plugin module ``.opencode/plugin/mem.js``,
which runs ``mem hook`` and pushes the brief and the prompt's recall into the system prompt
(``experimental.chat.system.transform``) and journals the session on ``session.idle``. What
``mem`` wrote must reach the requests OpenCode really sends: the ``AGENTS.md`` block, the
brief, the recall, ``mem``'s MCP tools (``mem_<tool>``); the fake model calls ``mem_recall``
and the decision's section comes back in the next request and in the printed answer;
``opencode mcp list`` reports ``mem`` connected.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import programs
import project_memory as pm
import pytest
from fake_model import FakeModel, Recorded

ASSISTANT = "opencode"


@dataclass
class Turn:
    project: Path
    home: Path
    installed: programs.Completed
    done: programs.Completed
    listed: programs.Completed
    fake: FakeModel


@pytest.fixture(scope="module")
def turn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Turn]:
    programs.need(ASSISTANT)
    project, home = pm.make_project(tmp_path_factory.mktemp("opencode"))
    installed = pm.install(ASSISTANT, project, home)
    with FakeModel() as fake:
        fake.call_tool("recall", {"query": pm.QUERY})
        done = programs.RUN_TURN[ASSISTANT](project, home, pm.PROMPT, fake.url)
        listed = programs.MCP_LIST[ASSISTANT](project, home, fake.url)
        yield Turn(project, home, installed, done, listed, fake)


def turn_requests(turn: Turn) -> list[Recorded]:
    """The requests of the turn itself (they offer tools; the title request before them does not)."""
    return [r for r in turn.fake.requests if r.tool_names()]


def system_prompt(rec: Recorded) -> str:
    return "\n".join(m["content"] for m in rec.body["messages"] if m["role"] == "system")


def test_the_turn_succeeds(turn: Turn) -> None:
    assert turn.done.returncode == 0, turn.done.describe()
    assert all(r.path == "/v1/chat/completions" and r.status == 200 for r in turn.fake.requests), turn.fake.paths()
    assert len(turn_requests(turn)) == 2, turn.fake.paths()
    assert (turn.project / ".opencode" / "plugin" / "mem.js").is_file()


def test_the_instruction_block_is_in_the_system_prompt(turn: Turn) -> None:
    system = system_prompt(turn_requests(turn)[0])
    assert "<!-- mem:begin -->" in system and pm.BLOCK_PHRASE in system


def test_the_plugin_puts_the_brief_in_the_system_prompt(turn: Turn) -> None:
    system = system_prompt(turn_requests(turn)[0])
    assert system.count("# Project memory (mem brief)") == 1, system[-3000:]
    assert f"- {pm.DECISION}" in system and f"- {pm.LESSON}" in system and pm.FAILURE_TASK in system


def test_the_plugin_puts_the_prompt_recall_in_the_system_prompt(turn: Turn) -> None:
    system = system_prompt(turn_requests(turn)[0])
    assert system.count("Project memory relevant to this prompt") == 1, system[-3000:]
    recall = system.split("Project memory relevant to this prompt", 1)[1]
    assert pm.DECISION in recall and pm.DECISION_TEXT in recall


def test_mem_tools_are_offered(turn: Turn) -> None:
    offered = set(turn_requests(turn)[0].tool_names())
    assert {programs.mcp_tool_name(ASSISTANT, "mem", tool) for tool in pm.MEM_TOOLS} <= offered, sorted(offered)
    assert not any(name.startswith("mem_") and "verify" in name for name in offered)


def test_the_recall_result_comes_back(turn: Turn) -> None:
    results = turn_requests(turn)[1].tool_results()
    assert len(results) == 1, results
    top = json.loads(results[0])["results"][0]  # the tool's structured output: mem recall --json
    assert (top["kind"], top["sourceFile"], top["ref"]) == ("note", ".agents/memory/decisions.md", pm.DECISION)
    assert pm.DECISION_TEXT in top["text"]
    assert pm.DECISION_TEXT in turn.done.stdout and turn.fake.reply_text in turn.done.stdout


def test_session_idle_journals_the_session_once(turn: Turn) -> None:
    events = pm.new_events(turn.project)
    assert len(events) == 1, events
    assert (events[0]["agent"], events[0]["cli"]) == (ASSISTANT, ASSISTANT)
    # `opencode run` sends a message argument holding a space in double quotes: that is the prompt
    assert events[0]["task"] in (pm.PROMPT, f'"{pm.PROMPT}"')


def test_mcp_list_reports_mem_connected(turn: Turn) -> None:
    programs.assert_listed(turn.listed, "mem", "connected")


def test_no_traffic_but_loopback(turn: Turn) -> None:
    assert turn.fake.escapes() == []
    assert not (turn.project / ".bmad" / "memory" / "hooks.log").exists()
