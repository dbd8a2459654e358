"""The hostile file matrix (issue 10 item 6): a symlink, FIFO, directory,
socket, an over-size file, malformed UTF-8, a torn line or over-deep JSON at
every file and directory below the project that ``mem`` opens, for every
command; and a read-only memory directory. Each run must end (a hang fails),
print no traceback, exit 0 or 1 with one line, change no byte when it
refuses, and — where the command uses the hostile file — give its
documented message. The database cases are in test_hostile_database.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem_core.api.reinforce import CORRUPT_SCORES
from mem_core.files import FULL, INCOMPLETE, LOCKED, NOT_REGULAR, NOT_UTF8, SYMLINK
from mem_core.files.paths import PARENT
from tests.nexus_builder import RunBuilder, make_project
from tests.reliability.conftest import MEMORY, assert_clean, run_mem, snapshot, tmpfs

pytestmark = pytest.mark.reliability

M = str(MEMORY)
EVENT = '{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","task":"cache zebra 1","signals":{},"id":"e1"}\n'
SCORES = {"p": {"elo": 1200, "alpha": 100, "beta": 1, "mean": 0.99, "updates": 9, "lastTs": None}}

#: the files, and what a sound copy of each holds
FILES = {
    f"{M}/journal.ndjson": EVENT,
    f"{M}/promotions.ndjson": "",
    f"{M}/outcomes.ndjson": "",
    f"{M}/pattern-scores.json": json.dumps(SCORES),
    f"{M}/writer.lock": None,  # absent when sound
    ".agents/memory/lessons.md": None,  # make_project writes it
    "in.json": None,  # the observe input
}
DIRECTORIES = (".bmad", M, ".agents/memory")
KINDS = ("symlink", "fifo", "directory", "socket", "oversize", "utf8", "torn", "deep")
DIR_KINDS = ("symlink", "file")

COMMANDS: dict[str, tuple[str, ...]] = {
    "write": ("write", "--agent", "forge", "--task", "cache"),
    "reinforce": ("reinforce", "--pattern", "p", "--accept", "true"),
    "observe": ("observe", "--input", "in.json"),
    "recall": ("recall", "cache"),
    "recall-digit": ("recall", "zebra", "1"),
    "recall-evidence": ("recall", "cache", "--ranking", "evidence", "--context-scope", "work"),
    "outcomes": ("outcomes",),
    "doctor": ("doctor",),
    "remember": ("remember", "note", "k", "some content"),
    "memories": ("memories",),
    "context": ("context",),
}
#: which command opens which file, and the messages it may refuse it with
USES = {
    "write": {"journal.ndjson", "writer.lock"},
    "reinforce": {"pattern-scores.json", "promotions.ndjson", "writer.lock"},
    "observe": {"outcomes.ndjson", "writer.lock", "in.json", "lessons.md"},
    "outcomes": {"outcomes.ndjson"},
    # as the reference: lexical recall skips an unsafe source, evidence recall refuses it
    "recall-evidence": {"journal.ndjson", "outcomes.ndjson"},
}
MESSAGES = {
    "symlink": {SYMLINK},
    "fifo": {NOT_REGULAR},
    "directory": {NOT_REGULAR},
    "socket": {NOT_REGULAR},
    "oversize": {NOT_REGULAR, FULL},
    "utf8": {NOT_UTF8},
    "torn": {INCOMPLETE, CORRUPT_SCORES, "Outcome store has an incomplete final record."},
    "deep": {CORRUPT_SCORES},
}


def _input() -> str:
    return json.dumps(
        {
            "runId": "run",
            "taskId": "task",
            "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
            "scope": ["work"],
            "interpretation": "The accepted change keeps false and zero; causality is not measured.",
        }
    )


def _sound_project(root: Path) -> Path:
    project = root / "p"
    project.mkdir()
    make_project(project)
    RunBuilder(project, "run").accepted("task").write()
    (project / MEMORY).mkdir(parents=True, exist_ok=True)
    for relative, text in FILES.items():
        if text is not None:
            (project / relative).write_text(text)
    (project / "in.json").write_text(_input())
    return project


def _sound_bytes(project: Path, relative: str) -> bytes:
    path = project / relative
    if path.is_file():
        return path.read_bytes()
    if relative.endswith("writer.lock"):
        return json.dumps({"pid": 1, "hostname": "elsewhere", "token": "t"}).encode()
    return b"{}\n"


def make_hostile(project: Path, relative: str, kind: str, outside: Path) -> list[socket.socket]:
    """Put a ``kind`` at ``relative``; sockets to close afterwards."""
    path = project / relative
    sound = _sound_bytes(project, relative)
    if path.is_dir() and not path.is_symlink():
        pass
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    keep: list[socket.socket] = []
    if kind == "symlink":
        target = outside / (relative.replace("/", "_") + ".real")
        target.write_bytes(sound)
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        here = os.getcwd()
        os.chdir(path.parent)  # a socket's path is limited to 108 bytes
        try:
            server.bind(path.name)
        finally:
            os.chdir(here)
        server.listen(1)
        keep.append(server)
    elif kind == "oversize":
        line = sound.rstrip(b"\n") or b"{}"
        path.write_bytes((line + b"\n") * (2 * 1024 * 1024 // (len(line) + 1) + 2))
    elif kind == "utf8":
        path.write_bytes(sound.rstrip(b"\n") + b'"\xff\xfe"\n' if sound.strip() else b"\xff\xfe\n")
    elif kind == "torn":
        path.write_bytes(sound + b'{"ts":"2026-10-18T09:30:00.000Z","agent":"for')
    elif kind == "deep":
        path.write_bytes(b"[" * 100_000 + b"\n" + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"\n" + sound)
    return keep


def make_hostile_dir(project: Path, relative: str, kind: str, outside: Path) -> None:
    path = project / relative
    if kind == "symlink":
        target = outside / (relative.replace("/", "_") + ".real")
        path.rename(target)
        path.symlink_to(target, target_is_directory=True)
    else:  # a file where a directory should be
        import shutil

        shutil.rmtree(path)
        path.write_text("not a directory\n")


def check(run, command: str, before: dict, after: dict, allowed: set[str] | None) -> list[str]:
    problems = []
    try:
        assert_clean(run)
    except AssertionError as exc:
        return [f"{command}: {exc}"]
    if run.code == 1:
        if before != after:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"{command}: refused but changed {changed}")
        message = run.err.strip().splitlines()[-1] if run.err.strip() else run.out
        if allowed is not None and not any(m in message for m in allowed):
            problems.append(f"{command}: message {message!r}, expected one of {sorted(allowed)}")
    return problems


def _matrix_case(tmp_path: Path, relative: str, kind: str, commands: tuple[str, ...]) -> list[str]:
    problems = []
    for command in commands:
        case = tmp_path / f"{command}-{kind}-{relative.replace('/', '_')}"
        case.mkdir()
        outside = case / "outside"
        outside.mkdir()
        project = _sound_project(case)
        sockets = make_hostile(project, relative, kind, outside)
        try:
            before = snapshot(project)
            run = run_mem(*COMMANDS[command], cwd=project, env={"MEM_NOW": "2026-11-05T12:00:00.000Z"})
            after = snapshot(project)
        finally:
            for s in sockets:
                s.close()
        name = os.path.basename(relative)
        uses = name in USES.get(command, set())
        allowed = MESSAGES[kind] if uses else None
        if uses and name == "writer.lock" and kind in ("oversize", "utf8", "torn", "deep"):
            allowed = {LOCKED}  # a lock that names no owner is never provably stale
        if uses and name == "in.json" and kind in ("torn", "deep"):
            allowed = None  # the input's own JSON message (V8's wording)
        if uses and name == "lessons.md" and kind in ("torn", "deep"):
            uses, allowed = False, None  # Markdown: torn or deep is just text
        if uses and kind == "deep" and name.endswith(".ndjson"):
            uses, allowed = False, None  # a deep line is a corrupt line: appends go on
        problems += [f"{relative} as {kind}: {p}" for p in check(run, command, before, after, allowed)]
        if uses and run.code == 0 and command in USES and command != "recall-evidence":
            problems.append(f"{relative} as {kind}: {command} accepted it")
        if command in ("recall", "recall-digit") and run.code != 0 and name in ("journal.ndjson", "lessons.md"):
            problems.append(f"{relative} as {kind}: recall failed ({run.err.strip()}) instead of skipping")
        hostile_before = before.get(relative)
        hostile_after = after.get(relative)
        appended = (
            run.code == 0
            and hostile_before is not None
            and hostile_after is not None
            and hostile_before[0] == hostile_after[0] == "file"
            and hostile_after[1].startswith(hostile_before[1])  # type: ignore[union-attr]
        )
        if hostile_before is not None and hostile_after != hostile_before and not appended:
            problems.append(f"{relative} as {kind}: {command} changed the hostile file")
    return problems


QUICK = ("write", "reinforce", "observe", "recall-digit", "doctor")


ALWAYS_ON = [
    *((f"{M}/journal.ndjson", kind) for kind in KINDS),
    *((f"{M}/pattern-scores.json", kind) for kind in ("fifo", "utf8", "deep", "symlink")),
    *((f"{M}/writer.lock", kind) for kind in ("fifo", "directory", "torn")),
]


@pytest.mark.parametrize(("relative", "kind"), ALWAYS_ON)
def test_hostile_files_always_on(tmp_path: Path, relative: str, kind: str) -> None:
    problems = _matrix_case(tmp_path, relative, kind, QUICK)
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("relative", list(FILES))
def test_hostile_file_matrix(tmp_path: Path, relative: str, kind: str) -> None:
    problems = _matrix_case(tmp_path, relative, kind, tuple(COMMANDS))
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("kind", DIR_KINDS)
@pytest.mark.parametrize("relative", DIRECTORIES)
def test_hostile_directory_matrix(tmp_path: Path, relative: str, kind: str) -> None:
    problems = []
    for command in COMMANDS:
        case = tmp_path / command
        case.mkdir()
        outside = case / "outside"
        outside.mkdir()
        project = _sound_project(case)
        make_hostile_dir(project, relative, kind, outside)
        before = snapshot(project)
        run = run_mem(*COMMANDS[command], cwd=project, env={"MEM_NOW": "2026-11-05T12:00:00.000Z"})
        after = snapshot(project)
        writes = command in USES and relative != ".agents/memory"
        allowed = ({SYMLINK} if kind == "symlink" else {PARENT, NOT_REGULAR}) if writes else None
        problems += [f"{relative} as {kind}: {p}" for p in check(run, command, before, after, allowed)]
        if writes and run.code == 0:
            problems.append(f"{relative} as {kind}: {command} wrote through it")
    assert problems == [], "\n".join(problems)


@pytest.fixture
def read_only_project(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "ro", "4m", "a read-only tmpfs") as mount:
        project = _sound_project(mount)
        assert run_mem("remember", "note", "k", "cache content", cwd=project).code == 0
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True, capture_output=True)
        yield project


@pytest.mark.slow
def test_a_read_only_memory_directory(read_only_project: Path) -> None:
    problems = []
    before = snapshot(read_only_project)
    for command, args in COMMANDS.items():
        run = run_mem(*args, cwd=read_only_project, env={"MEM_NOW": "2026-11-05T12:00:00.000Z"})
        problems += check(run, command, before, snapshot(read_only_project), None)
        # the readers (outcomes, every recall) read a read-only project; the writers refuse
        if command in USES and command != "outcomes" and not command.startswith("recall") and run.code == 0:
            problems.append(f"{command} succeeded on a read-only file system")
        if command.startswith("recall") and run.code != 0:
            problems.append(f"{command} cannot read a read-only project: {run.err.strip()}")
    assert problems == [], "\n".join(problems)
