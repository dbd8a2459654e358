"""``mem mcp`` through the MCP SDK's own client: a real stdio subprocess and
streamable HTTP on 127.0.0.1, compared with ``mem <cmd> --json`` processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.conftest import MEM, cli_json, http_session, server_env, stdio_session

TOOLS = {"recall", "write", "reinforce", "observe", "outcomes", "remember", "memories", "forget", "context", "brief"}
READ_ONLY = {"recall", "outcomes", "memories", "context", "brief"}

#: (tool arguments, the same as a command line)
CALLS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("recall", {"query": "cache values", "ranking": "evidence", "context_scope": ["work"]},
     ["recall", "cache", "values", "--ranking", "evidence", "--context-scope", "work"]),
    ("recall", {"query": "login rate", "limit": 2}, ["recall", "login", "rate", "--limit", "2"]),
    ("write", {"agent": "forge", "cli": "claude-code", "task": "Fix auth retry", "outcome": "success",
               "eval": 0.8, "accept": True, "ci": "pass"},
     ["write", "--agent", "forge", "--cli", "claude-code", "--task", "Fix auth retry", "--outcome", "success",
      "--eval", "0.8", "--accept", "true", "--ci", "pass"]),
    ("reinforce", {"pattern": "Cache shortcut", "accept": True, "ci": "pass", "evidence": ["3f9a1c7b02de"]},
     ["reinforce", "--pattern", "Cache shortcut", "--accept", "true", "--ci", "pass", "--evidence", "3f9a1c7b02de"]),
    ("reinforce", {"pattern": "No such pattern", "eval": 0.5}, ["reinforce", "--pattern", "No such pattern", "--eval", "0.5"]),
    ("observe", {"input": "observation.json"}, ["observe", "--input", "observation.json"]),
    ("outcomes", {}, ["outcomes"]),
    ("remember", {"category": "fact", "key": "db", "content": "We use postgres for jobs", "tags": ["db", "Infra"],
                  "priority": "high"},
     ["remember", "fact", "db", "We", "use", "postgres", "for", "jobs", "--tag", "db", "--tag", "Infra",
      "--priority", "high"]),
    ("remember", {"category": "preference", "key": "style", "content": "Short commits", "expires": "7d",
                  "confidence": 0.9},
     ["remember", "preference", "style", "Short commits", "--expires", "7d", "--confidence", "0.9"]),
    ("remember", {"category": "fact", "key": "db", "content": "We use postgres for jobs", "tags": ["db", "Infra"],
                  "priority": "high"},
     ["remember", "fact", "db", "We use postgres for jobs", "--tag", "db,Infra", "--priority", "high"]),
    ("memories", {}, ["memories"]),
    ("memories", {"search": "postgres"}, ["memories", "--search", "postgres"]),
    ("memories", {"expiring": "30d"}, ["memories", "--expiring", "30d"]),
    ("memories", {"category": "fact", "unverified": True, "limit": 1},
     ["memories", "--category", "fact", "--unverified", "--limit", "1"]),
    ("context", {}, ["context"]),
    ("context", {"limit": 1, "mind": "default"}, ["context", "--limit", "1", "--mind", "default"]),
    ("brief", {}, ["brief"]),
    ("brief", {"budget": 60}, ["brief", "--budget", "60"]),
    ("recall", {"query": "postgres"}, ["recall", "postgres"]),
    ("forget", {"ref": "fact/db"}, ["forget", "fact/db"]),
    ("forget", {"ref": "fact/db"}, ["forget", "fact/db"]),
    ("memories", {"user": True}, ["memories", "--user"]),
    ("recall", {"query": " "}, ["recall", " "]),
]  # fmt: skip

_MEMORY_ID = re.compile(r"mem_[0-9a-f]{16}")


def _normalised(value: Any) -> Any:
    """Memory ids are random: number them by first appearance."""
    seen: dict[str, str] = {}
    text = _MEMORY_ID.sub(lambda m: seen.setdefault(m.group(0), f"mem_{len(seen):016x}"), json.dumps(value))
    return json.loads(text)


def _answer(result: Any) -> Any:
    """A tool result as the CLI's ``--json`` answer: the value, or ``{"error": message}``."""
    if result.isError:
        assert result.structuredContent is None
        return {"error": result.content[0].text}
    assert json.loads(result.content[0].text) == result.structuredContent
    return result.structuredContent


@pytest.fixture
def two_projects(bmad_project: Path, tmp_path: Path) -> tuple[Path, Path]:
    other = tmp_path / "bmad-cli"
    shutil.copytree(bmad_project, other)
    return bmad_project, other


def test_tools_list_schemas_and_annotations(bmad_project: Path, tmp_path: Path) -> None:
    async def main() -> Any:
        async with stdio_session(bmad_project, tmp_path / "err.log") as session:
            return (await session.list_tools()).tools, session

    tools, _ = anyio.run(main)
    by_name = {tool.name: tool for tool in tools}
    assert set(by_name) == TOOLS
    for tool in tools:
        assert tool.description and tool.title
        schema = tool.inputSchema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
            assert "type" in prop, f"{tool.name}.{name} has no type"
        # nothing a human must do, and never the project
        assert not {"as_user", "confirm", "directory", "project", "d", "cwd", "portfolio"} & set(schema["properties"])
        assert tool.outputSchema is not None and tool.outputSchema["type"] == "object"
        assert tool.annotations is not None
        assert tool.annotations.readOnlyHint is (tool.name in READ_ONLY)
        assert tool.annotations.openWorldHint is False
    assert by_name["forget"].annotations.destructiveHint is True
    assert by_name["write"].annotations.destructiveHint is False
    assert by_name["recall"].inputSchema["required"] == ["query"]
    assert by_name["remember"].inputSchema["properties"]["category"]["enum"][0] == "identity"
    assert "verify" not in by_name


def test_every_tool_answers_as_the_cli_json(two_projects: tuple[Path, Path], tmp_path: Path, now: str) -> None:
    """The same calls, in the same order, on two copies of a project: through
    the server and as ``mem … --json`` (both with the clock pinned)."""
    served, by_cli = two_projects

    async def main() -> list[Any]:
        async with stdio_session(served, tmp_path / "err.log") as session:
            return [_answer(await session.call_tool(name, args)) for name, args, _cli in CALLS]

    answers = anyio.run(main)
    expected = []
    for _name, _args, argv in CALLS:
        code, value = cli_json(by_cli, *argv)
        assert (code != 0) == ("error" in value), (argv, value)
        expected.append(value)

    def located(value: Any, project: Path) -> Any:  # the brief names its project
        return json.loads(json.dumps(value).replace(json.dumps(str(project))[1:-1], "<project>"))

    for (name, args, _argv), got, want in zip(CALLS, answers, expected, strict=True):
        assert _normalised(located(got, served)) == _normalised(located(want, by_cli)), (name, args)
    # both sides really did something, and errors were among them
    assert answers[2]["written"]["task"] == "Fix auth retry"
    assert answers[7]["created"] is True and answers[9]["created"] is False
    assert sum("error" in a for a in answers) >= 3
    assert (served / ".bmad/memory/journal.ndjson").read_bytes() == (
        by_cli / ".bmad/memory/journal.ndjson"
    ).read_bytes()


def test_error_result_carries_the_cli_message(project: Path, tmp_path: Path) -> None:
    async def main() -> list[Any]:
        async with stdio_session(project, tmp_path / "err.log") as session:
            return [
                await session.call_tool("forget", {"ref": "fact/nothing"}),
                await session.call_tool("memories", {"expiring": "soon"}),
                await session.call_tool("write", {"agent": "", "outcome": "success"}),
                await session.call_tool("recall", {"query": "x", "directory": "/"}),
            ]

    results = anyio.run(main)
    for result, argv in zip(
        results[:3],
        (["forget", "fact/nothing"], ["memories", "--expiring", "soon"],
         ["write", "--agent", "", "--outcome", "success"]),
        strict=True,
    ):  # fmt: skip
        code, value = cli_json(project, *argv)
        assert code == 1 and result.isError
        assert [c.text for c in result.content] == [value["error"]]
        assert "\n" not in value["error"]
    # a parameter the schema does not have is refused, not ignored
    assert results[3].isError and "directory" in results[3].content[0].text
    assert not (project / ".bmad/memory/journal.ndjson").exists()


def test_a_file_changed_on_disk_is_seen_by_the_next_call(project: Path, tmp_path: Path) -> None:
    notes = project / ".agents" / "memory"
    notes.mkdir(parents=True)
    decisions = notes / "decisions.md"
    decisions.write_text("# Decisions\n\n### Use queues\nBullMQ for jobs.\n", encoding="utf-8")

    async def main() -> list[Any]:
        async with stdio_session(project, tmp_path / "err.log") as session:
            seen = [(await session.call_tool("recall", {"query": "zeppelin"})).structuredContent]
            decisions.write_text(decisions.read_text() + "\n### Zeppelin transport\nShip by zeppelin.\n")
            seen.append((await session.call_tool("recall", {"query": "zeppelin"})).structuredContent)
            # same size, same mtime, new content: still seen (nothing is cached)
            stat = decisions.stat()
            decisions.write_text(decisions.read_text().replace("Zeppelin transport", "Airships transport"))
            os.utime(decisions, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            assert decisions.stat().st_size == stat.st_size
            seen.append((await session.call_tool("recall", {"query": "airships"})).structuredContent)
            seen.append((await session.call_tool("recall", {"query": "zeppelin transport"})).structuredContent)
            return seen

    first, second, third, fourth = anyio.run(main)
    assert first["count"] == 0
    assert second["count"] == 1 and second["results"][0]["ref"] == "Zeppelin transport"
    assert third["count"] == 1 and third["results"][0]["ref"] == "Airships transport"
    assert all(r["ref"] != "Zeppelin transport" for r in fourth["results"])


def test_streamable_http(bmad_project: Path, http_server: Any, now: str) -> None:
    server = http_server(bmad_project)
    assert server.url.startswith("http://127.0.0.1:")

    async def main() -> tuple[Any, Any, Any]:
        async with http_session(server.url) as session:
            tools = (await session.list_tools()).tools
            recalled = await session.call_tool("recall", {"query": "cache values"})
            failed = await session.call_tool("recall", {"query": ""})
            return tools, recalled, failed

    tools, recalled, failed = anyio.run(main)
    assert {t.name for t in tools} == TOOLS
    code, value = cli_json(bmad_project, "recall", "cache", "values")
    assert code == 0 and _answer(recalled) == value and value["count"] > 0
    assert failed.isError
    assert server.close() == b""  # nothing on stdout, ever


def test_stdout_carries_only_protocol(bmad_project: Path) -> None:
    """Raw JSON-RPC over a pipe: every line on stdout is a JSON-RPC message,
    and a garbage line does not stop the server."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "this is not json",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": "cache"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [*MEM, "mcp", "-d", str(bmad_project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, Any] = {}
    for message in messages:
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)).encode() + b"\n")
        proc.stdin.flush()
        if isinstance(message, dict) and "id" in message:
            while message["id"] not in answers:
                line = proc.stdout.readline()
                assert line, proc.stderr.read() if proc.stderr else ""
                parsed = json.loads(line)
                assert parsed["jsonrpc"] == "2.0"
                if "id" in parsed:
                    answers[parsed["id"]] = parsed
    rest, err = proc.communicate(timeout=15)  # closes stdin: the server ends
    assert proc.returncode == 0, err
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert answers[2]["result"]["isError"] is False and answers[2]["result"]["structuredContent"]["count"] > 0
    assert (
        answers[3]["result"]["isError"] is True and answers[3]["result"]["content"][0]["text"] == "unknown tool 'nope'"
    )
    assert answers[4]["result"]["resources"] == []


def test_server_refuses_a_bad_start(project: Path) -> None:
    for args, message in (
        (["--http", "0.0.0.0:8000"], "mem mcp: --http serves loopback only (127.0.0.1, localhost or [::1]), got '0.0.0.0'"),
        (["--http", "nonsense"], "mem mcp: --http takes HOST:PORT (e.g. 127.0.0.1:8765), got 'nonsense'"),
        (["-d", str(project / "missing")], f"mem mcp: project directory not found: {project / 'missing'}"),
    ):  # fmt: skip
        proc = subprocess.run(
            [*MEM, "mcp", *args], capture_output=True, stdin=subprocess.DEVNULL, cwd=project, timeout=60
        )
        assert proc.returncode == 1
        assert proc.stdout == b""
        assert proc.stderr.decode().strip().splitlines() == [message]


def test_other_commands_never_import_the_sdk(project: Path) -> None:
    code = (
        "import sys; from mem_cli.main import main; import mem_cli.app; "
        "main(['write', '--agent', 'a', '-d', sys.argv[1]]); main(['recall', 'a', '-d', sys.argv[1]]); "
        "main(['memories', '-d', sys.argv[1]]); "
        "print('SDK' if any(m == 'mcp' or m.startswith(('mcp.', 'mem_core.mcp')) for m in sys.modules) else 'clean')"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, timeout=60)
    assert proc.stdout.decode().splitlines()[-1] == "clean", proc.stderr.decode()
