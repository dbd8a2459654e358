"""``mem adapters list|install|remove|status`` on the command line."""

from __future__ import annotations

import json


def test_adapters_is_a_command_with_four_subcommands(mem) -> None:
    run = mem("adapters", "--help")
    assert run.code == 0
    for name in ("list", "install", "remove", "status"):
        assert name in run.out
    assert "adapters" in mem("--help").out


def test_list_json(mem, project, home) -> None:
    run = mem("adapters", "list", "--json", "-d", str(project))
    assert run.code == 0, run.err
    report = json.loads(run.out)
    assert report["project"] == str(project) and report["scope"] == "project"
    names = [row["name"] for row in report["adapters"]]
    assert names == ["claude-code", "codex-cli", "gemini-cli", "cursor", "opencode", "aider", "antigravity"]
    assert set(report["adapters"][0]) == {"name", "title", "detected", "installed", "files"}


def test_a_dry_run_prints_the_diff_and_writes_nothing(mem, project, home, tree) -> None:
    run = mem("adapters", "install", "claude-code", "--dry-run", "-d", str(project))
    assert run.code == 0, run.err
    assert run.out.startswith("--- /dev/null\n+++ b/CLAUDE.md\n@@ ")
    assert "+<!-- mem:begin -->\n" in run.out
    assert "mem adapters install: claude-code: would change 5 file(s)\n" in run.out
    assert tree(project) == {}
    as_json = json.loads(mem("adapters", "install", "claude-code", "--dry-run", "--json", "-d", str(project)).out)
    assert as_json["dryRun"] is True and as_json["diff"].startswith("--- /dev/null\n")
    assert tree(project) == {}


def test_install_status_remove(mem, project, home, tree) -> None:
    run = mem("adapters", "install", "codex-cli", "gemini-cli", "-d", str(project))
    assert run.code == 0, run.err
    assert run.out.splitlines()[:2] == [
        "mem adapters install: codex-cli, gemini-cli: changed 7 file(s)",
        "  created AGENTS.md",
    ]
    assert "codex-cli: Codex reads .codex/config.toml" in run.out
    assert "gemini-cli: Gemini CLI runs a project's MCP servers" in run.out
    again = mem("adapters", "install", "codex-cli", "gemini-cli", "-d", str(project))
    assert again.out == "mem adapters install: codex-cli, gemini-cli: nothing to change\n" + "".join(
        line + "\n"
        for line in run.out.splitlines()
        if line.startswith("  codex-cli:") or line.startswith("  gemini-cli:")
    )
    status = mem("adapters", "status", "-d", str(project))
    assert status.out.startswith("codex-cli (Codex CLI): installed: yes\n  files: AGENTS.md, .codex/config.toml")
    rows = json.loads(mem("adapters", "status", "--json", "-d", str(project)).out)["adapters"]
    assert [row["name"] for row in rows] == ["codex-cli", "gemini-cli"]
    removed = mem("adapters", "remove", "codex-cli", "gemini-cli", "--json", "-d", str(project))
    assert removed.code == 0
    assert {row["change"] for row in json.loads(removed.out)["files"]} == {"deleted"}
    assert tree(project) == {}
    assert mem("adapters", "status", "-d", str(project)).out.startswith("mem adapters: none installed")


def test_user_scope_from_the_command_line_uses_home(mem, project, home, tree) -> None:
    run = mem("adapters", "install", "gemini-cli", "--scope", "user", "-d", str(project))
    assert run.code == 0, run.err
    assert (home / ".gemini" / "settings.json").is_file() and tree(project) == {}
    assert mem("adapters", "remove", "gemini-cli", "--scope", "user", "-d", str(project)).code == 0
    assert tree(home) == {}


def test_approve_from_the_command_line(mem, project, home) -> None:
    assert mem("adapters", "install", "claude-code", "--approve", "-d", str(project)).code == 0
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local == {"enabledMcpjsonServers": ["mem"]}


def test_errors_are_one_line_exit_1_and_change_nothing(mem, project, home, tree, put) -> None:
    put(project, {".mcp.json": "{,"})
    before = tree(project)
    run = mem("adapters", "install", "claude-code", "-d", str(project))
    assert (run.code, run.out) == (1, "")
    assert run.err.startswith("mem adapters: .mcp.json is not valid JSON: ") and run.err.count("\n") == 1
    run = mem("adapters", "install", "claude-code", "--json", "-d", str(project))
    assert run.code == 1 and list(json.loads(run.out)) == ["error"]
    assert tree(project) == before
    run = mem("adapters", "install", "emacs", "-d", str(project))
    assert run.code == 1 and run.err.startswith("mem adapters: unknown adapter 'emacs' (expected claude-code")
    run = mem("adapters", "remove", "aider", "--scope", "user", "-d", str(project))
    assert run.code == 1 and run.err == "mem adapters: aider has no user-level files; install it with --scope project\n"
    assert mem("adapters", "install", "-d", str(project)).code == 1
    assert tree(project) == before
