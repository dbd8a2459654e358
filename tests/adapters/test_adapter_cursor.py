"""Cursor: .cursor/rules/mem.mdc, .cursor/mcp.json, .cursor/hooks.json; --scope user."""

from __future__ import annotations

import json

import pytest

from mem_core.adapters.edits import BEGIN, END
from mem_core.errors import MemError

MCP = '{\n  "mcpServers": {\n    "postgres": {\n      "command": "pg-mcp",\n      "env": {"PGHOST": "localhost"}\n    },\n    "figma": {"url": "http://127.0.0.1:3845/sse"}\n  }\n}\n'
HOOKS = '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [{"command": "./format.sh"}]\n  }\n}\n'


def frontmatter(text: str) -> dict[str, object]:
    """The frontmatter of a rule file, with YAML's scalars (true/false, empty)."""
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    values: dict[str, object] = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        values[key] = {"true": True, "false": False, "": None}.get(value, value)
    return values


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("cursor")
    assert sorted(k for k, v in installed.items() if v is not None) == [
        ".cursor/hooks.json",
        ".cursor/mcp.json",
        ".cursor/rules/mem.mdc",
    ]


def test_the_rule_mcp_and_hooks_files_are_cursors_formats(adapters) -> None:
    adapters.install("cursor")
    rule = adapters.read(".cursor/rules/mem.mdc")
    meta = frontmatter(rule)
    assert meta["alwaysApply"] is True, "a real boolean, not a string"
    assert "\nalwaysApply: true\n" in rule
    assert set(meta) == {"description", "globs", "alwaysApply"} and meta["description"]
    body = rule.split("\n---\n", 1)[1]
    assert body.strip().startswith(BEGIN) and body.strip().endswith(END)
    assert json.loads(adapters.read(".cursor/mcp.json")) == {"mcpServers": {"mem": {"command": "mem", "args": ["mcp"]}}}
    hooks = json.loads(adapters.read(".cursor/hooks.json"))
    assert hooks == {
        "version": 1,
        "hooks": {
            "sessionStart": [{"command": "mem hook session-start --assistant cursor"}],
            "beforeSubmitPrompt": [{"command": "mem hook prompt-submit --assistant cursor"}],
            "stop": [{"command": "mem hook session-end --assistant cursor"}],
        },
    }
    assert list(hooks) == ["version", "hooks"]


def test_an_mcp_json_with_other_servers_and_hooks_of_the_users_round_trip(adapters) -> None:
    installed = adapters.round_trip("cursor", {".cursor/mcp.json": MCP, ".cursor/hooks.json": HOOKS})
    assert list(json.loads(installed[".cursor/mcp.json"])["mcpServers"]) == ["postgres", "figma", "mem"]
    assert list(json.loads(installed[".cursor/hooks.json"])["hooks"])[0] == "afterFileEdit"


def test_user_scope_has_no_rule_file(adapters) -> None:
    installed = adapters.round_trip("cursor", {".cursor/mcp.json": MCP}, scope="user")
    assert ".cursor/rules/mem.mdc" not in installed and ".cursor/mcp.json" in installed


def test_an_invalid_mcp_json_is_refused(adapters, tree, put) -> None:
    put(adapters.project, {".cursor/mcp.json": '{"mcpServers": {"a": 1,}}'})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.cursor/mcp\.json is not valid JSON"):
        adapters.install("cursor")
    assert tree(adapters.project) == before
