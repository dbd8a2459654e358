"""What a newcomer reaches for first: help from ``mem`` alone and ``-h``
everywhere, shell completion, ``--`` ending options, "Did you mean" for
typos in any command, ``--limit 0`` answering with the count found, and
``-d`` on every command that reads a project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from mem_cli.app import make_app


def _all_commands() -> list[list[str]]:
    """Every command and subcommand of the typer app, as argv prefixes."""
    found: list[list[str]] = []

    def walk(command, path: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            found.append([*path, name])
            walk(sub, [*path, name])

    walk(typer.main.get_command(make_app()), [])
    return found


def test_mem_alone_and_h_show_the_help(mem_process) -> None:
    alone = mem_process()
    assert (alone.code, alone.err) == (0, "")
    assert alone.out.startswith("Usage: mem [OPTIONS] COMMAND [ARGS]...")
    assert "recall" in alone.out and "init" in alone.out
    for flag in ("-h", "--help"):
        run = mem_process(flag)
        assert (run.code, run.out, run.err) == (0, alone.out, "")


@pytest.mark.parametrize("argv", _all_commands(), ids=" ".join)
def test_h_works_on_every_command(mem, argv: list[str]) -> None:
    run = mem(*argv, "-h")
    assert run.code == 0, run.err
    assert run.out.startswith(f"Usage: mem {' '.join(argv)}")
    assert "-h, --help" in run.out


def test_shell_completion_is_typers(mem_process) -> None:
    # typer detects the shell from the process tree unless told not to (its own
    # testing switch): then `--show-completion bash` takes the shell named
    shown = mem_process("--show-completion", "bash", env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert shown.code == 0 and "_MEM_COMPLETE=complete_bash" in shown.out
    env = {"_MEM_COMPLETE": "complete_bash", "COMP_WORDS": "mem memo", "COMP_CWORD": "1"}
    assert mem_process(env=env).out.split() == ["memories"]
    env = {"_MEM_COMPLETE": "complete_bash", "COMP_WORDS": "mem recall --conte", "COMP_CWORD": "2"}
    assert mem_process(env=env).out.split() == ["--context-scope"]
    env = {"_MEM_COMPLETE": "complete_bash", "COMP_WORDS": "mem adapters ins", "COMP_CWORD": "2"}
    assert mem_process(env=env).out.split() == ["install"]


def test_install_completion_writes_the_shells_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "SHELL": "/bin/bash", "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", "--install-completion", "bash"],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert "_MEM_COMPLETE" in (home / ".bashrc").read_text() or any(home.rglob("mem*"))


def test_typos_get_a_did_you_mean(mem) -> None:
    run = mem("memries")
    assert run.code == 1
    assert run.err.splitlines()[-1] == "(Did you mean memories?)"
    run = mem("memories", "--serch", "x")
    assert (run.code, run.err) == (1, "mem memories: unknown option '--serch' (Did you mean --search?)\n")
    run = mem("adapters", "instal", "x")
    assert (run.code, run.err) == (1, "mem adapters: unknown command 'instal' (Did you mean install?)\n")
    run = mem("memories", "--serch", "x", "--json")
    assert json.loads(run.out) == {"error": "unknown option '--serch' (Did you mean --search?)"}
    # far from anything: no hint
    assert mem("memories", "--zzzzzzzz").err == "mem memories: unknown option '--zzzzzzzz'\n"
    assert mem("qqqqqqqq").err.count("\n") == 1


def test_double_dash_ends_options(mem, project: Path, now: str) -> None:
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Minus\n--flag and -5% are words here.\n")
    run = mem("recall", "-d", str(project), "--", "--flag")
    assert run.code == 0 and "Minus" in run.out, run.err
    run = mem("config", "-d", str(project), "--", "extra")
    assert run.code == 1 and "extra" in run.err  # a positional config does not take: not an option error
    assert "unknown option" not in run.err


def test_limit_zero_answers_with_the_count(mem, project: Path, now: str) -> None:
    for key in ("a", "b", "c"):
        assert mem("remember", "fact", key, f"content {key}", "-d", str(project)).code == 0
    run = mem("memories", "--limit", "0", "-d", str(project))
    assert run.out == "mem memories: 0 of 3 memories shown in mind default (project store)\n"
    run = mem("memories", "--limit", "2", "-d", str(project))
    assert run.out.splitlines()[0] == "mem memories: 2 of 3 memories shown in mind default (project store)"
    run = mem("memories", "--limit", "0", "--search", "content", "-d", str(project))
    assert run.out.splitlines()[0] == "mem memories: 0 of 3 match(es) shown in mind default (project store)"
    assert json.loads(mem("memories", "--limit", "0", "--json", "-d", str(project)).out) == {
        "count": 0,
        "total": 3,
        "memories": [],
    }
    # a limit that keeps them all: as before
    assert mem("memories", "--limit", "5", "-d", str(project)).out.splitlines()[0] == (
        "mem memories: 3 memories in mind default (project store)"
    )
    assert "total" not in json.loads(mem("memories", "--json", "-d", str(project)).out)


def test_plugins_takes_the_projects_config(mem, tmp_path: Path) -> None:
    project = tmp_path / "team"
    (project / ".bmad/memory").mkdir(parents=True)
    (project / "team_ranker.py").write_text(
        "from mem_core.plugin import Ranker, Scored, hookimpl\n"
        "class R(Ranker):\n"
        "    name = 'teamrank'\n"
        "    def rank(self, query, candidates, context):\n"
        "        return [Scored(c, 1.0) for c in candidates]\n"
        "@hookimpl\n"
        "def mem_register_rankers():\n"
        "    return [R]\n"
    )
    (project / ".bmad/memory/mem.toml").write_text('plugins = ["team_ranker.py"]\n')
    elsewhere = mem("plugins", "--json", cwd=tmp_path)
    assert "team_ranker" not in elsewhere.out
    run = mem("plugins", "-d", str(project), "--json", cwd=tmp_path)
    assert run.code == 0, run.err
    rows = {row["name"]: row for row in json.loads(run.out)["plugins"]}
    assert rows["team_ranker"]["provides"] == [{"kind": "ranker", "name": "teamrank"}]


def test_every_command_that_reads_a_project_takes_d() -> None:
    # hook reads the project from the assistant's JSON (its cwd); mcp, like the rest, takes -d;
    # human login reads no project: it keeps a server session in the user's config
    without = []
    for argv in _all_commands():
        command = typer.main.get_command(make_app())
        for name in argv:
            command = command.commands[name]  # type: ignore[attr-defined]
        if getattr(command, "commands", None) or argv[0] == "hook" or argv == ["human", "login"]:
            continue
        opts = {opt for param in command.params for opt in param.opts}
        if "-d" not in opts:
            without.append(" ".join(argv))
    assert without == []


def test_plugins_d_shows_a_projects_broken_command_plugin(mem, tmp_path: Path) -> None:
    project = tmp_path / "team"
    (project / ".bmad/memory").mkdir(parents=True)
    (project / "team_cmd.py").write_text(
        "from mem_core.plugin import hookimpl\n@hookimpl\ndef mem_register_commands(app):\n    raise RuntimeError('kaput')\n"
    )
    (project / ".bmad/memory/mem.toml").write_text('plugins = ["team_cmd.py"]\n')
    run = mem("plugins", "-d", str(project), "--json", cwd=tmp_path)
    assert run.code == 0, run.err
    rows = {row["name"]: row for row in json.loads(run.out)["plugins"]}
    assert "kaput" in rows["team_cmd"]["error"]
