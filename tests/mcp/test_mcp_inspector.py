"""The MCP Inspector CLI (npm) against ``mem mcp``: skipped, with the reason,
when npx is missing or the npm registry cannot be reached."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def _inspector(project: Path, *method: str) -> subprocess.CompletedProcess[str]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed (node/npm from Debian's packages)")
    env = {k: v for k, v in os.environ.items()}
    env.setdefault("npm_config_update_notifier", "false")
    pass_env = [arg for name in ("PYTHONPATH", "MEM_NOW", "MEM_DISABLE_PLUGINS", "MEM_USER_DIR") if name in env
                for arg in ("-e", f"{name}={env[name]}")]  # fmt: skip
    command = [npx, "-y", INSPECTOR, "--cli", *pass_env, sys.executable, "-m", "mem_cli", "mcp", "-d", str(project)]
    try:
        proc = subprocess.run(
            [*command, *method], capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npx {INSPECTOR} did not finish in 300 s (registry unreachable?)")
    if proc.returncode != 0 and any(
        marker in proc.stderr for marker in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "E404", "network")
    ):
        pytest.skip(f"the npm registry cannot be reached for {INSPECTOR}: {proc.stderr.strip().splitlines()[-1]}")
    return proc


def test_inspector_lists_and_calls_the_tools(bmad_project: Path) -> None:
    listed = _inspector(bmad_project, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)["tools"]}
    assert set(tools) == {
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
    }
    assert tools["recall"]["annotations"]["readOnlyHint"] is True
    called = _inspector(bmad_project, "--method", "tools/call", "--tool-name", "recall", "--tool-arg", "query=cache")
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result["isError"] is False and result["structuredContent"]["count"] > 0
    resources = _inspector(bmad_project, "--method", "resources/list")
    assert resources.returncode == 0 and json.loads(resources.stdout)["resources"] == []
