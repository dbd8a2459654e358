"""The writer lock ``.bmad/memory/writer.lock`` (docs/contract.md §8).

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
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.layout import LOCK
from mem_core.files.notices import say, set_notifier
from mem_core.files.paths import os_error_message, os_failure, safe_file
from mem_core.js import jsonfmt

if TYPE_CHECKING:
    from typing import Any

#: as :data:`mem_core.files.io.NOT_REGULAR` (which imports this module)
NOT_REGULAR = "Memory source must be a regular file of at most 2 MiB."

__all__ = [
    "TOOK_OVER",
    "set_notifier",
    "stale_pid",
    "read_owner",
    "LOCKED",
    "LOCK_WAIT_SECONDS",
    "LOCK_RETRY_SECONDS",
    "writer_lock",
    "hostname",
    "new_token",
]

LOCKED = "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock."
#: how long a writer waits for the lock before giving up
LOCK_WAIT_SECONDS = 2.0
#: how often a waiting writer tries again
LOCK_RETRY_SECONDS = 0.01


def hostname() -> str:
    """This host's name, as Node's ``os.hostname()`` gives it."""
    return os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")


def new_token() -> str:
    """A fresh random token (a UUID 4, RFC 9562), as the lock owner and
    temporary files use — what ``str(uuid.uuid4())`` gives, without the 4 ms
    import of :mod:`uuid` on every writer's start-up."""
    value = int.from_bytes(os.urandom(16), "big")
    value = (value & ~(0xF000 << 64) | (0x4000 << 64)) & ~(0xC000 << 48) | (0x8000 << 48)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


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


#: the stderr line of a takeover (docs/contract.md §8, improve v0.2); the CLI prefixes ``mem <action>: ``
TOOK_OVER = "took over a stale writer.lock (owner pid {pid} on this host is not running)"
#: a candidate lock file, written whole before it is linked into place
_CANDIDATE = ".{pid}-{token}.tmp"
#: a stale lock renamed aside during a takeover
_ASIDE = ".stale-{token}"
#: candidate files older than this are orphans of a killed writer (a live one
#: keeps its candidate for at most the two seconds of waiting)
_ORPHAN_SECONDS = 60.0

#: the files replaced atomically only under the lock (their ``<name>.<uuid>.tmp``)
_LOCKED_WRITES = ("pattern-scores.json.",)


def read_owner(path: str) -> tuple[bytes, Any, os.stat_result] | None:
    """The bytes, the parsed content and the status of the lock file at
    ``path``, read without blocking; ``None`` when it is gone. A file that is
    not a regular file is refused (:data:`NOT_REGULAR`); content that is not
    JSON parses as ``None``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ELOOP, errno.EISDIR, errno.EOPNOTSUPP):
            raise MemError(NOT_REGULAR) from None
        raise MemError(os_error_message(exc, "open", path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise MemError(NOT_REGULAR)
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        return data, json.loads(data.decode("utf-8")), st
    except (ValueError, RecursionError):
        return data, None, st


def _started_after(pid: int, when: float) -> bool:
    """Whether process ``pid`` started after ``when`` (a Unix time), from
    ``/proc``; false where that cannot be told. One second of slack covers
    the boot time's whole-second precision."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as fh:
            btime = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
        started = btime + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    return started > when + 1.0


def stale_pid(owner: Any, st: os.stat_result | None) -> int | None:
    """The pid of the lock's owner when the lock is provably stale: the owner
    is on this host and its pid is not running, or is running but started
    after the lock was written (a reused pid). ``None`` otherwise — a lock of
    another host, of a live owner, or one that cannot be read, is never stale."""
    if not isinstance(owner, dict) or owner.get("hostname") != hostname():
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid
    except PermissionError:
        pass  # running, as another user
    except OSError:
        return None
    if st is not None and _started_after(pid, st.st_mtime):
        return pid
    return None


def _take_over(lock_path: str, seen: os.stat_result) -> bool:
    """Move the stale lock ``seen`` aside, atomically: rename it, then check
    that what was renamed is that same stale file. If another writer took it
    over first (what was renamed is its live lock), put that back. True when
    the stale lock is gone and the caller may create its own."""
    aside = lock_path + _ASIDE.format(token=new_token())
    try:
        os.rename(lock_path, aside)
    except FileNotFoundError:
        return True  # gone meanwhile: try to create it
    except OSError as exc:
        raise MemError(os_error_message(exc, "rename", lock_path)) from None
    try:
        moved = os.lstat(aside)
        found = read_owner(aside)
        same = (moved.st_dev, moved.st_ino) == (seen.st_dev, seen.st_ino)
        if same and found is not None and stale_pid(found[1], found[2]) is not None:
            return True
        try:  # not the stale lock: a live one, put it back where it was
            os.link(aside, lock_path)
        except OSError:  # taken meanwhile, or already removed as an orphan
            pass
        return False
    finally:
        try:
            os.unlink(aside)
        except OSError:
            pass


def _write_candidate(lock_path: str, owner: bytes) -> str:
    """A file beside the lock holding ``owner`` whole, fsynced: linking it into
    place makes the lock visible only with its owner written."""
    candidate = lock_path + _CANDIDATE.format(pid=os.getpid(), token=new_token())
    try:
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise MemError(os_failure(exc, "open", candidate)) from None
    try:
        try:
            view = memoryview(owner)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        _unlink(candidate)
        raise MemError(os_failure(exc, "write", candidate)) from None
    except BaseException:
        _unlink(candidate)
        raise
    return candidate


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _remove_orphans(lock_path: str) -> None:
    """Remove what killed writers left beside the lock: stale locks renamed
    aside, and candidate lock files older than a minute (held by the lock)."""
    directory, name = os.path.split(lock_path)
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if entry.startswith(_LOCKED_WRITES) and entry.endswith(".tmp"):
            # an atomic replace of a file only ever written under this lock:
            # its temporary file is an orphan once the lock is ours
            path = os.path.join(directory, entry)
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    _unlink(path)
            except OSError:
                pass
            continue
        if not entry.startswith(name + "."):
            continue
        rest = entry[len(name) :]
        path = os.path.join(directory, entry)
        if rest.startswith(".stale-"):
            _unlink(path)
        elif rest.endswith(".tmp"):
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and (now - st.st_mtime > _ORPHAN_SECONDS or _dead(rest)):
                _unlink(path)


def _dead(rest: str) -> bool:
    """Whether the candidate ``.<pid>-<token>.tmp`` belongs to a process that
    is not running (on this host: a writer of another host sharing the folder
    recreates its candidate if it vanishes)."""
    pid_text = rest[1:].partition("-")[0]
    if not pid_text.isdigit() or int(pid_text) <= 0:
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _acquire_file(root: str, deadline: float) -> tuple[str, bytes]:
    """Create the lock file (waiting until ``deadline``); its path and content.

    The owner is written to a candidate file first and linked into place, so
    the lock is never visible empty. A provably stale lock is taken over at
    once (:func:`_take_over`), with one notice; a lock of another host or of a
    live owner is waited for, then :data:`LOCKED`."""
    lock_path = safe_file(root, LOCK)
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    except OSError as exc:
        raise MemError(os_failure(exc, "mkdir", os.path.dirname(lock_path))) from None
    owner = jsonfmt.dumps({"pid": os.getpid(), "hostname": hostname(), "token": new_token()}).encode("utf-8")
    candidate = _write_candidate(lock_path, owner)
    try:
        while True:
            try:
                os.link(candidate, lock_path)
                break
            except FileExistsError:
                pass
            except FileNotFoundError:  # removed as an orphan by another host's writer
                _unlink(candidate)
                candidate = _write_candidate(lock_path, owner)
                continue
            except OSError as exc:
                raise MemError(os_error_message(exc, "link", lock_path)) from None
            found = read_owner(lock_path)
            if found is None:
                continue  # released meanwhile
            pid = stale_pid(found[1], found[2])
            if pid is not None:
                if _take_over(lock_path, found[2]):
                    say(TOOK_OVER.format(pid=pid))
                continue
            if time.monotonic() >= deadline:
                raise MemError(LOCKED) from None
            time.sleep(LOCK_RETRY_SECONDS)
    finally:
        _unlink(candidate)
    _remove_orphans(lock_path)
    return lock_path, owner


def _release_file(root: str, owner: bytes) -> None:
    """Remove the lock file if it still holds ``owner`` — never a file that
    someone else replaced it with."""
    try:
        lock_path = safe_file(root, LOCK)
        found = read_owner(lock_path)
        if found is not None and found[0] == owner:
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
