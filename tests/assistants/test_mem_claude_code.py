"""Claude Code with ``mem``: ``mem adapters install claude-code --approve`` in a project with
memory in it, then one headless turn of the real ``claude`` against the fake model.

The turn runs once for the module (a few seconds); each test reads one thing in the requests
Claude Code really sent: the ``CLAUDE.md`` block, the brief of the SessionStart hook, the recall
of the UserPromptSubmit hook, ``mem``'s MCP tools, the result of the ``recall`` the fake model
calls (in the next request and in the printed answer), the journal event of the SessionEnd hook.
Then ``claude mcp list`` reports ``mem`` connected. Only loopback traffic. The turn runs twice:
on a quiet machine, and with both cores kept busy by two other processes (``mem mcp`` must answer
the handshake before Claude Code gives up waiting for its tools).
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import programs
import pytest
from fake_model import FakeModel
from memproject import (
    BODY,
    HEADING,
    LESSON,
    MEM_TOOLS,
    PROMPT,
    QUERY,
    TURN_ENV,
    assert_one_session_event,
    assert_recall_answered,
    busy_cpu,
    clean_env,
    hooks_log,
    journal,
    make_project,
    mem,
)

from mem_core.adapters.instructions import instructions

ASSISTANT = "claude-code"


@dataclass
class Turn:
    project: Path
    home: Path
    fake: FakeModel
    install: subprocess.CompletedProcess[str]
    done: programs.Completed
    journal_before: list[dict[str, object]]
    journal_after: list[dict[str, object]]
    listed: programs.Completed


@pytest.fixture(scope="module", params=["quiet", "busy"])
def turn(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Turn]:
    programs.need(ASSISTANT)
    root = tmp_path_factory.mktemp("mem-claude-code")
    home = root / "home"
    with pytest.MonkeyPatch.context() as monkeypatch, FakeModel(reply_text=f"ANSWER-{uuid.uuid4().hex[:8]}") as fake:
        clean_env(monkeypatch, home)
        project = make_project(root, home, fake.url, cli=ASSISTANT)
        # a user's settings without enableAllProjectMcpServers: only --approve may approve mem
        (home / ".claude").mkdir()
        (home / ".claude" / "settings.json").write_text("{}\n")
        install = mem(["adapters", "install", ASSISTANT, "--approve"], project, home, fake.url)
        # what accepting Claude Code's trust dialog in the folder records (2.1.332 reads the
        # project's approval only then: `claude mcp list` said "Pending approval"; -p trusts anyway)
        trust = {"projects": {str(project.resolve()): {"hasTrustDialogAccepted": True}}}
        (home / ".claude.json").write_text(json.dumps(trust, indent=2) + "\n")
        before = journal(project)
        fake.call_tool("recall", {"query": QUERY})
        with busy_cpu(2 if request.param == "busy" else 0):
            done = programs.RUN_TURN[ASSISTANT](
                project, home, PROMPT, fake.url, env=TURN_ENV, timeout=programs.TURN_TIMEOUT
            )
        # SessionEnd runs as the program exits; give a slow machine a moment
        fake.wait_for(lambda _: len(journal(project)) > len(before), timeout=10)
        after = journal(project)
        listed = programs.MCP_LIST[ASSISTANT](project, home, fake.url)
        yield Turn(project, home, fake, install, done, before, after, listed)


def test_install_wrote_the_files(turn: Turn) -> None:
    assert turn.install.returncode == 0, turn.install.stderr
    for name in ("CLAUDE.md", ".claude/settings.json", ".mcp.json", ".claude/settings.local.json"):
        assert (turn.project / name).is_file(), name
    assert json.loads((turn.project / ".claude/settings.local.json").read_text()) == {"enabledMcpjsonServers": ["mem"]}
    assert json.loads((turn.home / ".claude/settings.json").read_text()) == {}  # approved by the project's file
    assert "trust dialog" in turn.install.stdout  # it says what the user must still do


def test_the_turn_completed(turn: Turn) -> None:
    assert turn.done.returncode == 0, turn.done.describe()
    sent = [f"{r.method} {r.path} {r.status}" for r in turn.fake.requests if r.dialect == "anthropic"]
    assert len(sent) >= 2 and all(line.endswith(" 200") for line in sent), sent


def test_the_instruction_block_reaches_the_model(turn: Turn) -> None:
    block = [line for line in instructions(ASSISTANT).splitlines() if line.strip()]
    first = turn.fake.requests[0].texts()
    assert any(all(line in text for line in block) for text in first), "the CLAUDE.md block is not in the request"


def test_the_session_brief_reaches_the_model(turn: Turn) -> None:
    briefs = [t for t in turn.fake.requests[0].texts() if "# Project memory (mem brief)" in t]
    assert briefs, "no brief in the first request"
    assert any(f"- {HEADING}" in t and f"- {LESSON}" in t for t in briefs), briefs
    assert any("SessionStart hook additional context" in t for t in briefs)


def test_the_prompt_recall_reaches_the_model(turn: Turn) -> None:
    recalled = [t for t in turn.fake.requests[0].texts() if "Project memory relevant to this prompt" in t]
    assert recalled, "no prompt recall in the first request"
    assert any(f".agents/memory/decisions.md § {HEADING}" in t and BODY in t for t in recalled), recalled
    assert any("UserPromptSubmit hook additional context" in t for t in recalled)


def test_mem_tools_are_offered(turn: Turn) -> None:
    offered = set(turn.fake.requests[0].tool_names())
    assert {programs.mcp_tool_name(ASSISTANT, "mem", tool) for tool in MEM_TOOLS} <= offered, sorted(offered)
    assert not [name for name in offered if name.startswith("mcp__mem__") and "verify" in name]


def test_the_recall_tool_result_comes_back(turn: Turn) -> None:
    first, *rest = [r for r in turn.fake.requests if r.dialect == "anthropic"]
    assert first.tool_results() == []
    assert rest, "no request after the tool call"
    results = rest[-1].tool_results()
    assert results, "the next request carries no tool result"
    answer = json.loads(results[-1])
    assert_recall_answered(answer, turn.done, turn.fake.reply_text)


def test_the_session_end_hook_journals_one_event(turn: Turn) -> None:
    assert_one_session_event(turn.journal_before, turn.journal_after, ASSISTANT)


def test_no_hook_failed(turn: Turn) -> None:
    assert hooks_log(turn.project) == ""


def test_mcp_list_reports_mem_connected(turn: Turn) -> None:
    programs.assert_listed(turn.listed, "mem", "connected")


def test_only_loopback(turn: Turn) -> None:
    assert turn.fake.escapes() == []
