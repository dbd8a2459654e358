"""OpenCode: AGENTS.md, mcp.mem in opencode.json, the plugin module .opencode/plugin/mem.js."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.errors import MemError

OPENCODE_JSON = """{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:9/v1"}, "models": {"m": {}}}
  },
  "model": "fake/m",
  "mcp": {
    "jira": {"type": "remote", "url": "http://127.0.0.1:7/mcp"}
  }
}
"""

node = shutil.which("node")


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("opencode")
    assert sorted(k for k, v in installed.items() if v is not None) == [
        ".opencode/plugin/mem.js",
        "AGENTS.md",
        "opencode.json",
    ]
    config = json.loads(installed["opencode.json"])
    assert config == {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"mem": {"type": "local", "command": ["mem", "mcp"], "environment": {}, "enabled": True}},
    }


def test_an_opencode_json_of_the_users_round_trip(adapters) -> None:
    installed = adapters.round_trip("opencode", {"opencode.json": OPENCODE_JSON, "AGENTS.md": "# Rules\n"})
    config = json.loads(installed["opencode.json"])
    assert list(config) == ["$schema", "provider", "model", "mcp"]
    assert list(config["mcp"]) == ["jira", "mem"]


def test_a_plugin_file_that_is_not_mems_is_refused(adapters, tree, put) -> None:
    put(adapters.project, {".opencode/plugin/mem.js": "export const Mine = async () => ({});\n"})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.opencode/plugin/mem\.js exists and is not mem's"):
        adapters.install("opencode")
    assert tree(adapters.project) == before


def test_user_scope_writes_under_the_config_directory(adapters) -> None:
    installed = adapters.round_trip("opencode", scope="user")
    assert {".config/opencode/AGENTS.md", ".config/opencode/opencode.json", ".config/opencode/plugin/mem.js"} <= set(
        installed
    )


FAKE_MEM = """#!{python}
import json, os, sys
record = {{"argv": sys.argv[1:], "stdin": json.loads(sys.stdin.read() or "null")}}
with open(os.environ["MEM_FAKE_LOG"], "a") as log:
    log.write(json.dumps(record) + "\\n")
event = sys.argv[2]
if event == "session-start":
    print("BRIEF: use BullMQ")
elif event == "prompt-submit":
    print("RECALL: " + record["stdin"]["prompt"])
"""

DRIVER = """
const { MemPlugin } = await import(process.argv[2]);
const hooks = await MemPlugin({ directory: process.argv[3] });
await hooks["chat.message"]({ sessionID: "s1" }, { parts: [{ type: "text", text: "fix the queue" }] });
const first = { system: ["base"] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, first);
const second = { system: ["base"] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1" }, second);
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
await hooks.event({ event: { type: "message.updated", properties: {} } });
console.log(JSON.stringify({ first: first.system, second: second.system }));
"""


@pytest.mark.skipif(node is None, reason="node is not installed")
def test_the_plugin_module_runs_mem_hook_for_the_system_prompt_and_the_sessions_end(adapters, tmp_path: Path) -> None:
    adapters.install("opencode")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "mem"
    fake.write_text(FAKE_MEM.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls.ndjson"
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "MEM_FAKE_LOG": str(log)}
    plugin = adapters.project / ".opencode" / "plugin" / "mem.js"
    run = subprocess.run(
        [node, str(driver), str(plugin), str(adapters.project)], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    systems = json.loads(run.stdout)
    assert systems["first"] == ["base", "BRIEF: use BullMQ", "RECALL: fix the queue"]
    assert systems["second"] == systems["first"], "every model call of the turn gets both, mem hook runs once each"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["argv"] for c in calls] == [
        ["hook", "session-start", "--assistant", "opencode"],
        ["hook", "prompt-submit", "--assistant", "opencode"],
        ["hook", "session-end", "--assistant", "opencode"],
    ]
    assert calls[1]["stdin"] == {
        "session_id": "s1",
        "cwd": str(adapters.project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "fix the queue",
    }
    assert calls[2]["stdin"]["hook_event_name"] == "SessionEnd"


@pytest.mark.skipif(node is None, reason="node is not installed")
def test_the_plugin_adds_nothing_when_mem_is_missing(adapters, tmp_path: Path) -> None:
    adapters.install("opencode")
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    plugin = adapters.project / ".opencode" / "plugin" / "mem.js"
    env = {**os.environ, "PATH": str(tmp_path / "nothing-here")}
    run = subprocess.run(
        [node, str(driver), str(plugin), str(adapters.project)], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"first": ["base"], "second": ["base"]}
