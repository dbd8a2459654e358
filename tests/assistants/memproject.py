"""A project with memory in it, and ``mem`` run as a user runs it, for the tests of ``mem`` with
the assistants' real programs (``test_mem_<assistant>.py``).

Each test module makes its own project and throwaway HOME with :func:`make_project`; nothing
is shared between modules but this code.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import programs
import pytest
from project_memory import MEM_TOOLS, PROMPT, journal  # noqa: F401  (shared by both helpers' tests)

#: the decision the prompt (:data:`PROMPT`) is about, and a recall query for it
HEADING = "Use Valkey for the session store"
BODY = "Sessions live in Valkey (not Redis) since the license change; the session TTL is 14 days."
QUERY = "Valkey session store"
LESSON = "Flush the outbox before shutdown"
FAILED_TASK = "Move the cache to Valkey"
MEM_TIMEOUT = 60.0
#: for the assistants' turns: ``mem hook`` gives up after ``hook_timeout`` (1 s by default) and
#: prints nothing; a whole hook process takes 0.1-0.3 s, but a loaded 2-core CI machine must not
#: turn that into a missing brief. Bounded below the adapters' own hook timeouts (5 s, 10 s).
TURN_ENV = {"MEM_HOOK_TIMEOUT": "4"}


def mem(argv: list[str], project: Path, home: Path, url: str) -> subprocess.CompletedProcess[str]:
    """``mem ARGV…`` in ``project`` with the programs' environment: the ``mem`` on their PATH
    (the test interpreter's), the throwaway ``home``, only loopback."""
    env = programs.base_env(home, url)
    exe = shutil.which("mem", path=env["PATH"])
    assert exe, f"no mem on {env['PATH']}"
    return subprocess.run(
        [exe, *argv], cwd=project, env=env, capture_output=True, text=True, timeout=MEM_TIMEOUT, check=False
    )


def hooks_log(project: Path) -> str:
    """The hooks' failures (``.bmad/memory/hooks.log``): ``""`` when none failed."""
    path = project / ".bmad/memory/hooks.log"
    return path.read_text() if path.exists() else ""


def make_project(root: Path, home: Path, url: str, *, cli: str) -> Path:
    """``root/project``: a git project with ``.agents/memory/decisions.md`` (:data:`HEADING`),
    ``lessons.md`` and a journal holding one failure (written by ``mem write --cli CLI``)."""
    project = root / "project"
    notes = project / ".agents" / "memory"
    notes.mkdir(parents=True)
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (notes / "decisions.md").write_text(
        f"# Decisions\n\n### {HEADING}\n{BODY}\n\n"
        "### Keep the API on Python 3.12\nThe API runs on Python 3.12 until the workers move.\n"
    )
    (notes / "lessons.md").write_text(
        f"# Lessons\n\n### {LESSON}\nPending outbox rows were lost when the worker stopped without flushing.\n"
    )
    wrote = mem(
        ["write", "--agent", "forge", "--cli", cli, "--task", FAILED_TASK, "--outcome", "failure"], project, home, url
    )
    assert wrote.returncode == 0, wrote.stderr
    return project


def assert_recall_answered(answer: dict[str, Any], done: programs.Completed, reply_text: str) -> None:
    """``answer``, the ``recall`` tool's JSON for :data:`QUERY`, has the decision on top, and the
    turn printed it with the fake model's reply."""
    assert answer["query"] == QUERY
    top = answer["results"][0]
    assert (top["kind"], top["sourceFile"], top["ref"]) == ("note", ".agents/memory/decisions.md", HEADING)
    assert BODY in top["text"]
    assert BODY in done.stdout and reply_text in done.stdout, done.describe()


def assert_one_session_event(before: list[dict[str, object]], after: list[dict[str, object]], cli: str) -> None:
    """The journal ``after`` the turn is the one ``before`` it plus one event of ``cli``'s session."""
    new = after[len(before) :]
    assert after[: len(before)] == before
    assert [(e["agent"], e["cli"], e["task"], e["outcome"]) for e in new] == [(cli, cli, PROMPT, None)]


def clean_env(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """For a module-scoped fixture, what the root conftest's ``_clean_env`` does per test: no
    ``MEM_*`` of the caller but this folder's switches; the user-level store and config in ``home``."""
    for name in list(os.environ):
        if name.startswith("MEM_") and not name.startswith("MEM_ASSISTANTS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEM_USER_DIR", str(home / "mem-user-store"))
    monkeypatch.setenv("MEM_USER_CONFIG", str(home / "mem-user-config.toml"))


@contextlib.contextmanager
def busy_cpu(processes: int) -> Iterator[None]:
    """``processes`` busy loops beside the test for its duration: the issue
    saw Claude Code send its first request without mem's tools when the
    machine was loaded, so the turn is run on a machine kept busy too."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
