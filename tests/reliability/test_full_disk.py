"""A full disk (issue 10 item 6): a small tmpfs, filled to a few pages from
full, under ``write``, ``reinforce``, ``observe`` and ``remember``. Each run
succeeds or fails with one mem line; afterwards there is no empty lock, no
torn line, no temporary file, and once space is freed every command works.
Needs root (to mount the tmpfs): skipped otherwise."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem_core.files.paths import DISK_FULL
from tests.nexus_builder import RunBuilder, make_project
from tests.reliability.conftest import MEMORY, assert_clean, observe_input, run_mem, store_problems, tmpfs

pytestmark = pytest.mark.reliability

PAGE = 4096


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "disk", "1m") as mount:
        yield mount


def fill(disk: Path, leave_pages: int) -> Path:
    """Fill ``disk`` up, then free ``leave_pages`` pages."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        chunk = b"\0" * PAGE
        while True:
            try:
                os.write(fd, chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
        size = os.fstat(fd).st_size
        os.ftruncate(fd, max(0, size - size % PAGE - leave_pages * PAGE))
    finally:
        os.close(fd)
    return filler


COMMANDS = ("write", "reinforce", "observe", "remember")


def _args(command: str, project: Path, n: int) -> tuple[str, ...]:
    if command == "write":
        return ("write", "--agent", "forge", "--task", "x" * (700 + 37 * n))
    if command == "reinforce":
        return ("reinforce", "--pattern", "Rate limit", "--accept", "true", "--evidence", "e" * (300 + 53 * n))
    if command == "observe":
        return ("observe", "--input", f"in-t{n}.json")
    return ("remember", "note", f"k{n}", "c" * (500 + 41 * n))


@pytest.mark.parametrize("command", [c if c == "write" else pytest.param(c, marks=pytest.mark.slow) for c in COMMANDS])
def test_a_full_disk_never_leaves_an_empty_lock_or_a_torn_line(small_disk: Path, command: str) -> None:
    project = small_disk / "p"
    project.mkdir()
    make_project(project)
    builder = RunBuilder(project, "run")
    for n in range(40):
        builder.accepted(f"t{n}")
    builder.write()
    for n in range(40):
        observe_input(project, f"t{n}")  # written before the disk fills
    env = {"MEM_NOW": "2026-11-05T12:00:00.000Z"}
    n = 0
    failures = []
    refused = 0
    for leave in (0, 0, 1, 1, 2, 3, 0, 1, 2):
        filler = fill(small_disk, leave)
        for _ in range(3):
            n += 1
            run = run_mem(*_args(command, project, n), cwd=project, env=env)
            assert_clean(run)
            if run.code:
                refused += 1
                # the SQLite store words it its own way (SQLite reports a full
                # disk as SQLITE_FULL or, for its WAL index, an I/O error)
                sqlite = command == "remember" and ("disk I/O error" in run.err or "disk is full" in run.err)
                if DISK_FULL not in run.err and not sqlite:
                    failures.append(f"{command} with {leave} free page(s): {run.err.strip()}")
            problems = store_problems(project)
            if problems:
                failures.append(f"{command} with {leave} free page(s): {problems}")
            lock = project / MEMORY / "writer.lock"
            if lock.exists():
                failures.append(f"{command}: writer.lock left behind ({lock.read_bytes()!r})")
        filler.unlink()
        n += 1
        run = run_mem(*_args(command, project, n), cwd=project, env=env)
        if run.code != 0:
            failures.append(f"{command} after space was freed: {run.err.strip()}")
    print(f"full disk, {command}: {n} runs, {refused} refused for space, failures: {len(failures)}")
    assert not failures, "\n".join(failures)
    assert refused > 0, "the disk was never full enough to refuse"
