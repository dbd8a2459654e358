"""The torture suite's tools (issue 10): real ``mem`` processes with a
timeout (a hang fails the test), snapshots of a project's files with their
kinds, and the invariants every store must keep whatever happened to it.

Every module here is marked ``reliability`` (``pytestmark``); the heavy
tests are ``slow`` as well. The main tox env deselects ``slow and reliability``; ``tox -e
reliability`` runs them all, with ``MEM_TEST_KILL_TRIALS`` kill trials.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

MEMORY = Path(".bmad") / "memory"
STORES = ("journal.ndjson", "promotions.ndjson", "outcomes.ndjson")
#: a command that runs longer than this is a hang
TIMEOUT = 30.0


@contextlib.contextmanager
def tmpfs(mount: Path, size: str, what: str = "a tmpfs") -> Iterator[Path]:
    """``mount``, a new directory with a fresh tmpfs of ``size`` on it for
    the ``with`` block; the test is skipped where one cannot be mounted."""
    if os.geteuid() != 0:
        pytest.skip(f"mounting {what} needs root")
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def kill_trials(default: int) -> int:
    """How many kill trials to run: ``MEM_TEST_KILL_TRIALS``, else ``default``."""
    return int(os.environ.get("MEM_TEST_KILL_TRIALS", default))


@dataclass
class Proc:
    code: int
    out: str
    err: str


def mem_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra or {})
    return env


def mem_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "mem_cli", *args]


def run_mem(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT) -> Proc:
    """Run ``mem`` as a real process; a hang fails the test."""
    try:
        done = subprocess.run(
            mem_argv(*args),
            cwd=cwd,
            env=mem_env(env),
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"mem {' '.join(args)} hung (no exit within {timeout} s)")
    return Proc(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def spawn_mem(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        mem_argv(*args),
        cwd=cwd,
        env=mem_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )


def assert_clean(proc: Proc) -> None:
    """No traceback, a documented exit code, at most one error line."""
    assert "Traceback" not in proc.err and "Traceback" not in proc.out, proc.err
    assert proc.code in (0, 1), (proc.code, proc.err)
    if proc.code == 1 and proc.err:
        assert len(proc.err.splitlines()) <= 2, proc.err  # a notice, then the error


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str | None]]:
    """Every entry under ``root``: its kind and, for files, bytes (symlinks:
    their target), so that a refusal can be shown to change nothing."""
    found: dict[str, tuple[str, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("symlink", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", oct(st.st_mode & 0o777))
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as fh:
                    found[rel] = ("file", fh.read())
            elif stat.S_ISFIFO(st.st_mode):
                found[rel] = ("fifo", None)
            elif stat.S_ISSOCK(st.st_mode):
                found[rel] = ("socket", None)
            else:
                found[rel] = ("other", None)
    return found


def observe_input(project: Path, task: str) -> str:
    """An observe input file in ``project`` for task ``task`` of the fixture's Nexus run ``run``; its name."""
    name = f"in-{task}.json"
    (project / name).write_text(
        json.dumps(
            {
                "runId": "run",
                "taskId": task,
                "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
                "scope": ["work"],
                "interpretation": "The accepted change keeps false and zero; causality is not measured.",
            }
        )
    )
    return name


def store_problems(project: Path) -> list[str]:
    """What is wrong with the project's stores: torn lines, lines that do not
    parse, an invalid score file, a lock or temporary files left behind."""
    problems = []
    memory = project / MEMORY
    for name in STORES:
        path = memory / name
        if not path.exists():
            continue
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            problems.append(f"{name}: torn final line {data[-60:]!r}")
        for number, line in enumerate(data.split(b"\n")[:-1], 1):
            try:
                json.loads(line)
            except ValueError:
                problems.append(f"{name}:{number}: not JSON {line[:60]!r}")
    scores = memory / "pattern-scores.json"
    if scores.exists():
        try:
            value = json.loads(scores.read_bytes())
            if not isinstance(value, dict):
                problems.append("pattern-scores.json: not an object")
        except ValueError:
            problems.append("pattern-scores.json: not JSON")
    if memory.is_dir():
        for entry in os.listdir(memory):
            if entry.endswith(".tmp") or ".stale-" in entry:
                problems.append(f"left over: {entry}")
        lock = memory / "writer.lock"
        if lock.exists() and lock.stat().st_size == 0:
            problems.append("writer.lock is empty")
    return problems


@pytest.fixture
def pinned() -> dict[str, str]:
    return {"MEM_NOW": "2026-11-05T12:00:00.000Z"}
