"""``mem --help``: typer's help made from the commands' declarations, every
command listed once under the group its declaration names; plugins'
commands under "Commands"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mem_cli.commands import COMMANDS
from mem_cli.compat import declared

REPO = Path(__file__).resolve().parents[2]


def _mem(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    probe = (
        "import sys, runpy\nsys.argv = ['mem', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('mem_cli', run_name='__main__')\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print('TYPER', 'typer' in sys.modules, file=sys.stderr)\n"
    )
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    full.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=full, timeout=120)


def test_the_help_lists_each_command_under_its_group() -> None:
    run = _mem(["--help"], COLUMNS="200")
    assert run.returncode == 0, run.stderr
    sections: dict[str, list[str]] = {}
    heading = ""
    for line in run.stdout.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            heading = line[:-1]
        elif line.startswith("  ") and not line.startswith("   ") and heading not in ("", "Options"):
            sections.setdefault(heading, []).append(line.split()[0])
    commands = run.stdout[run.stdout.index("Agent actions:") :]
    assert "..." not in commands  # every summary is a whole sentence, wrapped rather than cut
    listed = [name for names in sections.values() for name in names]
    assert sorted(listed) == sorted(COMMANDS)
    for name in COMMANDS:
        command = declared(name)
        if command is not None:
            assert name in sections[command.group], name
    assert sections["Agent actions"] == ["recall", "write", "reinforce", "observe", "outcomes"]


def test_a_plugin_command_is_listed_by_typer(tmp_path: Path) -> None:
    plugin = tmp_path / "mem_hello.py"
    plugin.write_text(
        "import typer\nfrom mem_core.plugin import hookimpl\n\n"
        "@hookimpl\ndef mem_register_commands(app, context):\n"
        "    @app.command()\n    def hello() -> None:\n        'Say hello.'\n",
        encoding="utf-8",
    )
    run = _mem(["--help"], MEM_PLUGINS=str(plugin))
    assert "TYPER True" in run.stderr and "  hello " in run.stdout, run.stderr
