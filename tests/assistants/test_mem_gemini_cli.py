"""Gemini CLI with ``mem``: ``mem adapters install gemini-cli`` in a project with memory in it,
the folder trusted in ``~/.gemini/trustedFolders.json`` (as a user answers Gemini CLI's question),
then one headless turn of the real ``gemini`` against the fake model.

The turn runs once for the module; each test reads one thing in the requests Gemini CLI really
sent (the router's ``generateContent`` first, then the turn's ``streamGenerateContent``): the
``GEMINI.md`` block, the brief of the SessionStart hook, the recall of the BeforeAgent hook,
``mem``'s MCP tools, the result of the ``recall`` the fake model calls (in the next request and
in the printed answer), the journal event of the SessionEnd hook. Then ``gemini mcp list``
reports ``mem`` connected. Only loopback traffic.
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
from fake_model import FakeModel, Recorded
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
    clean_env,
    hooks_log,
    journal,
    make_project,
    mem,
)

from mem_core.adapters.instructions import instructions

ASSISTANT = "gemini-cli"


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

    def turns(self) -> list[Recorded]:
        """The turn's model calls (not the router's)."""
        return [r for r in self.fake.requests if r.dialect == "gemini" and r.path.endswith(":streamGenerateContent")]


@pytest.fixture(scope="module")
def turn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Turn]:
    programs.need(ASSISTANT)
    root = tmp_path_factory.mktemp("mem-gemini-cli")
    home = root / "home"
    with pytest.MonkeyPatch.context() as monkeypatch, FakeModel(reply_text=f"ANSWER-{uuid.uuid4().hex[:8]}") as fake:
        clean_env(monkeypatch, home)
        project = make_project(root, home, fake.url, cli=ASSISTANT)
        install = mem(["adapters", "install", ASSISTANT], project, home, fake.url)
        before = journal(project)
        fake.call_tool("recall", {"query": QUERY})
        # gemini_run_turn writes ~/.gemini/settings.json (API-key auth, no statistics) and trusts the folder
        done = programs.RUN_TURN[ASSISTANT](
            project, home, PROMPT, fake.url, env=TURN_ENV, timeout=programs.TURN_TIMEOUT
        )
        fake.wait_for(lambda _: len(journal(project)) > len(before), timeout=10)
        after = journal(project)
        listed = programs.MCP_LIST[ASSISTANT](project, home, fake.url)
        yield Turn(project, home, fake, install, done, before, after, listed)


def test_install_wrote_the_files(turn: Turn) -> None:
    assert turn.install.returncode == 0, turn.install.stderr
    assert (turn.project / "GEMINI.md").is_file()
    settings = json.loads((turn.project / ".gemini/settings.json").read_text())
    assert settings["mcpServers"]["mem"] == {"command": "mem", "args": ["mcp"], "trust": True}
    assert sorted(settings["hooks"]) == ["BeforeAgent", "SessionEnd", "SessionStart"]
    assert "trustedFolders.json" in turn.install.stdout  # it says what the user must trust


def test_the_turn_completed(turn: Turn) -> None:
    assert turn.done.returncode == 0, turn.done.describe()
    sent = [f"{r.method} {r.path} {r.status}" for r in turn.fake.requests if r.dialect == "gemini"]
    assert len(turn.turns()) >= 2 and all(line.endswith(" 200") for line in sent), sent


def test_the_instruction_block_reaches_the_model(turn: Turn) -> None:
    block = [line for line in instructions(ASSISTANT).splitlines() if line.strip()]
    first = turn.turns()[0].texts()
    assert any(all(line in text for line in block) for text in first), "the GEMINI.md block is not in the request"


def test_the_session_brief_reaches_the_model(turn: Turn) -> None:
    # headless, Gemini CLI puts SessionStart's context before the prompt, its < and > escaped
    briefs = [t for t in turn.turns()[0].texts() if t.startswith("<hook_context># Project memory (mem brief)")]
    assert briefs, "no brief in the first request"
    assert any(
        f"- {HEADING}" in t and f"- {LESSON}" in t and t.endswith(f"</hook_context>\n\n{PROMPT}") for t in briefs
    )


def test_the_prompt_recall_reaches_the_model(turn: Turn) -> None:
    recalled = [t for t in turn.turns()[0].texts() if t.startswith("<hook_context>Project memory relevant to this")]
    assert len(recalled) == 1, "no prompt recall in the first request"
    # the recall is the prompt's, not the brief's that Gemini CLI put before it (mem_core/hooks/formats.py)
    first_hit = recalled[0].splitlines()[1:3]
    assert first_hit[0].startswith(f"- .agents/memory/decisions.md § {HEADING} ["), recalled
    assert first_hit[1].strip().startswith(BODY)


def test_mem_tools_are_offered(turn: Turn) -> None:
    offered = set(turn.turns()[0].tool_names())
    assert {programs.mcp_tool_name(ASSISTANT, "mem", tool) for tool in MEM_TOOLS} <= offered, sorted(offered)
    assert not [name for name in offered if name.startswith("mcp_mem_") and "verify" in name]


def test_the_recall_tool_result_comes_back(turn: Turn) -> None:
    first, *rest = turn.turns()
    assert first.tool_results() == []
    assert rest, "no request after the tool call"
    results = rest[-1].tool_results()
    assert results, "the next request carries no tool result"
    text = results[-1]  # Gemini CLI wraps it: <untrusted_context>JSON</untrusted_context>
    answer = json.loads(text[text.index("{") : text.rindex("}") + 1])
    assert_recall_answered(answer, turn.done, turn.fake.reply_text)


def test_the_session_end_hook_journals_one_event(turn: Turn) -> None:
    assert_one_session_event(turn.journal_before, turn.journal_after, ASSISTANT)


def test_no_hook_failed(turn: Turn) -> None:
    assert hooks_log(turn.project) == ""


def test_mcp_list_reports_mem_connected(turn: Turn) -> None:
    programs.assert_listed(turn.listed, "mem", "connected")


def test_only_loopback(turn: Turn) -> None:
    assert turn.fake.escapes() == []
