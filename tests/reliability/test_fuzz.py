"""Argument fuzzing over every command (issue 10 item 6): hypothesis draws
argument lists from each command's options, hostile values (control
characters, newlines, numbers JavaScript and Python read differently, a lone
``-``/``--``) and words. Whatever the arguments, ``mem`` prints no traceback,
exits 0 or 1, an error is one line, and under ``--json`` the output parses.

``mcp`` is left out: it serves until its client goes away."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_cli.commands import ACTIONS, COMMANDS
from mem_cli.compat import OPTIONS, parse
from mem_cli.main import main

pytestmark = pytest.mark.reliability

FUZZED = tuple(c for c in COMMANDS if c != "mcp")
OTHER_OPTIONS = (
    "--fix",
    "--priority",
    "--tags",
    "--tag",
    "--mind",
    "--user",
    "--budget",
    "--search",
    "--category",
    "--content",
    "--confidence",
    "--expires",
    "--source",
    "--scope",
    "--all",
    "--dry-run",
    "--yes",
    "--force",
    "--no-tags",
    "--as-user",
)
HOSTILE = (
    "",
    "-",
    "--",
    "-3",
    "1e400",
    "NaN",
    "0x2",
    " 3 ",
    "true",
    "pass",
    "a\nb",
    "\x1b[31mred",
    "tab\there",
    "é😀",
    "\ud800",
    "x" * 300,
    "mem_0000",
    "note",
    "note/k",
    "sqlite",
    "status",
    "install",
    "claude-code",
)
WORDS = st.one_of(
    st.sampled_from(sorted({*OPTIONS, *OTHER_OPTIONS, "--json", "-d"})),
    st.sampled_from(HOSTILE),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12).filter(
        lambda w: not w.startswith(("/", "~", "-h", "--help", "--version")) and ".." not in w and w != "-h"
    ),
)


def _json_mode(args: list[str]) -> bool:
    parsed = parse(args)
    if parsed.action in ACTIONS:
        return parsed.json
    return "--json" in args


def _run(args: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    saved = sys.stdout, sys.stderr, sys.stdin, os.getcwd()
    sys.stdout, sys.stderr, sys.stdin = out_text, err_text, io.StringIO("")
    os.chdir(cwd)
    try:
        code = main(list(args))
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved[0], saved[1], saved[2]
        os.chdir(saved[3])
        out_text.flush()
        err_text.flush()
    return int(code), out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")


def _check(args: list[str], cwd: Path) -> None:
    code, out, err = _run(args, cwd)
    shown = f"mem {args!r} -> {code}\nstdout: {out[:500]}\nstderr: {err[:500]}"
    assert code in (0, 1), shown
    assert "Traceback" not in err and "Traceback" not in out, shown
    if code == 1 and not out and err:
        lines = err.splitlines()
        # one error line (commander's usage errors add their "Did you mean" line;
        # a broken plugin or a taken-over lock adds a notice before it)
        assert len(lines) <= 2 or lines[0].startswith("mem: unknown action"), shown
    if _json_mode(args) and out:
        if code == 1:
            [line] = out.splitlines()
            assert "error" in json.loads(line), shown
        elif args[-1] == "--json" and (len(args) < 2 or not args[-2].startswith("-")) and "--" not in args:
            json.loads(out)


def _fuzz(examples: int):
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        derandomize=True,
    )
    @given(command=st.sampled_from(FUZZED), words=st.lists(WORDS, max_size=6), json_last=st.booleans())
    def fuzz(command: str, words: list[str], json_last: bool) -> None:
        args = [command, *words] + (["--json"] if json_last else [])
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "p"
            (project / ".bmad" / "memory").mkdir(parents=True)
            (project / ".bmad" / "memory" / "journal.ndjson").write_text(
                '{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","task":"cache","signals":{},"id":"e1"}\n'
            )
            os.environ["HOME"] = str(Path(tmp) / "home")
            _check(args, project)

    return fuzz


@pytest.fixture
def fuzz_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_NOW", "2026-11-05T12:00:00.000Z")
    monkeypatch.setenv("HOME", os.environ.get("HOME", "/nonexistent"))


def test_fuzzed_arguments_always_on(fuzz_env: None) -> None:
    _fuzz(60)()


@pytest.mark.slow
def test_fuzzed_arguments(fuzz_env: None) -> None:
    _fuzz(int(os.environ.get("MEM_TEST_FUZZ_EXAMPLES", "600")))()


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "--priority", "--", "--json"],
        ["remember", "--json", "--priority"],
        ["memories", "--limit", "x", "--json"],
        ["write", "--agent", "a\nmem write: forged", "--outcome", "x\x1b[2J"],
        ["recall", "--limit", "a\nb"],
        ["doctor", "--bogus\nline", "--json"],
    ],
)
def test_the_reported_cases(fuzz_env: None, tmp_path: Path, args: list[str]) -> None:
    _check(args, tmp_path)
    code, out, err = _run(args, tmp_path)
    assert code == 1
    if "--json" in args:
        assert err == "" and "error" in json.loads(out)
    else:
        assert out == "" and len(err.splitlines()) == 1 and "\x1b" not in err
