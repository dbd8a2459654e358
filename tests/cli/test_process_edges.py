"""What only a real process shows: pipes, argv bytes, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_a_reader_that_goes_away_does_not_produce_a_traceback(project: Path) -> None:
    notes = project / ".agents/memory"
    notes.mkdir(parents=True)
    (notes / "lessons.md").write_text("".join(f"### Lesson {i}\ncache word {i}\n" for i in range(400)))
    reader = subprocess.Popen(["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", "recall", "cache", "--limit", "400", "--json", "-d", str(project)],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
    )
    assert reader.stdin is not None
    reader.stdin.close()
    reader.wait()
    assert b"Traceback" not in proc.stderr
    assert proc.returncode in (0, 1)


def test_argument_bytes_that_are_not_utf8_become_replacement_characters(project: Path) -> None:
    env = dict(os.environ, MEM_NOW="2026-11-05T12:00:00.000Z")
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"mem_cli", b"write", b"--agent", b"\xff\xfeab", b"--json", b"-d",
         os.fsencode(project)],
        capture_output=True,
        env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["written"]["agent"] == "\ufffd\ufffdab"
    assert (project / ".bmad/memory/journal.ndjson").read_bytes().count("\ufffd".encode()) == 2


def test_usage_errors_exit_1_never_2(mem_process) -> None:
    assert mem_process("write", "--agent").code == 1
    assert mem_process("nonsense").code == 1
    assert mem_process("memories", "--no-such-option").code == 1
    assert mem_process("--version").code == 0
    run = mem_process("recall", "--help")
    assert run.code == 0 and b"--context-scope" in run.out_bytes


def test_no_action_is_reported_as_bmad_plus_mem_reports_it(mem_process) -> None:
    # `mem` alone shows the help (tests/cli/test_cli_manners.py); options without an action are an error
    for args in (("-d", "somewhere", "--limit", "3"),):
        run = mem_process(*args)
        assert (run.code, run.out_bytes, run.err) == (1, b"", "error: missing required argument 'action'\n")
    run = mem_process("--json")
    assert (run.code, run.out) == (1, '{"error":"missing required argument \'action\'"}\n')
    assert mem_process("--bogus").err == "error: unknown option '--bogus'\n"
