"""Each real assistant program completes a headless turn against the fake model, reads its
instruction file, and (but aider) calls a stdio MCP server's tool and feeds the result back.

These prove the harness (``programs.py``, ``fake_model.py``); the tests of ``mem``'s own
adapters, hooks and MCP server build on the same functions.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import programs
import pytest
from fake_model import FakeModel

ECHO_MCP = Path(__file__).resolve().parent / "echo_mcp.py"
MCP_ASSISTANTS = ["claude-code", "codex-cli", "gemini-cli", "opencode"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def write_instructions(assistant: str, project: Path) -> str:
    marker = f"INSTRUCTION-MARKER-{uuid.uuid4().hex[:12]}"
    name = programs.INSTRUCTION_FILE[assistant]
    (project / name).write_text(f"# Project rules\n\nAlways remember the marker {marker}.\n")
    if assistant == "aider":  # aider reads only the files it is told to
        (project / ".aider.conf.yml").write_text(f"read: [{name}]\n")
    return marker


def model_requests(fake: FakeModel) -> list[str]:
    return [f"{r.method} {r.path} {r.status}" for r in fake.requests if r.dialect is not None]


@pytest.mark.parametrize("assistant", list(programs.RUN_TURN))
def test_headless_turn_carries_the_instruction_file(
    assistant: str, fake_model: FakeModel, project: Path, home: Path
) -> None:
    programs.need(assistant)
    marker = write_instructions(assistant, project)

    done = programs.RUN_TURN[assistant](project, home, "Say hello to the project.", fake_model.url)

    assert done.returncode == 0, done.describe()
    assert fake_model.reply_text in done.stdout, done.describe()
    sent = model_requests(fake_model)
    assert sent and all(line.endswith(" 200") for line in sent), sent
    assert any(marker in text for text in fake_model.texts()), f"{marker} not in any request: {sent}"
    assert fake_model.escapes() == []


@pytest.mark.parametrize("assistant", MCP_ASSISTANTS)
def test_mcp_tool_round_trip(assistant: str, fake_model: FakeModel, project: Path, home: Path, tmp_path: Path) -> None:
    programs.need(assistant)
    token = uuid.uuid4().hex[:10]
    log = tmp_path / "echo-calls.ndjson"
    fake_model.call_tool("echo", {"text": token})
    write_instructions(assistant, project)

    done = programs.RUN_TURN[assistant](
        project,
        home,
        "Call the echo tool.",
        fake_model.url,
        [sys.executable, str(ECHO_MCP), "--log", str(log)],
        mcp_name="echo",
    )

    assert done.returncode == 0, done.describe()
    offered = programs.mcp_tool_name(assistant, "echo", "echo")
    assert offered in fake_model.tool_names(), sorted(set(fake_model.tool_names()))
    assert log.is_file() and [json.loads(line) for line in log.read_text().splitlines()] == [
        {"tool": "echo", "text": token}
    ]
    result = f"ECHO-RESULT-{token}"
    assert any(result in r for r in fake_model.tool_results()), fake_model.tool_results()
    assert result in done.stdout, done.describe()
    assert fake_model.escapes() == []


@pytest.mark.parametrize("assistant", list(programs.MCP_LIST))
def test_mcp_list_reports_the_server_connected(
    assistant: str, fake_model: FakeModel, project: Path, home: Path
) -> None:
    programs.need(assistant)
    done = programs.MCP_LIST[assistant](project, home, fake_model.url, [sys.executable, str(ECHO_MCP)], mcp_name="echo")
    programs.assert_listed(done, "echo", "connected")
    assert fake_model.escapes() == []


@pytest.mark.parametrize("assistant", list(programs.MCP_LIST))
def test_mcp_list_reports_a_broken_server(assistant: str, fake_model: FakeModel, project: Path, home: Path) -> None:
    programs.need(assistant)
    broken = [sys.executable, "-c", "import sys; sys.exit(3)"]
    done = programs.MCP_LIST[assistant](project, home, fake_model.url, broken, mcp_name="echo")
    assert programs.mcp_list_state(done.output, "echo") == "failed", done.describe()


@pytest.mark.parametrize(
    ("output", "state"),
    [
        ("echo: python echo_mcp.py - ✔ Connected\n", "connected"),
        ("echo: python -c x - ✘ Failed to connect\n", "failed"),
        ("mem: mem mcp - ⏸ Pending approval\n", None),
        ("✓ echo: python echo_mcp.py (stdio) - Connected\n", "connected"),
        ("✗ echo: python -c x (stdio) - Disconnected\n", "failed"),
        ("○ echo: python x (stdio) - Disabled\n", "disabled"),
        ("●  ✓ echo \x1b[90mconnected\n│      \x1b[90mpython echo_mcp.py\n", "connected"),
        ("●  ✗ echo \x1b[90mfailed\n│      MCP error -32000: Connection closed\n", "failed"),
        ("echoes: x - ✔ Connected\n", None),
    ],
)
def test_mcp_list_state(output: str, state: str | None) -> None:
    assert programs.mcp_list_state(output, "echo") == state
    assert programs.mcp_list_state("mem: mem mcp - ⏸ Pending approval", "mem") == "pending"


def test_inspector_lists_and_calls_the_tools(project: Path, home: Path) -> None:
    programs.need("inspector")
    server = [sys.executable, str(ECHO_MCP)]
    listed = programs.inspector(server, "--method", "tools/list", cwd=project, home=home)
    assert listed.returncode == 0, listed.describe()
    tools = json.loads(listed.stdout)["tools"]
    assert [t["name"] for t in tools] == ["echo"]
    assert tools[0]["annotations"]["readOnlyHint"] is True
    called = programs.inspector(
        server, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi", cwd=project, home=home
    )
    assert called.returncode == 0, called.describe()
    assert json.loads(called.stdout)["content"] == [{"type": "text", "text": "ECHO-RESULT-hi"}]
