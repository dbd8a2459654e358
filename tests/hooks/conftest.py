"""Fixtures of the brief and hook tests: the fixture project (notes and a
journal, data/project), a kept user cache directory, and ``mem hook`` as a
real process with its stdin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
NOW = "2026-11-30T12:00:00.000Z"


@pytest.fixture(autouse=True)
def _cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The user cache directory (session state, the fallback hooks log) of each test."""
    path = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(path))
    return path


@pytest.fixture
def cache(_cache: Path) -> Path:
    return _cache


@pytest.fixture
def fixture_project(tmp_path: Path) -> Path:
    """A writable copy of data/project: decisions, lessons, patterns, a journal."""
    path = tmp_path / "app"
    shutil.copytree(DATA / "project", path)
    return path


@dataclass
class HookRun:
    code: int
    out: str
    err: str
    seconds: float


@pytest.fixture
def hook():
    """Run ``mem hook EVENT --assistant NAME`` as a real process with
    ``payload`` (a dict as JSON, or bytes as they are) on stdin."""

    def run(
        event: str,
        assistant: str,
        payload: Any = None,
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> HookRun:
        data = payload if isinstance(payload, bytes) else json.dumps(payload or {}).encode()
        full_env = dict(os.environ, MEM_NOW=NOW)
        full_env.update(env or {})
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "mem_cli", "hook", event, "--assistant", assistant],
            input=data,
            cwd=cwd,
            env=full_env,
            capture_output=True,
            timeout=timeout,
        )
        return HookRun(proc.returncode, proc.stdout.decode(), proc.stderr.decode(), time.monotonic() - started)

    return run


def hooks_log(project: Path) -> list[str]:
    path = project / ".bmad" / "memory" / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
