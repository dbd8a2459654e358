"""``mem --help`` without typer (mem_cli.helptext): typer's own bytes at every
width, the commands' help texts as typer has them, and typer whenever a
plugin could add a command."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mem_cli import helptext
from mem_cli.table import COMMANDS

REPO = Path(__file__).resolve().parents[2]


def typer_help(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> tuple[int, str]:
    from mem_cli.app import run_typer

    out = io.BytesIO()
    text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    with monkeypatch.context() as m:
        if columns is None:
            m.delenv("COLUMNS", raising=False)
        else:
            m.setenv("COLUMNS", columns)
        m.setattr(sys, "stdout", text)
        code = run_typer(["--help"], "mem", False)
    return code, out.getvalue().decode("utf-8")


@pytest.mark.parametrize("columns", [None, "1", "40", *(str(n) for n in range(51, 82)), "120", "wide"])
def test_the_help_is_typers_at_every_width(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    code, expected = typer_help(monkeypatch, columns)
    with monkeypatch.context() as m:
        if columns is None:
            m.delenv("COLUMNS", raising=False)
        else:
            m.setenv("COLUMNS", columns)
        width = helptext.help_width()
    assert code == 0 and helptext.top_help(width) + "\n" == expected


def test_the_table_holds_the_commands_help_texts() -> None:
    from typer.main import get_command

    from mem_cli.app import CommandLine

    group = get_command(CommandLine(None).app)
    assert list(helptext.SUMMARIES) == list(COMMANDS) == list(group.commands)  # type: ignore[attr-defined]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert (helptext.SUMMARIES[name], command.short_help, command.deprecated) == (first, None, False), name
    assert group.help == helptext.HELP


def _mem(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    probe = (
        "import sys, runpy\nsys.argv = ['mem', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('mem_cli', run_name='__main__')\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print('TYPER', 'typer' in sys.modules, file=sys.stderr)\n"
    )
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    full.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=full, timeout=120)


def test_the_help_into_a_pipe_needs_no_typer(tmp_path: Path) -> None:
    for args in (["--help"], ["-h"]):
        run = _mem(args, COLUMNS="70")
        assert run.stdout == helptext.top_help(68) + "\n" and "TYPER False" in run.stderr, run.stderr
    # what the table does not render is typer's: a command's help, other options with it
    for args in (["remember", "--help"], ["--help", "--json"], ["--version", "--help"]):
        assert "TYPER True" in _mem(args).stderr, args


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
