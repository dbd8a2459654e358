"""Aider with ``mem``: ``mem adapters install aider`` (which writes the brief) in a project with
memory in it, then headless turns of the real ``aider`` against the fake model.

Aider has no MCP client and no hooks: what reaches the model is the read-only files of
``.aider.conf.yml`` — the ``CONVENTIONS.md`` block (run ``mem`` on the command line) and the
brief ``.bmad/memory/brief.md``. After a ``mem write`` (which refreshes the brief), the next
turn sends the refreshed brief. Only loopback traffic.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import programs
import pytest
from fake_model import FakeModel, Recorded
from memproject import FAILED_TASK, HEADING, LESSON, PROMPT, clean_env, hooks_log, make_project, mem

from mem_core.adapters.instructions import instructions

ASSISTANT = "aider"
BRIEF = ".bmad/memory/brief.md"
NEW_FAILURE = "Fail the session store over to the Valkey replica"
SECOND_PROMPT = "How do we fail over the session store?"


@dataclass
class Turns:
    project: Path
    home: Path
    fake: FakeModel
    install: subprocess.CompletedProcess[str]
    first: programs.Completed
    first_requests: list[Recorded]
    first_brief: str
    wrote: subprocess.CompletedProcess[str]
    second: programs.Completed
    second_requests: list[Recorded]
    second_brief: str


def texts(requests: list[Recorded]) -> list[str]:
    return [t for r in requests for t in r.texts()]


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Turns]:
    programs.need(ASSISTANT)
    root = tmp_path_factory.mktemp("mem-aider")
    home = root / "home"
    with pytest.MonkeyPatch.context() as monkeypatch, FakeModel(reply_text=f"ANSWER-{uuid.uuid4().hex[:8]}") as fake:
        clean_env(monkeypatch, home)
        project = make_project(root, home, fake.url, cli=ASSISTANT)
        install = mem(["adapters", "install", ASSISTANT], project, home, fake.url)
        first_brief = (project / BRIEF).read_text()
        first = programs.RUN_TURN[ASSISTANT](project, home, PROMPT, fake.url, timeout=programs.TURN_TIMEOUT)
        first_requests = fake.snapshot()
        wrote = mem(
            ["write", "--agent", ASSISTANT, "--cli", ASSISTANT, "--task", NEW_FAILURE, "--outcome", "failure"],
            project,
            home,
            fake.url,
        )
        second_brief = (project / BRIEF).read_text()
        second = programs.RUN_TURN[ASSISTANT](project, home, SECOND_PROMPT, fake.url, timeout=programs.TURN_TIMEOUT)
        second_requests = fake.snapshot()[len(first_requests) :]
        yield Turns(
            project,
            home,
            fake,
            install,
            first,
            first_requests,
            first_brief,
            wrote,
            second,
            second_requests,
            second_brief,
        )


def test_install_and_the_brief(turns: Turns) -> None:
    assert turns.install.returncode == 0, turns.install.stderr
    assert f"aider: wrote {BRIEF}, which aider reads" in turns.install.stdout  # no `mem brief --write` by hand
    conf = (turns.project / ".aider.conf.yml").read_text()
    assert "CONVENTIONS.md" in conf and BRIEF in conf
    assert f"- {HEADING}" in turns.first_brief and f"- {LESSON}" in turns.first_brief
    assert f"(aider): {FAILED_TASK}" in turns.first_brief


def test_the_turns_completed(turns: Turns) -> None:
    for done, requests in ((turns.first, turns.first_requests), (turns.second, turns.second_requests)):
        assert done.returncode == 0, done.describe()
        assert turns.fake.reply_text in done.stdout, done.describe()
        sent = [f"{r.method} {r.path} {r.status}" for r in requests if r.dialect == "chat"]
        assert sent and all(line.endswith(" 200") for line in sent), sent
        assert all(r.tool_names() == [] for r in requests)  # no MCP client


def test_aider_reads_both_files(turns: Turns) -> None:
    assert f"Added {BRIEF} to the chat (read-only)." in turns.first.stdout, turns.first.describe()
    assert "Added CONVENTIONS.md to the chat (read-only)." in turns.first.stdout, turns.first.describe()


def test_the_conventions_block_reaches_the_model(turns: Turns) -> None:
    block = [line for line in instructions(ASSISTANT, mcp=False).splitlines() if line.strip()]
    for requests in (turns.first_requests, turns.second_requests):
        sent = texts(requests)
        assert any(all(line in text for line in block) for text in sent), "the CONVENTIONS.md block is not sent"


def test_the_brief_reaches_the_model(turns: Turns) -> None:
    sent = texts(turns.first_requests)
    assert any("READ ONLY files" in t and turns.first_brief.strip() in t for t in sent), "the brief is not sent"
    assert any(PROMPT in t for t in sent)


def test_mem_write_refreshes_the_brief(turns: Turns) -> None:
    assert turns.wrote.returncode == 0, turns.wrote.stderr
    assert turns.second_brief != turns.first_brief
    assert f"(aider): {NEW_FAILURE}" in turns.second_brief and f"- {HEADING}" in turns.second_brief
    assert turns.second_brief.splitlines()[0] == turns.first_brief.splitlines()[0]  # the budget it was written with


def test_the_next_turn_sends_the_refreshed_brief(turns: Turns) -> None:
    sent = texts(turns.second_requests)
    assert any(turns.second_brief.strip() in t for t in sent), "the refreshed brief is not sent"
    assert not any(turns.first_brief.strip() in t for t in sent)
    assert any(SECOND_PROMPT in t for t in sent)


def test_no_hook_failed(turns: Turns) -> None:
    assert hooks_log(turns.project) == ""  # a failed brief refresh is logged there


def test_only_loopback(turns: Turns) -> None:
    assert turns.fake.escapes() == []
