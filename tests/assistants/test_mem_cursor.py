"""``mem adapters install cursor``: the files it writes parse and match Cursor's documented formats,
and what they configure really works when run as Cursor runs it (Cursor has no program in a
public registry, so no turn).

- ``.cursor/rules/mem.mdc``: YAML frontmatter (``description``, ``globs``, ``alwaysApply: true``
  as a real boolean), then the instruction block;
- ``.cursor/mcp.json``: ``{"mcpServers": {"mem": {"command": …, "args": […]}}}``; the command,
  started in the project, is ``mem mcp`` and answers the MCP Python SDK's client;
- ``.cursor/hooks.json``: ``{"version": 1, "hooks": {"sessionStart"|"beforeSubmitPrompt"|"stop":
  [{"command": …}]}}``; each command, run through the shell in the project with the JSON Cursor
  sends on stdin, prints what Cursor reads: ``{"additional_context": …}`` (sessionStart),
  ``{"continue": true}`` (beforeSubmitPrompt), nothing (stop), and ``stop`` journals the session.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import project_memory as pm
import pytest

ASSISTANT = "cursor"


@dataclass
class Installed:
    project: Path
    home: Path
    output: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    project, home = pm.make_project(tmp_path_factory.mktemp("cursor"))
    done = pm.install(ASSISTANT, project, home)
    return Installed(project, home, done.stdout)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def cursor_payload(event: str, project: Path, conversation: str, **fields: Any) -> dict[str, Any]:
    """The JSON Cursor writes on a hook's stdin: the common fields, then the event's own."""
    return {
        "conversation_id": conversation,
        "generation_id": str(uuid.uuid4()),
        "model": "default",
        "hook_event_name": event,
        "cursor_version": "2.4.21",
        "workspace_roots": [str(project)],
        "user_email": None,
        "transcript_path": None,
        **fields,
    }


def run_hook(installed: Installed, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """Run the one command ``hooks.json`` configures for ``event`` as Cursor does: through the shell, in the project."""
    entries = read_json(installed.project / ".cursor" / "hooks.json")["hooks"][event]
    assert len(entries) == 1, entries
    return subprocess.run(
        ["/bin/sh", "-c", entries[0]["command"]],
        input=json.dumps(payload),
        cwd=installed.project,
        env=pm.hook_env(installed.home),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_install_writes_the_three_files(installed: Installed) -> None:
    for name in (".cursor/rules/mem.mdc", ".cursor/mcp.json", ".cursor/hooks.json"):
        assert f"created {name}" in installed.output, installed.output


def test_the_rule_is_always_applied(installed: Installed) -> None:
    meta, body = pm.frontmatter((installed.project / ".cursor" / "rules" / "mem.mdc").read_text())
    assert set(meta) == {"description", "globs", "alwaysApply"}, meta
    assert meta["alwaysApply"] is True  # a YAML boolean, not the string "true"
    assert isinstance(meta["description"], str) and meta["description"]
    assert meta["globs"] is None
    assert "<!-- mem:begin -->" in body and pm.BLOCK_PHRASE in body and "<!-- mem:end -->" in body


def test_mcp_json_starts_mem_mcp(installed: Installed) -> None:
    servers = read_json(installed.project / ".cursor" / "mcp.json")["mcpServers"]
    assert set(servers) == {"mem"}
    server = servers["mem"]
    assert server == {"command": "mem", "args": ["mcp"]}
    tools, recalled = pm.mcp_session(
        [server["command"], *server["args"]], installed.project, pm.hook_env(installed.home)
    )
    names = {tool["name"] for tool in tools}
    assert names == set(pm.MEM_TOOLS), names
    recall = next(tool for tool in tools if tool["name"] == "recall")
    assert recall["annotations"]["readOnlyHint"] is True and recall["inputSchema"]["properties"]["query"]
    top = recalled["results"][0]
    assert (top["sourceFile"], top["ref"]) == (".agents/memory/decisions.md", pm.DECISION)
    assert pm.DECISION_TEXT in top["text"]


def test_hooks_json_has_cursor_shape(installed: Installed) -> None:
    config = read_json(installed.project / ".cursor" / "hooks.json")
    assert config["version"] == 1 and isinstance(config["version"], int)
    assert set(config["hooks"]) == {"sessionStart", "beforeSubmitPrompt", "stop"}
    for entries in config["hooks"].values():
        assert isinstance(entries, list) and [set(e) for e in entries] == [{"command"}], entries


def test_the_hooks_answer_as_cursor_expects_and_journal_once(installed: Installed) -> None:
    conversation = str(uuid.uuid4())
    project = installed.project
    before = len(pm.new_events(project))

    start = run_hook(
        installed,
        "sessionStart",
        cursor_payload(
            "sessionStart",
            project,
            conversation,
            session_id=conversation,
            is_background_agent=False,
            composer_mode="agent",
        ),
    )
    assert start.returncode == 0, start.stderr
    answer = json.loads(start.stdout)
    assert set(answer) == {"additional_context"}, answer
    brief = answer["additional_context"]
    assert brief.startswith("# Project memory (mem brief)") and f"- {pm.DECISION}" in brief and pm.FAILURE_TASK in brief

    prompt = run_hook(
        installed,
        "beforeSubmitPrompt",
        cursor_payload("beforeSubmitPrompt", project, conversation, prompt=pm.PROMPT, attachments=[]),
    )
    assert prompt.returncode == 0, prompt.stderr
    assert json.loads(prompt.stdout) == {"continue": True}

    stop = cursor_payload("stop", project, conversation, status="completed", loop_count=0)
    for _ in range(2):  # the stop of every turn: the session is journaled once
        ended = run_hook(installed, "stop", stop)
        assert (ended.returncode, ended.stdout) == (0, ""), ended.stderr
    events = pm.new_events(project)[before:]
    assert len(events) == 1, events
    assert (events[0]["agent"], events[0]["cli"], events[0]["task"]) == (ASSISTANT, ASSISTANT, pm.PROMPT)
    assert not (project / ".bmad" / "memory" / "hooks.log").exists()


def test_a_second_install_changes_nothing(installed: Installed) -> None:
    files = {p: p.read_bytes() for p in (installed.project / ".cursor").rglob("*") if p.is_file()}
    done = pm.install(ASSISTANT, installed.project, installed.home)
    assert "cursor: nothing to change" in done.stdout, done.stdout
    assert {p: p.read_bytes() for p in files} == files
