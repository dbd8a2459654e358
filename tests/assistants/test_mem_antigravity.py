"""``mem adapters install antigravity`` (project, then ``--scope user``): the files it writes parse and
match Antigravity's documented formats, and the MCP command it configures really starts ``mem mcp``
(Antigravity has no program in a public registry, so no turn).

- project: ``.agents/rules/mem.md`` with YAML frontmatter ``trigger: always_on``, then the
  instruction block; the same block in ``AGENTS.md``;
- ``--scope user``: the block in ``~/.gemini/GEMINI.md``; ``mcp_config.json`` ``{"mcpServers":
  {"mem": {"command": <absolute path>, "args": [...]}}}`` at both global paths (older builds read
  ``~/.gemini/antigravity/``, newer ``~/.gemini/config/``; with neither there, both are written).
  The command, started with no ``mem`` on PATH (Antigravity takes absolute paths only), answers
  the MCP Python SDK's client.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import project_memory as pm
import pytest

ASSISTANT = "antigravity"
GLOBAL_CONFIGS = (".gemini/antigravity/mcp_config.json", ".gemini/config/mcp_config.json")


@dataclass
class Installed:
    project: Path
    home: Path
    project_output: str
    user_output: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    project, home = pm.make_project(tmp_path_factory.mktemp("antigravity"))
    in_project = pm.install(ASSISTANT, project, home)
    for_user = pm.install(ASSISTANT, project, home, "--scope", "user")
    return Installed(project, home, in_project.stdout, for_user.stdout)


def test_install_writes_the_rule_and_agents_md_and_names_the_user_scope(installed: Installed) -> None:
    for name in (".agents/rules/mem.md", "AGENTS.md"):
        assert f"created {name}" in installed.project_output, installed.project_output
    assert "--scope user" in installed.project_output  # the MCP server is global only: the note says so
    for name in (".gemini/GEMINI.md", *GLOBAL_CONFIGS):
        assert f"created ~/{name}" in installed.user_output, installed.user_output


def test_the_rule_is_always_on(installed: Installed) -> None:
    meta, body = pm.frontmatter((installed.project / ".agents" / "rules" / "mem.md").read_text())
    assert meta["trigger"] == "always_on", meta
    assert set(meta) <= {"trigger", "description", "globs"}, meta
    assert "<!-- mem:begin -->" in body and pm.BLOCK_PHRASE in body and "<!-- mem:end -->" in body


@pytest.mark.parametrize("name", ["AGENTS.md", "~/.gemini/GEMINI.md"])
def test_the_instruction_block(installed: Installed, name: str) -> None:
    path = installed.home / name[2:] if name.startswith("~/") else installed.project / name
    text = path.read_text()
    assert text.count("<!-- mem:begin -->") == 1 and pm.BLOCK_PHRASE in text


@pytest.mark.parametrize("config", GLOBAL_CONFIGS)
def test_mcp_config_starts_mem_mcp_by_its_absolute_path(installed: Installed, config: str) -> None:
    servers = json.loads((installed.home / config).read_text())["mcpServers"]
    assert set(servers) == {"mem"}
    server = servers["mem"]
    assert set(server) == {"command", "args"} and server["args"][-1] == "mcp", server
    assert os.path.isabs(server["command"]) and os.access(server["command"], os.X_OK), server
    assert all(not arg.startswith(".") for arg in server["args"])  # no relative paths either
    env = dict(pm.hook_env(installed.home), PATH="/usr/bin:/bin")  # no `mem` on PATH
    tools, recalled = pm.mcp_session([server["command"], *server["args"]], installed.project, env)
    names = {tool["name"] for tool in tools}
    assert names == set(pm.MEM_TOOLS), names
    top = recalled["results"][0]
    assert (top["sourceFile"], top["ref"]) == (".agents/memory/decisions.md", pm.DECISION)


def test_an_existing_global_directory_is_the_only_one_written(tmp_path: Path) -> None:
    project, home = pm.make_project(tmp_path)
    (home / ".gemini" / "config").mkdir(parents=True)
    done = pm.install(ASSISTANT, project, home, "--scope", "user")
    assert "created ~/.gemini/config/mcp_config.json" in done.stdout, done.stdout
    assert not (home / ".gemini" / "antigravity").exists()
