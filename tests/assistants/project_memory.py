"""A project with memory in it, and ``mem`` run as a real process, for the tests of ``mem`` with the assistants.

:func:`make_project` writes ``.agents/memory/decisions.md`` (with :data:`DECISION`, whose text holds
:data:`DECISION_TEXT`), ``lessons.md`` and a journal with one failure (:data:`FAILURE_TASK`);
:func:`mem` runs the ``mem`` that the programs find on their PATH (the test interpreter's) with
the same throwaway HOME; :func:`journal` reads the journal back. For the assistants with no
runnable program (Cursor, Antigravity): :func:`mcp_session` starts a configured MCP command as
the assistant would and talks to it with the MCP Python SDK's client; :func:`frontmatter`
reads a rule file's YAML frontmatter with a real YAML parser.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import programs

DECISION = "Use Valkey for the session store"
DECISION_TEXT = "Sessions live in Valkey 8, keyed by an opaque token, with a 30-minute sliding expiry."
LESSON = "Cache zero values"
FAILURE_TASK = "Move the session store off Memcached"
#: a prompt about something the project decided, and the words the fake model recalls with
PROMPT = "What did we decide about the session store?"
QUERY = "session store Valkey"
#: a phrase of the instruction block ``mem adapters install`` writes (mem_core/adapters/instructions.py)
BLOCK_PHRASE = "are for the human: never confirm a memory"
#: every tool ``mem mcp`` offers; nothing a human must do (``verify``) is among them
MEM_TOOLS = (
    "recall",
    "write",
    "reinforce",
    "observe",
    "outcomes",
    "remember",
    "memories",
    "forget",
    "context",
    "brief",
)

DECISIONS = f"""# Decisions

### {DECISION}
{DECISION_TEXT}
- **Why**: the open fork of Redis; the sessions need no durability beyond their expiry.

### PostgreSQL is the system of record
Every durable business record lives in PostgreSQL 16; caches and queues are rebuilt from it.
"""
LESSONS = f"""# Lessons

### {LESSON}
A cached zero is a value, not a miss: store it, or the pricing service is asked again on every request.
"""
FAILURE = {
    "ts": "2026-11-20T09:00:00.000Z",
    "agent": "forge",
    "cli": "claude-code",
    "model": None,
    "task": FAILURE_TASK,
    "outcome": "failure",
    "signals": {},
    "artifactHashes": [],
    "id": "5e55104f0a11",
}


def make_project(root: Path) -> tuple[Path, Path]:
    """``root/project`` (a git repository with memory in it) and ``root/home`` (an empty HOME)."""
    project, home = root / "project", root / "home"
    notes = project / ".agents" / "memory"
    notes.mkdir(parents=True)
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (notes / "decisions.md").write_text(DECISIONS)
    (notes / "lessons.md").write_text(LESSONS)
    state = project / ".bmad" / "memory"
    state.mkdir(parents=True)
    (state / "journal.ndjson").write_text(json.dumps(FAILURE, separators=(",", ":")) + "\n")
    return project, home


def mem(project: Path, home: Path, *args: str, timeout: float = 60) -> programs.Completed:
    """``mem ARGS…`` as a user runs it in ``project``: the ``mem`` on the programs' PATH, HOME = ``home``."""
    env = programs.base_env(home, "http://127.0.0.1:9")
    done = programs._run(["mem", *args], project, env, timeout)
    return done


def install(assistant: str, project: Path, home: Path, *args: str) -> programs.Completed:
    """``mem adapters install ASSISTANT ARGS…``; fails the test unless it succeeded."""
    done = mem(project, home, "adapters", "install", assistant, *args)
    assert done.returncode == 0, done.describe()
    return done


def journal(project: Path) -> list[dict[str, Any]]:
    """The events of the project's journal, oldest first."""
    path = project / ".bmad" / "memory" / "journal.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def new_events(project: Path) -> list[dict[str, Any]]:
    """The journal's events but the one :func:`make_project` wrote."""
    return [event for event in journal(project) if event.get("id") != FAILURE["id"]]


def hook_env(home: Path) -> dict[str, str]:
    """The environment of a hook or MCP command started for an assistant: HOME = ``home``, ``mem`` on PATH."""
    return programs.base_env(home, "http://127.0.0.1:9")


def mcp_session(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], query: str = QUERY, timeout: float = 60
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Start ``argv`` in ``cwd`` as a stdio MCP server, list its tools and call ``recall`` with ``query``
    through the MCP Python SDK's client: (the tools as listed, the recall's structured content)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def talk() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=dict(env), cwd=str(cwd))
        with open(cwd.parent / "mcp-server.err", "a") as errlog, anyio.fail_after(timeout):
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                called = await session.call_tool("recall", {"query": query})
        assert not called.isError, called.content
        tools = [tool.model_dump(mode="json", by_alias=True) for tool in listed.tools]
        return tools, dict(called.structuredContent or {})

    return anyio.run(talk)


_YAML = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"


def frontmatter(text: str) -> tuple[Any, str]:
    """The YAML frontmatter of a rule file (between the leading ``---`` lines), parsed, and the body.

    The parser is PyYAML: this interpreter's if it has it, else the Aider venv's (Aider depends on it).
    """
    assert text.startswith("---\n"), text[:80]
    head, sep, body = text[4:].partition("\n---\n")
    assert sep, "the frontmatter is not closed by a --- line"
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        python = _aider_python()
        done = subprocess.run([python, "-c", _YAML], input=head, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout), body
    return yaml.safe_load(head), body


def _aider_python() -> str:
    import pytest

    reason = programs.available("aider")
    if reason:
        pytest.skip(f"no YAML parser: PyYAML is not installed here, and the Aider venv is not there ({reason})")
    python = Path(programs.executable("aider")).parent / "python"
    if not python.exists():
        pytest.skip(f"no YAML parser: PyYAML is not installed here, and {python} is missing")
    return str(python)
