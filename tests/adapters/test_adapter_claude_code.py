"""Claude Code: CLAUDE.md, .claude/settings.json hooks, .mcp.json; --approve; --scope user."""

from __future__ import annotations

import json

import pytest

from mem_core.adapters.edits import BEGIN, END
from mem_core.errors import MemError

SETTINGS = """{
   "permissions": {"allow": ["Bash(npm test)"]},
   "hooks": {
      "PreToolUse": [
         {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
      ],
      "SessionStart": [
         {"hooks": [{"type": "command", "command": "echo hi"}]}
      ]
   },
   "model": "opus"
}"""
MCP = '{\n    "mcpServers": {\n        "github": {"command": "gh-mcp", "args": []}\n    }\n}\n'
CLAUDE_MD = "# Our project\n\nRun `make test` before committing.\n"


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("claude-code")
    assert sorted(k for k, v in installed.items() if v is not None) == [
        ".claude/settings.json",
        ".mcp.json",
        "CLAUDE.md",
    ]


def test_the_files_written_are_claude_codes_formats(adapters) -> None:
    adapters.install("claude-code")
    text = adapters.read("CLAUDE.md")
    assert text.startswith(BEGIN + "\n") and text.endswith(END + "\n")
    for words in ("`recall`", "`write`", "brief", "`mem verify`", "`--as-user`", "for the human"):
        assert words in text
    hooks = json.loads(adapters.read(".claude/settings.json"))["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    commands = {event: groups[0]["hooks"][0] for event, groups in hooks.items()}
    assert commands["SessionStart"]["command"] == "mem hook session-start --assistant claude-code"
    assert commands["UserPromptSubmit"]["command"] == "mem hook prompt-submit --assistant claude-code"
    assert commands["SessionEnd"]["command"] == "mem hook session-end --assistant claude-code"
    assert all(c["type"] == "command" and isinstance(c["timeout"], int) for c in commands.values())
    assert json.loads(adapters.read(".mcp.json")) == {
        "mcpServers": {"mem": {"type": "stdio", "command": "mem", "args": ["mcp"], "env": {}}}
    }
    assert not (adapters.project / ".claude/settings.local.json").exists()


def test_a_project_with_its_own_files_round_trip(adapters) -> None:
    files = {"CLAUDE.md": CLAUDE_MD, ".claude/settings.json": SETTINGS, ".mcp.json": MCP}
    adapters.round_trip("claude-code", files)


def test_the_users_hooks_keep_their_place_and_indentation(adapters, put) -> None:
    put(adapters.project, {".claude/settings.json": SETTINGS, "CLAUDE.md": CLAUDE_MD, ".mcp.json": MCP})
    adapters.install("claude-code")
    text = adapters.read(".claude/settings.json")
    settings = json.loads(text)
    assert list(settings) == ["permissions", "hooks", "model"]
    assert list(settings["hooks"]) == ["PreToolUse", "SessionStart", "UserPromptSubmit", "SessionEnd"]
    assert settings["hooks"]["SessionStart"][0] == {"hooks": [{"type": "command", "command": "echo hi"}]}
    assert settings["hooks"]["SessionStart"][1]["hooks"][0]["command"].startswith("mem hook session-start")
    assert text.startswith(
        SETTINGS[: SETTINGS.index('         {"hooks": [{"type": "command", "command": "echo hi"}]}')]
    )
    assert '\n            "matcher": "startup|resume|clear|compact",' in text, "three-space steps, as the file"
    assert adapters.read("CLAUDE.md").startswith(CLAUDE_MD + "\n" + BEGIN)
    assert list(json.loads(adapters.read(".mcp.json"))["mcpServers"]) == ["github", "mem"]


def test_approve_adds_mem_to_the_personal_settings_and_remove_takes_it_out(adapters) -> None:
    installed = adapters.round_trip("claude-code", approve=True)
    assert json.loads(installed[".claude/settings.local.json"]) == {"enabledMcpjsonServers": ["mem"]}
    assert b"enableAllProjectMcpServers" not in installed[".claude/settings.json"]
    local = '{\n  "enabledMcpjsonServers": ["github"],\n  "permissions": {}\n}\n'
    adapters.round_trip("claude-code", {".claude/settings.local.json": local}, approve=True)


def test_without_approve_the_user_is_told_how_to_approve(adapters) -> None:
    notes = adapters.install("claude-code").adapters[0]["notes"]
    assert len(notes) == 1 and "--approve" in notes[0] and ".claude/settings.local.json" in notes[0]
    (trust,) = adapters.install("claude-code", approve=True).adapters[0]["notes"]
    assert "trust dialog" in trust  # newer versions read the approval only in a trusted folder


def test_user_scope_writes_under_home_only(adapters, tree, put) -> None:
    put(adapters.home, {".claude.json": '{"numStartups": 3, "projects": {"/x": {}}}'})
    project = tree(adapters.project)
    installed = adapters.round_trip("claude-code", scope="user")
    assert sorted(k for k, v in installed.items() if v is not None) == [
        ".claude.json",
        ".claude/CLAUDE.md",
        ".claude/settings.json",
    ]
    assert json.loads(installed[".claude.json"])["mcpServers"]["mem"]["command"] == "mem"
    assert tree(adapters.project) == project


@pytest.mark.parametrize("broken", [".claude/settings.json", ".mcp.json"])
def test_an_invalid_json_file_is_refused_and_nothing_changes(adapters, tree, put, broken: str) -> None:
    put(adapters.project, {"CLAUDE.md": CLAUDE_MD, broken: '{"hooks": {,}}'})
    before = tree(adapters.project)
    with pytest.raises(MemError) as info:
        adapters.install("claude-code")
    assert info.value.message.startswith(f"{broken} is not valid JSON: ")
    assert tree(adapters.project) == before


def test_a_dry_run_changes_nothing_and_gives_the_diff(adapters, tree, put) -> None:
    put(adapters.project, {"CLAUDE.md": CLAUDE_MD})
    before = tree(adapters.project)
    result = adapters.install("claude-code", dry_run=True)
    assert tree(adapters.project) == before
    assert result.dry_run and [f["path"] for f in result.files] == ["CLAUDE.md", ".claude/settings.json", ".mcp.json"]
    assert "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n" in result.diff
    assert "--- /dev/null\n+++ b/.mcp.json\n" in result.diff
    assert f"+{BEGIN}\n" in result.diff
