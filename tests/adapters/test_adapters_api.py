"""Adapters together: all seven at once, shared files, detection, symbolic links."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mem_core.adapters.edits import BEGIN
from mem_core.errors import MemError

NAMES = ("claude-code", "codex-cli", "gemini-cli", "cursor", "opencode", "aider", "antigravity")

OWN_FILES = {
    "CLAUDE.md": "# Claude\n\nUse the Makefile.\n",
    "AGENTS.md": "# Agents\n\n1. Small commits.\n2. Tests first.",
    "GEMINI.md": "Be concise.\n",
    "CONVENTIONS.md": "# Conventions\n",
    ".claude/settings.json": '{\n    "hooks": {\n        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n    }\n}\n',
    ".mcp.json": '{"mcpServers": {"db": {"command": "db-mcp"}}}\n',
    ".codex/config.toml": '# ours\nmodel = "o3"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n',
    ".gemini/settings.json": '{\n  "theme": "dark"\n}\n',
    ".cursor/mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n',
    "opencode.json": '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "a/b"\n}\n',
    ".aider.conf.yml": "model: sonnet\nread:\n  - docs/A.md\n",
    "src/app.py": "print('hi')\n",
}


@pytest.mark.parametrize("own", [False, True], ids=["fresh", "own-files"])
def test_all_seven_install_twice_and_remove_byte_for_byte(adapters, tree, put, own: bool) -> None:
    if own:
        put(adapters.project, OWN_FILES)
    before = tree(adapters.project)
    adapters.install(*NAMES)
    installed = tree(adapters.project)
    assert adapters.install(*NAMES).files == []
    assert tree(adapters.project) == installed
    assert {name: row["installed"] for name, row in adapters.status().items()} == dict.fromkeys(NAMES, "yes")
    agents = installed["AGENTS.md"].decode()
    assert agents.count(BEGIN) == 1, "one block for Codex CLI, OpenCode and Antigravity"
    adapters.remove(*NAMES)
    assert tree(adapters.project) == before
    assert adapters.status() == {}


def test_removing_one_adapter_keeps_the_block_another_still_uses(adapters, tree, put) -> None:
    put(adapters.project, {"AGENTS.md": OWN_FILES["AGENTS.md"]})
    before = tree(adapters.project)
    adapters.install("codex-cli", "opencode")
    result = adapters.remove("codex-cli")
    assert BEGIN in adapters.read("AGENTS.md")
    assert "AGENTS.md" not in {row["path"] for row in result.files}
    assert adapters.status()["opencode"]["installed"] == "yes" and "codex-cli" not in adapters.status()
    adapters.remove("opencode")
    assert tree(adapters.project) == before


def test_removing_what_was_never_installed_changes_nothing(adapters, tree, put) -> None:
    put(adapters.project, OWN_FILES)
    before = tree(adapters.project)
    for name in NAMES:
        assert adapters.remove(name).files == []
    assert tree(adapters.project) == before


def test_an_invalid_file_stops_every_adapter_of_the_command(adapters, tree, put) -> None:
    put(adapters.project, {".cursor/mcp.json": "{oops"})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.cursor/mcp\.json is not valid JSON"):
        adapters.install("claude-code", "cursor")
    assert tree(adapters.project) == before, "not even the files of the adapter before it"


def test_unknown_names_and_scopes_are_refused(adapters) -> None:
    with pytest.raises(MemError, match=r"^unknown adapter 'vim' \(expected claude-code \| codex-cli"):
        adapters.install("claude-code", "vim")
    with pytest.raises(MemError, match=r"^unknown scope 'global' \(expected project \| user\)$"):
        adapters.install("claude-code", scope="global")
    with pytest.raises(MemError, match="^name at least one adapter"):
        adapters.install()


def test_detection_follows_config_dirs_and_programs(adapters, tmp_path: Path, monkeypatch, put) -> None:
    from mem_core.api.adapters import list_adapters

    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))

    def detected() -> dict[str, bool]:
        report = list_adapters(str(adapters.project), home=str(adapters.home), kernel=adapters.kernel)
        return {row["name"]: row["detected"] for row in report.rows}

    assert detected() == dict.fromkeys(NAMES, False)
    put(adapters.project, {".claude/x": "", ".aider.conf.yml": ""})
    put(adapters.home, {".codex/config.toml": ""})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gemini").write_text("#!/bin/sh\n")
    (bin_dir / "gemini").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    found = detected()
    assert {name for name, yes in found.items() if yes} == {"claude-code", "aider", "codex-cli", "gemini-cli"}


def test_list_shows_every_adapter_and_the_files_it_would_touch(adapters) -> None:
    from mem_core.api.adapters import list_adapters

    report = list_adapters(str(adapters.project), home=str(adapters.home), kernel=adapters.kernel).to_json()
    rows = {row["name"]: row for row in report["adapters"]}
    assert list(rows) == list(NAMES)
    assert rows["claude-code"]["files"] == ["CLAUDE.md", ".claude/settings.json", ".mcp.json"]
    assert rows["aider"]["files"] == ["CONVENTIONS.md", ".aider.conf.yml"]
    assert all(row["installed"] == "no" for row in rows.values())


def test_a_partly_removed_install_is_reported_as_such(adapters) -> None:
    adapters.install("gemini-cli")
    os.unlink(adapters.project / "GEMINI.md")
    row = adapters.status()["gemini-cli"]
    assert row["installed"] == "partly" and row["missing"] == ["GEMINI.md"]
    adapters.install("gemini-cli")
    assert adapters.status()["gemini-cli"]["installed"] == "yes"


def test_a_symbolic_link_is_edited_through_and_kept(adapters, tree) -> None:
    (adapters.project / "AGENTS.md").write_text("# Shared\n")
    os.symlink("AGENTS.md", adapters.project / "CLAUDE.md")
    before = tree(adapters.project)
    adapters.install("claude-code", "codex-cli")
    assert os.path.islink(adapters.project / "CLAUDE.md")
    assert adapters.read("AGENTS.md").count(BEGIN) == 1
    adapters.remove("claude-code", "codex-cli")
    assert tree(adapters.project) == before and os.path.islink(adapters.project / "CLAUDE.md")


def test_user_scope_leaves_the_project_alone_and_project_scope_the_home(adapters, tree) -> None:
    home, project = tree(adapters.home), tree(adapters.project)
    adapters.install(*(n for n in NAMES if n != "aider"), scope="user")
    assert tree(adapters.project) == project
    adapters.install(*NAMES)
    adapters.remove(*NAMES)
    adapters.remove(*(n for n in NAMES if n != "aider"), scope="user")
    assert tree(adapters.home) == home and tree(adapters.project) == project


def test_results_are_json_ready(adapters) -> None:
    result = adapters.install("cursor", dry_run=True).to_json()
    assert set(result) == {"action", "project", "scope", "dryRun", "adapters", "files", "diff"}
    assert result["dryRun"] is True and result["adapters"][0]["name"] == "cursor"
    json.dumps(result)
