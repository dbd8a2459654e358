"""Codex CLI: AGENTS.md, [mcp_servers.mem] in .codex/config.toml, .codex/hooks.json; --scope user."""

from __future__ import annotations

import json
import sys

import pytest

from mem_core.adapters.edits import BEGIN
from mem_core.errors import MemError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG = """\
# Codex settings for this repository
model = "gpt-5"            # the team's model
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

# sandbox below: keep it strict
[sandbox_workspace_write]
network_access = false
"""
AGENTS_MD = "# Agents\n\n- Use pnpm, never npm.\n"
HOOKS = '{\n\t"hooks": {\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n\t}\n}\n'


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("codex-cli")
    assert sorted(k for k, v in installed.items() if v is not None) == [
        ".codex/config.toml",
        ".codex/hooks.json",
        "AGENTS.md",
    ]


def test_the_files_written_are_codexs_formats(adapters) -> None:
    adapters.install("codex-cli")
    config = tomllib.loads(adapters.read(".codex/config.toml"))
    assert config == {
        "mcp_servers": {
            "mem": {"command": "mem", "args": ["mcp"], "required": True, "default_tools_approval_mode": "approve"}
        }
    }
    hooks = json.loads(adapters.read(".codex/hooks.json"))["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "Stop"]
    assert [groups[0]["hooks"][0]["command"] for groups in hooks.values()] == [
        "mem hook session-start --assistant codex-cli",
        "mem hook prompt-submit --assistant codex-cli",
        "mem hook session-end --assistant codex-cli",
    ]
    assert adapters.read("AGENTS.md").startswith(BEGIN)


def test_a_config_with_comments_and_other_tables_round_trip(adapters) -> None:
    installed = adapters.round_trip(
        "codex-cli", {".codex/config.toml": CONFIG, "AGENTS.md": AGENTS_MD, ".codex/hooks.json": HOOKS}
    )
    text = installed[".codex/config.toml"].decode()
    assert text.startswith(CONFIG), "comments, order and the other tables untouched"
    assert tomllib.loads(text)["mcp_servers"]["docs"] == {"command": "docs-mcp", "args": ["--port", "0"]}


def test_the_user_is_told_to_trust_the_project(adapters) -> None:
    notes = adapters.install("codex-cli").adapters[0]["notes"]
    assert any("trust" in note and str(adapters.project) in note for note in notes)


def test_user_scope_round_trip(adapters, put) -> None:
    put(adapters.home, {".codex/config.toml": '# mine\nmodel = "o3"\n\n[projects."/x"]\ntrust_level = "trusted"\n'})
    installed = adapters.round_trip("codex-cli", scope="user")
    assert {".codex/AGENTS.md", ".codex/config.toml", ".codex/hooks.json"} <= set(installed)


@pytest.mark.parametrize("text", ['model = "x\n', "[mcp_servers]\nmem = 1\n[mcp_servers]\n"])
def test_an_invalid_config_is_refused_and_nothing_changes(adapters, tree, put, text: str) -> None:
    put(adapters.project, {".codex/config.toml": text})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.codex/config\.toml is not valid TOML: .*nothing was changed$"):
        adapters.install("codex-cli")
    assert tree(adapters.project) == before


def test_a_dry_run_changes_nothing(adapters, tree, put) -> None:
    put(adapters.project, {".codex/config.toml": CONFIG})
    before = tree(adapters.project)
    result = adapters.install("codex-cli", dry_run=True)
    assert tree(adapters.project) == before
    assert "+[mcp_servers.mem]\n" in result.diff and "--- a/.codex/config.toml\n" in result.diff
