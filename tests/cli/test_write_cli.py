"""``mem write`` byte for byte (mem-cli.md §0, §3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import BMAD_PROJECT, tree_bytes

JOURNAL = Path(".bmad/memory/journal.ndjson")

# the calls that made tests/fixtures/bmad-plus-project's journal (fixtures/README.md)
FIXTURE_WRITES = [
    ("2026-10-18T09:30:00.000Z", ["--agent", "forge", "--cli", "claude-code", "--model", "claude-opus", "--task",
                                  "Add login rate limit", "--outcome", "success", "--ci", "pass"]),
    ("2026-10-19T10:00:00.000Z", ["--agent", "zecher", "--cli", "gemini-cli", "--task", "Fix cache zero values",
                                  "--outcome", "partial", "--eval", "0.6", "--accept", "yes"]),
    ("2026-10-20T11:15:00.000Z", ["--agent", "forge", "--task", "Migrate job queue to BullMQ", "--outcome",
                                  "failure", "--ci", "fail"]),
]  # fmt: skip


def test_replaying_the_reference_calls_gives_a_byte_identical_journal(mem, project: Path) -> None:
    for now, args in FIXTURE_WRITES:
        run = mem("write", *args, "-d", str(project), env={"MEM_NOW": now})
        assert run.code == 0, run.err
    assert (project / JOURNAL).read_bytes() == (BMAD_PROJECT / JOURNAL).read_bytes()


def test_text_output_is_exact(mem, project: Path, now: str) -> None:
    run = mem("write", "--agent", "forge", "--cli", "claude-code", "--task", "Add login rate limit",
              "--outcome", "success", "--ci", "pass", "-d", str(project))  # fmt: skip
    assert run.code == 0
    event_id = json.loads((project / JOURNAL).read_text())["id"]
    assert (
        run.out_bytes
        == (
            f"mem write: event {event_id} appended ({now})\n"
            "  agent=forge cli=claude-code model=- outcome=success\n"
            "  task: Add login rate limit\n"
        ).encode()
    )
    assert run.err_bytes == b""


def test_no_task_line_without_a_task_and_long_tasks_are_cut(mem, project: Path, now: str) -> None:
    run = mem("write", "--agent", "a", "-d", str(project))
    assert run.out.splitlines()[1:] == ["  agent=a cli=- model=- outcome=-"]
    run = mem("write", "--agent", "a", "--task", "word " * 40, "-d", str(project))
    assert run.out.splitlines()[2] == "  task: " + ("word " * 24)[:119] + "…"


def test_json_output_is_the_record(mem, project: Path, now: str) -> None:
    run = mem(
        "write", "--agent", "zecher", "--eval", "0.6", "--accept", "YES", "--ci", "0.5", "--json", "-d", str(project)
    )
    line = (project / JOURNAL).read_text()
    assert run.out == '{\n  "written": ' + json.dumps(json.loads(line), indent=2).replace("\n", "\n  ") + "\n}\n"
    assert json.loads(line)["signals"] == {"evalScore": 0.6, "acceptance": True, "ci": 0.5}


@pytest.mark.parametrize(
    ("args", "signals"),
    [
        (["--accept", "-3"], '{"acceptance":-3}'),  # a value that starts with "-" is still the value
        (["--eval", "abc"], '{"evalScore":null}'),  # not a number: null
        (["--eval", ""], '{"evalScore":0}'),  # empty: 0
        (["--ci", "PASS"], '{"ci":null}'),  # only exactly pass/fail stay strings
        (["--ci", "fail", "--eval", "0x10"], '{"evalScore":16,"ci":"fail"}'),  # key order is eval, accept, ci
        (["--accept", "No"], '{"acceptance":false}'),
    ],
)
def test_signals_are_recorded_as_the_reference_records_them(mem, project: Path, now: str, args, signals) -> None:
    assert mem("write", "--agent", "a", *args, "-d", str(project)).code == 0
    assert f',"signals":{signals},' in (project / JOURNAL).read_text()


def test_the_id_is_sha256_of_ts_agent_task_and_a_repeat_appends_twice(mem, project: Path, now: str) -> None:
    import hashlib

    for _ in range(2):
        mem("write", "--agent", "a", "--task", "t", "-d", str(project))
    lines = (project / JOURNAL).read_text().splitlines()
    assert lines[0] == lines[1]
    assert json.loads(lines[0])["id"] == hashlib.sha256(f"{now}\0a\0t".encode()).hexdigest()[:12]


def test_options_may_come_anywhere_and_other_actions_options_are_ignored(mem, project: Path, now: str) -> None:
    run = mem("--json", "-d", str(project), "write", "stray", "--limit", "3", "--agent", "a", "--scope", "x")
    assert run.code == 0, run.out
    assert json.loads(run.out)["written"]["agent"] == "a"


def test_a_missing_directory_is_created(mem, tmp_path: Path, now: str) -> None:
    target = tmp_path / "new" / "project"
    assert mem("write", "--agent", "a", "-d", str(target)).code == 0
    assert (target / JOURNAL).is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "appendEvent: event.agent is required"),
        (["--agent", ""], "appendEvent: event.agent is required"),
        (
            ["--agent", "a", "--outcome", "won"],
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        ),
        (
            ["--agent", "a", "--outcome", ""],
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        ),
        (["--agent", "a", "--signal", "nope=1"], "unknown reward signal 'nope' (known: eval, accept, ci)"),
    ],
)
def test_bad_input_has_its_exact_message_exit_1_and_changes_nothing(
    mem, bmad_project: Path, now: str, args, message
) -> None:
    before = tree_bytes(bmad_project)
    run = mem("write", "-d", str(bmad_project), *args)
    assert (run.code, run.out_bytes, run.err) == (1, b"", f"mem write: {message}\n")
    run = mem("write", "--json", "-d", str(bmad_project), *args)
    assert (run.code, run.out, run.err_bytes) == (1, json.dumps({"error": message}, separators=(",", ":")) + "\n", b"")
    assert tree_bytes(bmad_project) == before


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        (lambda p: (p / ".bmad/memory/journal.ndjson").write_bytes(b'{"a":1}'),
         "Memory store has an incomplete final line; inspect it before writing."),
        (lambda p: (p / ".bmad/memory/journal.ndjson").write_bytes(b"x" * (2 * 1024 * 1024 - 10) + b"\n"),
         "Memory store is full; archive it explicitly before adding records."),
        (lambda p: (p / ".bmad/memory/journal.ndjson").write_bytes("é\n".encode("latin-1")),
         "Memory source must contain valid UTF-8."),
        (lambda p: (p / ".bmad/memory/journal.ndjson").symlink_to(p / "elsewhere.ndjson"),
         "Memory paths cannot follow symbolic links or junctions."),
        (lambda p: (p / ".bmad/memory/writer.lock").write_text('{"pid":1,"hostname":"elsewhere","token":"t"}'),
         "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock."),
    ],
)  # fmt: skip
def test_store_refusals_change_nothing(mem, project: Path, now: str, prepare, message) -> None:
    (project / ".bmad/memory").mkdir(parents=True)
    (project / "elsewhere.ndjson").write_text("")
    prepare(project)
    before = tree_bytes(project)
    run = mem("write", "--agent", "a", "-d", str(project))
    assert (run.code, run.err) == (1, f"mem write: {message}\n")
    assert tree_bytes(project) == before


@pytest.mark.parametrize(
    ("args", "stderr"),
    [  # what bmad-plus mem (commander 14) prints for these, checked against it
        (["--agent"], "error: option '--agent <name>' argument missing\n"),
        (["--agent", "a", "--bogus"], "error: unknown option '--bogus'\n"),
        (["--bogus", "--agent"], "error: option '--agent <name>' argument missing\n"),  # missing value wins
        (["--jsn", "--agent", "a"], "error: unknown option '--jsn'\n(Did you mean --json?)\n"),
        (["--json=1", "--agent", "a"], "error: unknown option '--json=1'\n(Did you mean --json?)\n"),
        (["--agent", "a", "-x"], "error: unknown option '-x'\n"),
        (["--agent", "a", "-d"], "error: option '-d, --directory <path>' argument missing\n"),
        (["--so"], "error: unknown option '--so'\n(Did you mean --json?)\n"),
    ],
)
def test_usage_errors_are_worded_as_commander_words_them(mem, project: Path, now: str, args, stderr) -> None:
    run = mem("write", *args, cwd=project)
    assert (run.code, run.out, run.err) == (1, "", stderr)
    assert not (project / ".bmad").exists()
    message = stderr.splitlines()[0].removeprefix("error: ")
    run = mem("write", "--json", *args, cwd=project)  # with --json: the message as JSON, for agents
    assert (run.code, run.out, run.err) == (1, json.dumps({"error": message}, separators=(",", ":")) + "\n", "")
