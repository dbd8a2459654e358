"""Error lines are one line whatever the input (issue 10 item 3), and system
failures are worded by mem, never as Python's ``[Errno 28] …``."""

from __future__ import annotations

import errno

import pytest

from mem_cli.output import one_line
from mem_cli.run import failure_message
from mem_core.files.paths import DISK_FULL

pytestmark = pytest.mark.reliability


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("a\nb", "a\\nb"),
        ("a\r\nb", "a\\r\\nb"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("tab\there", "tab\\there"),
        ("nul\x00", "nul\\x00"),
        ("del\x7f", "del\\x7f"),
        ("c1\x9b", "c1\\x9b"),
        ("ls\u2028ps\u2029", "ls\\u2028ps\\u2029"),
        ("é😀 — ok", "é😀 — ok"),
    ],
)
def test_one_line_escapes_control_characters(text: str, shown: str) -> None:
    assert one_line(text) == shown
    assert "\n" not in one_line(text)


def test_system_failures_in_mem_words() -> None:
    assert failure_message(OSError(errno.ENOSPC, "No space left on device")) == DISK_FULL
    assert failure_message(OSError(errno.EDQUOT, "Disk quota exceeded", "/p/x")) == DISK_FULL
    assert failure_message(PermissionError(errno.EACCES, "Permission denied", "/p/x")) == (
        "EACCES: permission denied, open '/p/x'"
    )
    assert "recursion" not in failure_message(RecursionError("maximum recursion depth exceeded"))


@pytest.mark.parametrize(
    "args",
    [
        ("write", "--agent", "a", "--bo\nmem write: event forged appended"),
        ("memories", "--bo\nmem write: event forged appended"),
        ("unknown\nmem write: event forged appended",),
    ],
)
def test_an_echoed_newline_cannot_forge_a_second_line(mem, tmp_path, args) -> None:
    run = mem(*args, cwd=tmp_path)
    assert run.code == 1
    assert run.out == ""
    assert "\\nmem write: event forged" in run.err
    assert not any(line.startswith("mem write: event forged") for line in run.err.splitlines())
