"""The typer application declares the five actions for ``--help`` and for
embedding; run through it, each action gives exactly what ``mem`` gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from mem_cli.app import make_app, run_typer
from mem_cli.commands import ACTIONS, COMMANDS
from mem_cli.compat import OPTIONS, Parsed, declared, parse
from tests.conftest import tree_bytes

CASES = [
    ["write", "--agent", "forge", "--task", "t", "--ci", "pass", "--eval", "-1", "--accept", "no"],
    ["write", "--json", "--agent", "a", "--signal", "ci=0.5", "--limit", "3", "stray"],
    ["write", "--outcome", "nope", "--agent", "a"],
    ["recall", "cache", "values", "--limit", "3"],
    ["recall", "--json", "cache", "--ranking", "evidence", "--context-scope", "work"],
    ["recall", "x", "--limit", "-2"],
    ["reinforce", "--pattern", "Cache shortcut", "--accept", "yes", "--ci", "pass", "--evidence", "a,b"],
    ["reinforce", "--json", "--pattern", "p", "--eval", "-3", "--signal", "accept=no"],
    ["reinforce", "--eval", "0.5"],
    ["outcomes"],
    ["outcomes", "--json"],
    ["observe", "--input", "missing.json"],
]


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a))
def test_through_typer_equals_through_mem(mem, bmad_project: Path, tmp_path: Path, now: str, argv) -> None:
    import shutil

    other = tmp_path / "other"
    shutil.copytree(bmad_project, other)
    expected = mem(*argv, "-d", str(bmad_project))
    parsed = parse([*argv, "-d", str(other)])
    assert parsed.action is not None
    got = _capture(mem, lambda: run_typer(_typer_args(parsed), parsed.action, parsed.json))
    assert (got.code, got.out) == (expected.code, expected.out)
    assert got.err == expected.err.replace(str(bmad_project), str(other))
    assert tree_bytes(other) == tree_bytes(bmad_project)


def _typer_args(parsed: Parsed) -> list[str]:
    """The arguments typer takes for what the compat parser found (the
    options the action does not use are left out)."""
    assert parsed.action is not None
    args = [parsed.action]
    command = declared(parsed.action)
    assert command is not None
    for option in command.options:
        value = parsed.signals.get(option.signal) if option.signal else parsed.values.get(option.dest)
        if value is None:
            continue
        if value is True:
            args.append(option.long)
        else:
            for item in value if isinstance(value, list) else [value]:
                args.extend([option.long, item])
    if parsed.action == "recall" and parsed.words:
        args.extend(["--", *parsed.words])
    return args


def _capture(mem, call):
    """Run ``call`` with stdout/stderr captured like the ``mem`` fixture does."""
    import io
    import sys

    from tests.conftest import Run

    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out_text, err_text
    try:
        code = call()
    finally:
        sys.stdout, sys.stderr = saved
    out_text.flush()
    err_text.flush()
    run = Run(int(code), out.getvalue(), err.getvalue())
    out_text.detach()
    err_text.detach()
    return run


def test_the_typer_app_has_exactly_the_listed_commands() -> None:
    import typer

    names = list(typer.main.get_command(make_app()).commands)  # type: ignore[attr-defined]
    # typer lists plain commands before groups (config, adapters): the order of
    # a command appended to the table (doctor) differs, the set does not
    assert sorted(names) == sorted(COMMANDS)
    assert names[:5] == list(COMMANDS[:5])


@pytest.mark.parametrize("action", ACTIONS)
def test_each_action_declares_in_typer_the_options_it_uses(action: str) -> None:
    import typer

    command = typer.main.get_command(make_app()).commands[action]  # type: ignore[attr-defined]
    in_typer = {opt for param in command.params for opt in param.opts if opt.startswith("-")}
    declaration = declared(action)
    assert declaration is not None
    spelled = {name for name, option in OPTIONS.items() if option in declaration.options}
    assert in_typer - {"--help"} == spelled


def test_a_group_passes_its_options_to_its_subcommand() -> None:
    """A subcommand's handler sees the group's options (``mem serve --store
    x keys list``) in ``values["group"]``, and its own beside them."""
    import typer

    from mem_cli.app import CommandLine
    from mem_cli.declare import Argument, Command, Option

    seen: list[dict[str, object]] = []
    show = Command("show", "Show.", run=lambda values, kernel, settings: seen.append(dict(values)),
                   arguments=(Argument("what", "What.", metavar="WHAT"),))  # fmt: skip
    group = Command("grp", "Group.", run=lambda values, kernel, settings: None,
                    options=(Option("level", "--level", "Level.", metavar="N", kind=int, default=1),),
                    subcommands=(show,))  # fmt: skip
    cli = CommandLine(None, only="scores")
    cli.add(group)
    command = typer.main.get_command(cli.app)
    command.main(["grp", "--level", "3", "show", "it"], prog_name="mem", standalone_mode=False)
    command.main(["grp", "show", "that"], prog_name="mem", standalone_mode=False)
    assert seen == [{"what": "it", "group": {"level": 3}}, {"what": "that", "group": {"level": 1}}]


def test_the_list_of_commands_is_the_one_typer_makes_and_builds_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``mem --help`` lists each built-in command from its declaration
    without having typer build it: the heading and the line are the ones
    click makes from the command typer builds."""
    import typer

    from mem_cli.app import FIRST_SENTENCE, OTHER_GROUP, CommandLine

    cli = CommandLine(None)
    group = typer.main.get_command(cli.app)
    group.main(["--help"], prog_name="mem", standalone_mode=False)
    assert "Agent actions:\n  recall " in capsys.readouterr().out
    assert group.commands._built == {}  # type: ignore[attr-defined]
    for name in COMMANDS:
        built = group.commands[name]  # type: ignore[attr-defined]
        assert cli.listed(name) == (
            getattr(built, "rich_help_panel", None) or OTHER_GROUP,
            built.get_short_help_str(FIRST_SENTENCE),
        ), name
