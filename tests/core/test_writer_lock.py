"""The writer lock between threads and processes (docs/contract.md §8): re-entrant
per thread and per project, exclusive across threads and across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mem_core.errors import MemError
from mem_core.files import LOCK, LOCKED, lock, writer_lock
from mem_core.journal.records import append_event

THREADS, PROCESSES, EACH = 8, 4, 50
TS = "2026-11-05T12:00:00.000Z"


def install_probe(module: Any, probe: str) -> None:
    """Make every holder of the lock create ``probe`` exclusively once it holds
    the lock file, and remove it before it lets go: a second holder at the
    same time fails on the probe. Test-only, on the lock's own module."""
    acquire, release = module._acquire_file, module._release_file

    def probed_acquire(root: str, deadline: float) -> Any:
        taken = acquire(root, deadline)
        try:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            raise AssertionError(f"two holders of the writer lock at once (pid {os.getpid()})") from None
        return taken

    def probed_release(root: str, owner: bytes, **kwargs: Any) -> None:
        if not kwargs.get("torn"):
            os.unlink(probe)
        release(root, owner, **kwargs)

    module._acquire_file = probed_acquire
    module._release_file = probed_release


# each process installs the probe, then calls the real entry point 50 times
PROCESS = """
import sys
from mem_core.files import lock
sys.path.insert(0, sys.argv[4])
from test_writer_lock import install_probe
install_probe(lock, sys.argv[5])
from mem_cli.main import main
print("ready", flush=True)
sys.stdin.readline()
for i in range(int(sys.argv[2])):
    code = main(["write", "--agent", "p" + sys.argv[1], "--task", "n%d" % i, "-d", sys.argv[3]])
    if code != 0:
        sys.exit(code)
"""


def test_threads_and_processes_together_lose_nothing_and_never_share_the_lock(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = str(tmp_path / "holder.probe")  # outside the project: its listing stays the store's
    for name in ("_acquire_file", "_release_file"):
        monkeypatch.setattr(lock, name, getattr(lock, name))  # restored after the test
    install_probe(lock, probe)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS, str(n), str(EACH), str(project), str(Path(__file__).parent), probe],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(PROCESSES)
    ]
    for proc in procs:  # every interpreter is up before anyone writes
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS + 1)

    def writer(n: int) -> None:
        start.wait()
        try:
            for i in range(EACH):
                append_event(str(project), ts=TS, agent=f"t{n}", task=f"n{i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
    start.wait()
    for thread in threads:
        thread.join(timeout=300)
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert errors == []
    assert [proc.returncode for proc in procs] == [0] * PROCESSES, [err.decode() for _, err in outputs]

    data = (project / ".bmad/memory/journal.ndjson").read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.decode().splitlines()]  # no torn line
    assert len(records) == THREADS * EACH + PROCESSES * EACH
    expected = {(f"t{n}", f"n{i}") for n in range(THREADS) for i in range(EACH)}
    expected |= {(f"p{n}", f"n{i}") for n in range(PROCESSES) for i in range(EACH)}
    assert {(r["agent"], r["task"]) for r in records} == expected
    for agent in {a for a, _ in expected}:  # each writer's own events stay in its order
        mine = [int(r["task"][1:]) for r in records if r["agent"] == agent]
        assert mine == sorted(mine)
    assert not (project / LOCK).exists()
    assert not os.path.exists(probe)


def test_the_probe_sees_two_holders(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe of the test above can fail: two threads let into the lock at
    once (what the old process-wide re-entrancy did) are caught."""
    for name in ("_acquire_file", "_release_file"):
        monkeypatch.setattr(lock, name, getattr(lock, name))
    install_probe(lock, str(tmp_path / "holder.probe"))
    taken = lock._acquire_file(str(project), time.monotonic() + 1)
    try:
        os.unlink(project / LOCK)  # as if a second holder had been let in beside the first
        with pytest.raises(AssertionError, match="two holders"):
            lock._acquire_file(str(project), time.monotonic() + 1)
    finally:
        lock._release_file(str(project), taken[1])


def test_reentrant_within_one_thread(project: Path) -> None:
    path = project / LOCK
    with writer_lock(str(project)):
        owner = path.read_bytes()
        with writer_lock(str(project)):
            with writer_lock(str(project) + "/."):  # the same project, spelled otherwise
                assert path.read_bytes() == owner
            append_event(str(project), ts=TS, agent="a")  # the append takes it again, nested
        assert path.read_bytes() == owner  # the inner exits kept it
    assert not path.exists()


def test_a_second_thread_waits_for_the_first_and_gets_its_own_lock(project: Path) -> None:
    path = project / LOCK
    entered = threading.Event()
    seen: dict[str, Any] = {}

    def second() -> None:
        entered.set()
        with writer_lock(str(project)):
            seen["at"] = time.monotonic()
            seen["owner"] = path.read_bytes()
        seen["after"] = path.exists()

    with writer_lock(str(project)):
        first_owner = path.read_bytes()
        thread = threading.Thread(target=second)
        thread.start()
        assert entered.wait(5)
        time.sleep(0.3)
        assert "at" not in seen  # still waiting
        released = time.monotonic()
    thread.join(5)
    assert seen["at"] >= released
    assert seen["owner"] != first_owner  # its own token in the file, not a ride on the first's
    assert json.loads(seen["owner"])["pid"] == os.getpid()
    assert seen["after"] is False


def test_a_thread_waiting_for_another_thread_gives_up_like_a_process(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lock, "LOCK_WAIT_SECONDS", 0.3)
    path = project / LOCK
    result: dict[str, Any] = {}

    def second() -> None:
        started = time.monotonic()
        try:
            with writer_lock(str(project)):
                result["entered"] = True
        except MemError as exc:
            result["message"] = exc.message
        result["waited"] = time.monotonic() - started

    with writer_lock(str(project)):
        owner = path.read_bytes()
        thread = threading.Thread(target=second)
        thread.start()
        thread.join(60)
        assert path.read_bytes() == owner  # the one who gave up removed nothing
    assert result.get("message") == LOCKED and "entered" not in result
    assert result["waited"] >= 0.3  # it waited its time (how much longer is the machine's load)
    assert not path.exists()


def test_other_projects_are_not_blocked(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    done = threading.Event()

    def other() -> None:
        with writer_lock(str(two)):
            done.set()

    with writer_lock(str(one)):
        thread = threading.Thread(target=other)
        thread.start()
        assert done.wait(30)  # while the first project's lock is still held
        thread.join(5)


def test_new_token_is_a_random_uuid4() -> None:
    import uuid

    from mem_core.files.lock import new_token

    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    for token in tokens:
        parsed = uuid.UUID(token)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, token)
