"""Antigravity: .agents/rules/mem.md and AGENTS.md; --scope user: ~/.gemini/GEMINI.md and mcp_config.json."""

from __future__ import annotations

import json
import os

from mem_core.adapters.edits import BEGIN, END


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("antigravity")
    assert sorted(k for k, v in installed.items() if v is not None) == [".agents/rules/mem.md", "AGENTS.md"]


def test_the_rule_is_always_on(adapters) -> None:
    adapters.install("antigravity")
    rule = adapters.read(".agents/rules/mem.md")
    head, _, body = rule[4:].partition("\n---\n")
    assert rule.startswith("---\n")
    assert "trigger: always_on" in head.splitlines()
    assert body.strip().startswith(BEGIN) and body.strip().endswith(END)


def test_a_project_with_its_own_agents_md_and_rules_round_trip(adapters) -> None:
    files = {"AGENTS.md": "# Agents\nBe brief.", ".agents/rules/style.md": "---\ntrigger: always_on\n---\nTabs.\n"}
    adapters.round_trip("antigravity", files)


def test_the_project_scope_says_the_mcp_server_needs_the_user_scope(adapters) -> None:
    (note,) = adapters.install("antigravity").adapters[0]["notes"]
    assert "--scope user" in note


def test_user_scope_writes_both_mcp_configs_with_absolute_paths(adapters) -> None:
    installed = adapters.round_trip("antigravity", scope="user")
    for path in (".gemini/antigravity/mcp_config.json", ".gemini/config/mcp_config.json"):
        server = json.loads(installed[path])["mcpServers"]["mem"]
        assert os.path.isabs(server["command"]) and os.path.exists(server["command"])
        assert server["args"][-1] == "mcp"
    assert ".gemini/GEMINI.md" in installed


def test_user_scope_writes_the_one_config_whose_directory_exists(adapters) -> None:
    existing = '{\n  "mcpServers": {\n    "browser": {"command": "/usr/bin/browser-mcp"}\n  }\n}\n'
    installed = adapters.round_trip("antigravity", {".gemini/config/mcp_config.json": existing}, scope="user")
    assert ".gemini/antigravity/mcp_config.json" not in installed
    assert list(json.loads(installed[".gemini/config/mcp_config.json"])["mcpServers"]) == ["browser", "mem"]
