"""What plugins add to the command line: each reward signal's own
``--<name>`` option (fast path and typer), and the commands of
``mem_register_commands(app)``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, tree_bytes

SIGNAL_PLUGIN = """
from mem_core import hookimpl
from mem_core.plugin import RewardSignal
from mem_core.js.numbers import clamp01, js_to_number


class ReviewSignal(RewardSignal):
    name = "review"
    weight = 0.4
    help = "Code review score in [0,1] (reward signal, weight 0.4)"

    def parse(self, raw):
        return js_to_number(raw)

    def value(self, recorded):
        return clamp01(js_to_number(recorded))


@hookimpl
def mem_register_reward_signals():
    return [ReviewSignal]
"""

COMMAND_PLUGIN = '''
from mem_core import hookimpl


@hookimpl
def mem_register_commands(app):
    @app.command()
    def hello(name: str = "world") -> None:
        """Say hello: a plugin's command."""
        print(f"hello {name}")
'''

RAISING_PLUGIN = '''
from mem_core import hookimpl


@hookimpl
def mem_register_commands(app):
    @app.command()
    def boom() -> None:
        """Never added."""

    raise RuntimeError("kaput")
'''

TAKEN_NAME_PLUGIN = '''
from mem_core import hookimpl


@hookimpl
def mem_register_commands(app):
    @app.command()
    def recall() -> None:
        """A second recall."""
        print("not the real recall")
'''

NO_ARGUMENT_PLUGIN = """
from mem_core import hookimpl


@hookimpl
def mem_register_commands():
    print("called without arguments")
"""


def plugin(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return str(path)


@pytest.fixture
def review(tmp_path: Path) -> dict[str, str]:
    return {"MEM_PLUGINS": plugin(tmp_path, "review", SIGNAL_PLUGIN)}


# -- a plugin's reward signal has its own option ----------------------------------------


def test_reinforce_takes_a_plugin_signal_by_its_own_option(mem, project: Path, now: str, review) -> None:
    run = mem("reinforce", "--pattern", "p", "--review", "0.8", "--json", cwd=project, env=review)
    assert run.code == 0, run.err
    assert json.loads(run.out)["reward"] == pytest.approx(0.8)
    other = project.parent / "other"
    other.mkdir()
    again = mem("reinforce", "--pattern", "p", "--signal", "review=0.8", "--json", cwd=other, env=review)
    assert again.out == run.out
    assert tree_bytes(other) == tree_bytes(project)


def test_weights_are_renormalised_over_the_signals_given(mem, project: Path, now: str, review) -> None:
    run = mem("reinforce", "--review=0.2", "--pattern", "p", "--eval", "1", "--json", cwd=project, env=review)
    assert run.code == 0, run.err
    assert json.loads(run.out)["reward"] == pytest.approx((0.5 * 1 + 0.4 * 0.2) / 0.9)


def test_write_records_a_plugin_signal_given_by_its_own_option(mem, project: Path, now: str, review) -> None:
    run = mem("--review", "0.5", "write", "--agent", "a", "--ci", "pass", "--json", cwd=project, env=review)
    assert run.code == 0, run.err
    assert json.loads(run.out)["written"]["signals"] == {"ci": "pass", "review": 0.5}


def test_the_option_exists_only_while_the_signal_is_registered(mem, project: Path, review) -> None:
    run = mem("reinforce", "--pattern", "p", "--review", "0.8", cwd=project)
    assert (run.code, run.err) == (1, "error: unknown option '--review'\n")
    disabled = {**review, "MEM_DISABLE_PLUGINS": "review"}
    assert mem("reinforce", "--pattern", "p", "--review", "0.8", cwd=project, env=disabled).code == 1
    assert tree_bytes(project) == {}


def test_usage_errors_know_the_plugin_signal_options(mem, project: Path, review) -> None:
    run = mem("reinforce", "--pattern", "p", "--reviw", "0.8", cwd=project, env=review)
    assert (run.code, run.err) == (1, "error: unknown option '--reviw'\n(Did you mean --review?)\n")
    run = mem("write", "--agent", "a", "--review", cwd=project, env=review)
    assert (run.code, run.err) == (1, "error: option '--review <value>' argument missing\n")
    assert tree_bytes(project) == {}


def test_help_shows_the_plugin_signal_with_its_help_text(mem, review) -> None:
    for action in ("reinforce", "write"):
        run = mem(action, "--help", env=review)
        assert run.code == 0
        assert "--review VALUE" in run.out and "Code review score in [0,1]" in run.out
    assert "--review" not in mem("recall", "--help", env=review).out


def test_the_typer_commands_take_the_plugin_signal_too(project: Path, now: str, monkeypatch, review) -> None:
    from typer.testing import CliRunner

    from mem_cli.app import make_app
    from mem_core.kernel import Kernel

    monkeypatch.setenv("MEM_PLUGINS", review["MEM_PLUGINS"])
    app = make_app(Kernel())
    result = CliRunner().invoke(app, ["reinforce", "--pattern", "p", "--review", "0.8", "-d", str(project), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["reward"] == pytest.approx(0.8)


def test_built_in_options_never_build_the_plugin_manager_on_the_fast_path(mem, project: Path, monkeypatch) -> None:
    import mem_cli.main

    def fail(*args, **kwargs):
        raise AssertionError("the plugin signals were looked up")

    monkeypatch.setattr(mem_cli.main, "_with_plugin_signals", fail)
    assert mem("write", "--agent", "a", "--eval", "1", "--signal", "ci=pass", cwd=project).code == 0
    assert mem("reinforce", "--pattern", "p", "--accept", "yes", cwd=project).code == 0


def test_the_five_actions_never_import_typer(tmp_path: Path, review) -> None:
    script = (
        "import sys\n"
        "from mem_cli.main import main\n"
        "codes = [int(main(['write', '--agent', 'a', '--review', '1', '-d', sys.argv[1]])),\n"
        "         int(main(['recall', 'a', '-d', sys.argv[1]]))]\n"
        "print(codes, 'typer' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "p")],
        env={"PYTHONPATH": str(REPO), "MEM_PLUGINS": review["MEM_PLUGINS"], "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.stdout.splitlines()[-1] == "[0, 0] False", proc.stderr


# -- mem_register_commands(app) -----------------------------------------------------------


def test_a_plugin_command_is_reachable_and_listed(mem_process, tmp_path: Path) -> None:
    env = {"MEM_PLUGINS": plugin(tmp_path, "greeter", COMMAND_PLUGIN)}
    run = mem_process("hello", "--name", "you", env=env)
    assert (run.code, run.out, run.err) == (0, "hello you\n", "")
    listing = mem_process("--help", env=env)
    assert listing.code == 0 and "hello" in listing.out and "Say hello: a plugin's command." in listing.out
    run = mem_process("nope", env=env)
    assert run.err == (
        "mem: unknown action 'nope' — expected recall | write | reinforce | observe | outcomes | "
        "remember | memories | forget | verify | context | plugins | mcp | init | brief | hook | config | adapters | minds | scores | promotions | doctor | archive | human | portfolio | serve | hello\n"
    )


def test_a_raising_commands_hook_breaks_only_its_plugin(mem, project: Path, tmp_path: Path) -> None:
    env = {
        "MEM_PLUGINS": ",".join([plugin(tmp_path, "boom", RAISING_PLUGIN), plugin(tmp_path, "greeter", COMMAND_PLUGIN)])
    }
    assert mem("hello", env=env).out == "hello world\n"
    run = mem("boom", env=env)
    assert run.code == 1
    assert run.err.splitlines() == [
        "mem: plugin 'boom' failed in mem_register_commands: kaput",
        "mem: unknown action 'boom' — expected recall | write | reinforce | observe | outcomes | "
        "remember | memories | forget | verify | context | plugins | mcp | init | brief | hook | config | adapters | minds | scores | promotions | doctor | archive | human | portfolio | serve | hello",
        "(Did you mean hook?)",
    ]
    assert "boom" not in mem("--help", env=env).out
    assert mem("plugins", env=env).code == 0
    assert mem("memories", "-d", str(project), env=env).code == 0
    assert mem("write", "--agent", "a", "-d", str(project), env=env).code == 0
    assert mem("reinforce", "--help", env=env).code == 0


def test_a_plugin_cannot_take_a_built_in_command_name(mem, project: Path, tmp_path: Path) -> None:
    env = {"MEM_PLUGINS": plugin(tmp_path, "impostor", TAKEN_NAME_PLUGIN)}
    from mem_cli.app import CommandLine
    from mem_core.kernel import Kernel

    with pytest.MonkeyPatch.context() as m:
        m.setenv("MEM_PLUGINS", env["MEM_PLUGINS"])
        cli = CommandLine(Kernel())
    assert cli.broken == [
        "plugin 'impostor' failed in mem_register_commands: it adds a command whose name is already taken"
    ]
    assert cli.commands().count("recall") == 1
    run = mem("recall", "anything", "-d", str(project), env=env)
    assert run.code == 0 and "not the real recall" not in run.out


def test_the_hook_is_called_through_the_relay_with_keyword_arguments(mem, tmp_path: Path) -> None:
    # an implementation names only the arguments it takes (here: none)
    env = {"MEM_PLUGINS": plugin(tmp_path, "quiet", NO_ARGUMENT_PLUGIN)}
    run = mem("--help", env=env)
    assert run.code == 0 and run.out.startswith("called without arguments\n")


def test_the_commands_hook_is_specified() -> None:
    from mem_core import hookspecs

    doc = hookspecs.mem_register_commands.__doc__ or ""
    assert ":param app:" in doc and ".. versionadded:: 0.2" in doc
    import inspect

    assert list(inspect.signature(hookspecs.mem_register_commands).parameters) == ["app", "context"]
