"""The command the adapters write runs ``mem``: with ``mem`` in a virtual
environment that is not on ``PATH``, install writes its absolute path;
``mem`` on ``PATH`` and the same installation writes ``mem``; ``--command``
chooses; ``status`` and ``doctor`` run the command and report one that does
not run. Real processes, the real ``mem`` console script of this Python."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import tomlkit

from mem_core.adapters.command import installed_script

SCRIPT = installed_script()
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="needs the mem console script of this Python (pip install -e .)")
#: a PATH without this installation's scripts (git, sh … only)
BARE_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if os.path.isdir(p))


def run(program: str, *args: str, path: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k not in ("PATH", "HOME")}
    env.update(PATH=path, HOME=str(home), MEM_NOW="2026-11-05T12:00:00.000Z")
    return subprocess.run([program, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def test_a_mem_not_on_path_writes_its_absolute_path(project: Path, home: Path, tmp_path: Path) -> None:
    assert SCRIPT is not None
    if any(os.path.exists(os.path.join(d, "mem")) for d in BARE_PATH.split(os.pathsep)):
        pytest.skip("a mem is installed system-wide")
    done = run(
        SCRIPT, "init", "--adapters", "claude-code,codex-cli,aider", "-d", str(project), path=BARE_PATH, home=home
    )
    assert done.returncode == 0, done.stderr
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["mem"]
    assert (server["command"], server["args"]) == (SCRIPT, ["mcp"])
    hooks = json.loads((project / ".claude/settings.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == f"{SCRIPT} hook session-start --assistant claude-code"
    codex = tomlkit.parse((project / ".codex/config.toml").read_text())["mcp_servers"]["mem"]
    assert (codex["command"], codex["args"], codex["required"]) == (SCRIPT, ["mcp"], True)

    doctor = run(SCRIPT, "doctor", "-d", str(project), path=BARE_PATH, home=home)
    assert doctor.returncode == 0, doctor.stdout
    assert "ok    adapter claude-code: installed" in doctor.stdout
    status = run(SCRIPT, "adapters", "status", "-d", str(project), path=BARE_PATH, home=home)
    assert f"  command: {SCRIPT} (runs)" in status.stdout
    # the assistant starts the hook with its own PATH, which has no mem: the absolute path still runs
    hook = subprocess.run(
        hooks["SessionStart"][0]["hooks"][0]["command"],
        shell=True,
        input=json.dumps({"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}),
        env={"PATH": "/nonexistent", "HOME": str(home)},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert hook.returncode == 0 and hook.stdout, hook.stderr


def test_mem_on_path_and_the_same_installation_writes_mem(project: Path, home: Path) -> None:
    assert SCRIPT is not None
    path = os.path.dirname(SCRIPT) + os.pathsep + BARE_PATH
    done = run("mem", "adapters", "install", "cursor", "-d", str(project), path=path, home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads((project / ".cursor/mcp.json").read_text())["mcpServers"]["mem"]["command"] == "mem"


def test_a_command_that_does_not_run_is_an_error_with_its_fix(project: Path, home: Path, tmp_path: Path) -> None:
    assert SCRIPT is not None
    gone = str(tmp_path / "removed-venv/bin/mem")
    done = run(
        SCRIPT, "adapters", "install", "claude-code", "--command", gone, "-d", str(project), path=BARE_PATH, home=home
    )
    assert done.returncode == 0, done.stderr
    status = run(SCRIPT, "adapters", "status", "-d", str(project), path=BARE_PATH, home=home)
    assert "claude-code (Claude Code): installed: yes\n" in status.stdout  # the files are all there
    assert (
        f"  error: `{gone} --version` does not run (not found): run `mem adapters install claude-code`" in status.stdout
    )
    rows = json.loads(run(SCRIPT, "adapters", "status", "--json", "-d", str(project), path=BARE_PATH, home=home).stdout)
    assert rows["adapters"][0]["command"]["problem"] == "not found"
    doctor = run(SCRIPT, "doctor", "-d", str(project), path=BARE_PATH, home=home)
    assert doctor.returncode == 1
    assert f"error adapter claude-code: its command `{gone} --version` does not run (not found)" in doctor.stdout
    # not mem at all
    other = tmp_path / "other"
    other.write_text("#!/bin/sh\necho hello\n")
    other.chmod(0o755)
    run(
        SCRIPT,
        "adapters",
        "install",
        "claude-code",
        "--command",
        str(other),
        "-d",
        str(project),
        path=BARE_PATH,
        home=home,
    )
    status = run(SCRIPT, "adapters", "status", "-d", str(project), path=BARE_PATH, home=home)
    assert f"`{other} --version` does not run (it printed 'hello', not mem's version)" in status.stdout
    # installing again with the running mem repairs it, in place
    run(SCRIPT, "adapters", "install", "claude-code", "-d", str(project), path=BARE_PATH, home=home)
    assert run(SCRIPT, "doctor", "-d", str(project), path=BARE_PATH, home=home).returncode == 0
    assert len(json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"]) == 1
    removed = run(SCRIPT, "adapters", "remove", "claude-code", "-d", str(project), path=BARE_PATH, home=home)
    assert removed.returncode == 0 and not (project / ".mcp.json").exists()


def test_a_bad_command_option_changes_nothing(project: Path, home: Path) -> None:
    assert SCRIPT is not None
    done = run(
        SCRIPT, "adapters", "install", "cursor", "--command", "'unclosed", "-d", str(project), path=BARE_PATH, home=home
    )
    assert (done.returncode, done.stderr) == (1, "mem adapters: --command: No closing quotation\n")
    assert list(project.iterdir()) == []
