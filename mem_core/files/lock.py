"""The writer lock ``.bmad/memory/writer.lock`` (mem-cli.md §8).

Between processes, the protocol ``bmad-plus mem`` follows too, so the two
tools exclude each other: the file is created exclusively and holds
``{"pid","hostname","token"}`` of its owner; on contention creation is retried
every 10 ms for about two seconds, then :data:`LOCKED`; the owner removes it
when done, and only while it still holds the owner's content.

Within a process, one gate per project (keyed by its absolute root) is taken
before the file. Threads waiting for it queue in arrival order, within the
same two seconds as for the file and with the same message; the thread whose
turn comes waits one retry interval before it creates the file, so that the
processes polling for it take their turns too (a long-lived server does not
starve the ``mem`` processes around it, nor they it). The lock is re-entrant
per thread and per project: a thread holding it for a project may take it
again (nested ``with``); another thread may not.

Nothing beyond what ``mem write`` loads anyway is imported (the gates are
``_thread`` locks: ``threading`` is not needed).
"""

from __future__ import annotations

import _thread
import errno
import json
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mem_core.errors import MemError
from mem_core.files.layout import LOCK
from mem_core.files.paths import os_error_message, safe_file
from mem_core.js import jsonfmt

__all__ = ["LOCKED", "LOCK_WAIT_SECONDS", "LOCK_RETRY_SECONDS", "writer_lock", "hostname", "new_token"]

LOCKED = "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock."
#: how long a writer waits for the lock before giving up
LOCK_WAIT_SECONDS = 2.0
#: how often a waiting writer tries again
LOCK_RETRY_SECONDS = 0.01


def hostname() -> str:
    """This host's name, as Node's ``os.hostname()`` gives it."""
    return os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")


def new_token() -> str:
    """A fresh random token (a UUID 4), as the lock owner and temporary files use."""
    import uuid

    return str(uuid.uuid4())


class _Gate:
    """The in-process side of one project's lock: the thread holding it, and
    the threads waiting for it, in arrival order (each on a lock of its own,
    released when its turn comes)."""

    __slots__ = ("owner", "queue")

    def __init__(self) -> None:
        self.owner: int | None = None
        self.queue: list[tuple[int, Any]] = []


_gates: dict[str, _Gate] = {}
_guard = _thread.allocate_lock()  # guards _gates and every gate's fields


def _gate(root: str) -> _Gate:
    with _guard:
        gate = _gates.get(root)
        if gate is None:
            gate = _gates[root] = _Gate()
        return gate


def _forget_gates() -> None:
    """In a forked child: no thread of it holds or waits for any gate."""
    global _guard
    _gates.clear()
    _guard = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_gates)


def _enter_gate(gate: _Gate, me: int, deadline: float) -> bool:
    """Take the gate: at once when it is free (``False``), else after the
    threads queued before this one (``True``); :data:`LOCKED` at ``deadline``."""
    with _guard:
        if gate.owner is None and not gate.queue:
            gate.owner = me
            return False
        turn = _thread.allocate_lock()
        turn.acquire()
        gate.queue.append((me, turn))
    if turn.acquire(True, max(0.0, deadline - time.monotonic())):
        return True
    with _guard:
        if gate.owner == me:  # handed over just as the wait ran out
            return True
        gate.queue.remove((me, turn))
    raise MemError(LOCKED)


def _leave_gate(gate: _Gate) -> None:
    """Hand the gate to the next thread in the queue, or leave it free."""
    with _guard:
        if gate.queue:
            gate.owner, turn = gate.queue.pop(0)
            turn.release()
        else:
            gate.owner = None


def _stale_owner(lock_path: str) -> int | None:
    """The pid of a lock owner on this host that is no longer running."""
    try:
        with open(lock_path, "rb") as fh:
            owner = json.loads(fh.read(4096).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(owner, dict) or owner.get("hostname") != hostname():
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid
    except OSError:
        return None
    return None


def _acquire_file(root: str, deadline: float) -> tuple[str, bytes]:
    """Create the lock file (waiting until ``deadline``); its path and content."""
    lock_path = safe_file(root, LOCK)
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    except OSError as exc:
        raise MemError(os_error_message(exc, "mkdir", os.path.dirname(lock_path))) from None
    owner = jsonfmt.dumps({"pid": os.getpid(), "hostname": hostname(), "token": new_token()}).encode("utf-8")
    checked_stale = False
    while True:
        try:
            fd = os.open(safe_file(root, LOCK), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            if not checked_stale:
                checked_stale = True
                pid = _stale_owner(lock_path)
                if pid is not None:
                    raise MemError(f"{LOCKED} (owner pid {pid} on this host is not running)") from None
            if time.monotonic() >= deadline:
                pid = _stale_owner(lock_path)
                suffix = f" (owner pid {pid} on this host is not running)" if pid is not None else ""
                raise MemError(LOCKED + suffix) from None
            time.sleep(LOCK_RETRY_SECONDS)
        except OSError as exc:
            raise MemError(os_error_message(exc, "open", lock_path)) from None
    try:
        try:
            if os.write(fd, owner) != len(owner):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _release_file(root, owner, torn=True)
        raise
    return lock_path, owner


def _release_file(root: str, owner: bytes, *, torn: bool = False) -> None:
    """Remove the lock file if it still holds ``owner`` — never a file that
    someone else replaced it with. ``torn``: the owner could not be written
    whole, so the file holds a prefix of it."""
    try:
        lock_path = safe_file(root, LOCK)
        if not stat.S_ISREG(os.lstat(lock_path).st_mode):
            return
        with open(lock_path, "rb") as fh:
            data = fh.read(len(owner) + 1)
        if data == owner or (torn and owner.startswith(data)):
            os.unlink(lock_path)
    except (MemError, OSError):
        pass


@contextmanager
def writer_lock(root: str) -> Iterator[None]:
    """Hold ``.bmad/memory/writer.lock`` of the project ``root`` for the
    duration of the block: exclusive across processes and across threads,
    re-entrant within one thread; :data:`LOCKED` after about two seconds of
    waiting (for another process or another thread)."""
    root = os.path.abspath(root)
    gate = _gate(root)
    me = _thread.get_ident()
    if gate.owner == me:
        yield
        return
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    if _enter_gate(gate, me, deadline):
        # handed over by another thread, which has just removed the file: a
        # process waiting for it gets one retry interval to take its turn
        time.sleep(LOCK_RETRY_SECONDS)
    try:
        pid = os.getpid()
        _, owner = _acquire_file(root, deadline)
        try:
            yield
        finally:
            if os.getpid() == pid:  # a forked child leaving the block: its parent owns the file
                _release_file(root, owner)
    finally:
        _leave_gate(gate)
