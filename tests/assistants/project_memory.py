"""A project with memory in it, and ``mem`` run as a real process, for the tests of ``mem`` with the assistants.

:func:`make_project` writes ``.agents/memory/decisions.md`` (with :data:`DECISION`, whose text holds
:data:`DECISION_TEXT`), ``lessons.md`` and a journal with one failure (:data:`FAILURE_TASK`);
:func:`mem` runs the ``mem`` that the programs find on their PATH (the test interpreter's) with
the same throwaway HOME; :func:`journal` reads the journal back.
"""

from __future__ import annotations

import json
import subprocess
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
MEM_TOOLS = ("recall", "write", "reinforce", "observe", "outcomes", "remember", "memories", "forget", "context")

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
