"""Helpers for the ``mem mcp`` tests: the SDK's own client over a real stdio
subprocess and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (a dependency of mem) is not installed")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

MEM = [sys.executable, "-m", "mem_cli"]


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra or {})
    return env


@asynccontextmanager
async def stdio_session(
    project: Path, errlog: Path, *args: str, cwd: Path | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session with ``mem mcp -d project`` as a real process."""
    params = StdioServerParameters(
        command=MEM[0], args=[*MEM[1:], "mcp", "-d", str(project), *args], env=server_env(), cwd=cwd
    )
    with open(errlog, "a", encoding="utf-8") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write, _session_id), ClientSession(read, write) as session:
        await session.initialize()
        yield session


class HttpServer:
    """``mem mcp --http 127.0.0.1:0`` as a real process; ``url`` is where it listens."""

    def __init__(self, project: Path, log: Path) -> None:
        self.log_path = log
        self._log = open(log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [*MEM, "mcp", "-d", str(project), "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=server_env(),
        )
        deadline = time.monotonic() + 30
        self.url = ""
        while time.monotonic() < deadline:
            found = re.search(r"serving (http://\S+/mcp)", log.read_text(encoding="utf-8", errors="replace"))
            if found:
                self.url = found.group(1)
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not self.url:
            self.close()
            raise AssertionError(f"mem mcp --http did not start: {log.read_text()}")

    def close(self) -> bytes:
        """Stop the server; returns what it printed on stdout (must be nothing)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            out, _ = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        self._log.close()
        return out or b""


@pytest.fixture
def http_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A factory: ``http_server(project)`` -> a running :class:`HttpServer`."""
    started: list[HttpServer] = []

    def start(project: Path) -> HttpServer:
        server = HttpServer(project, tmp_path / f"http-{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def cli_json(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, Any]:
    """``mem <args> --json -d project`` as a process: (exit code, parsed JSON)."""
    import json

    proc = subprocess.run(
        [*MEM, *args, "-d", str(project), "--json"],
        capture_output=True,
        env=server_env(env),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    return proc.returncode, json.loads(proc.stdout.decode("utf-8"))
