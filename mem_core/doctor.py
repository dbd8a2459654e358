"""``mem doctor``: what is wrong with a project's memory, and the repairs that
are provably safe (the store's rules: docs/contract.md §8).

Each check is a :class:`Check` (name, status ``ok``/``warn``/``error``/
``fixed``, detail). With ``fix``, the writer lock is taken through the normal
path — which takes over a provably stale lock — and, under it, a torn final
line of an NDJSON store is moved to ``<store>.torn-<ts>`` with the store cut
back to its last whole line, and temporary files of killed writers are
removed. A live lock, or one of another host, is explained and left.

Nothing is created: a project without ``.bmad/memory`` is reported, not made.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

__all__ = ["Check", "DoctorReport", "doctor", "OK", "WARN", "ERROR", "FIXED"]

OK, WARN, ERROR, FIXED = "ok", "warn", "error", "fixed"
STATUSES = (OK, WARN, ERROR, FIXED)
#: a store this full is a warning: archive it before it refuses appends
NEAR_FULL = 0.9
#: the outcome store's record limit (docs/contract.md §5)
MAX_RECEIPTS = 1000
#: temporary files of atomic writes older than this are orphans (a live
#: writer's lasts milliseconds; the brief writes one without the lock)
ORPHAN_SECONDS = 60.0


class Check:
    """One line of the report."""

    __slots__ = ("name", "status", "detail")

    def __init__(self, name: str, status: str, detail: str) -> None:
        assert status in STATUSES
        self.name = name
        self.status = status
        self.detail = detail

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


class DoctorReport:
    """Every check, in order; :attr:`ok` when none is an error (after fixes)."""

    def __init__(self, project: str, checks: list[Check], fix: bool) -> None:
        self.project = project
        self.checks = checks
        self.fix = fix

    @property
    def ok(self) -> bool:
        return all(check.status != ERROR for check in self.checks)

    @property
    def fixed(self) -> list[Check]:
        return [check for check in self.checks if check.status == FIXED]

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "ok": self.ok,
            "fix": self.fix,
            "checks": [check.to_json() for check in self.checks],
        }


def size_text(size: int) -> str:
    """``1.8 MiB``, ``12.0 KiB``, ``0 bytes``."""
    if size >= 100 * 1024:
        return f"{size / 1024 / 1024:.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


def age_text(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


# -- the writer lock ------------------------------------------------------------


def _lock_check(project: str) -> tuple[Check, bool]:
    """The lock's check, and whether it is provably stale."""
    from mem_core.files import LOCK, safe_file
    from mem_core.files.lock import hostname, read_owner, stale_pid

    name = "lock"
    try:
        path = safe_file(project, LOCK)
        found = read_owner(path)
    except MemError as exc:
        return Check(name, ERROR, f"{exc.message} (writer.lock: inspect it by hand)"), False
    if found is None:
        return Check(name, OK, "none"), False
    data, owner, st = found
    age = age_text(time.time() - st.st_mtime)
    if not isinstance(owner, dict):
        what = "is empty" if not data else "does not name its owner"
        return (
            Check(
                name,
                ERROR,
                f"writer.lock {what} (age {age}); not provably stale, so left: "
                "remove it by hand once no mem or bmad-plus mem process is writing",
            ),
            False,
        )
    pid, host = owner.get("pid"), owner.get("hostname")
    stale = stale_pid(owner, st)
    if stale is not None:
        return Check(name, ERROR, f"stale: owner pid {stale} on this host is not running (age {age})"), True
    if host == hostname():
        return Check(name, WARN, f"held by pid {pid} on this host, which is running (age {age}); left alone"), False
    return (
        Check(
            name,
            WARN,
            f"held by pid {pid} on host {host!s} (age {age}); another host's process cannot be checked from "
            "here, so it is left alone",
        ),
        False,
    )


# -- the NDJSON stores -------------------------------------------------------------


def _size_check(label: str, size: int, limit: int) -> Check | None:
    from mem_core.files import MAX_BYTES

    if size > limit:
        return Check(label, ERROR, f"{size_text(size)} is over the 2 MiB limit")
    if size >= NEAR_FULL * MAX_BYTES:
        return Check(label, WARN, f"{size_text(size)} of 2 MiB: archive it before it refuses appends")
    return None


def _torn_name(path: str, now: str) -> str:
    stamp = now.replace(":", "-")
    candidate = f"{path}.torn-{stamp}"
    n = 1
    while os.path.lexists(candidate):
        candidate = f"{path}.torn-{stamp}-{n}"
        n += 1
    return candidate


def _cut_torn(path: str, data: bytes, now: str) -> str:
    """Move the torn final line of ``path`` (holding ``data``) to
    ``<store>.torn-<ts>`` and cut the store back to its last whole line; the
    caller holds the writer lock. The tail is saved (fsynced) before the cut."""
    from mem_core.files.io import open_regular, write_all

    keep = data.rfind(b"\n") + 1
    tail = data[keep:]
    torn = _torn_name(path, now)
    fd = os.open(torn, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        write_all(fd, tail)
        os.fsync(fd)
    finally:
        os.close(fd)
    fd = open_regular(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, keep)
        os.fsync(fd)
    finally:
        os.close(fd)
    return torn


def _store_checks(project: str, relative: str, fix: bool, now: str) -> list[Check]:
    from mem_core.files import MAX_BYTES, safe_file
    from mem_core.files.io import read_bytes
    from mem_core.js.jsonfmt import JSONError, loads

    label = os.path.basename(relative)
    try:
        path = safe_file(project, relative)
        data = read_bytes(path, limit=64 * MAX_BYTES)
    except MemError as exc:
        return [Check(label, ERROR, exc.message)]
    if data is None:
        return [Check(label, OK, "absent")]
    checks = []
    size = _size_check(label, len(data), MAX_BYTES)
    if size is not None:
        checks.append(size)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [*checks, Check(label, ERROR, "holds malformed UTF-8: appends are refused; inspect it")]
    lines = text.split("\n")
    whole = lines[:-1]
    corrupt = 0
    records = 0
    for line in whole:
        if not line.strip(" \t\r"):
            continue
        records += 1
        try:
            loads(line)
        except JSONError:
            corrupt += 1
    if lines[-1]:
        if fix:
            try:
                torn = _cut_torn(path, data, now)
            except (OSError, MemError) as exc:
                message = exc.message if isinstance(exc, MemError) else f"{exc.strerror or exc}"
                checks.append(Check(label, ERROR, f"incomplete final line; could not repair it: {message}"))
            else:
                checks.append(
                    Check(
                        label,
                        FIXED,
                        f"incomplete final line ({len(lines[-1].encode('utf-8'))} bytes) moved to "
                        f"{os.path.basename(torn)}; the store ends at its last whole line",
                    )
                )
        else:
            checks.append(
                Check(
                    label,
                    ERROR,
                    f"incomplete final line ({len(lines[-1].encode('utf-8'))} bytes): appends are refused; "
                    "`mem doctor --fix` moves it aside",
                )
            )
    if corrupt:
        checks.append(Check(label, WARN, f"{corrupt} of {records} line(s) are not JSON (skipped when read)"))
    if relative.endswith("outcomes.ndjson") and records >= NEAR_FULL * MAX_RECEIPTS:
        status = ERROR if records > MAX_RECEIPTS else WARN
        checks.append(Check(label, status, f"{records} of {MAX_RECEIPTS} receipts"))
    if not checks:
        checks.append(Check(label, OK, f"{records} record(s), {size_text(len(data))} of 2 MiB"))
    return checks


def _scores_check(project: str) -> Check:
    from mem_core.api.reinforce import read_scores
    from mem_core.files import MAX_BYTES, PATTERN_SCORES, safe_file

    label = "pattern-scores.json"
    try:
        if not os.path.lexists(safe_file(project, PATTERN_SCORES)):
            return Check(label, OK, "absent")
        scores = read_scores(project)
        size = os.stat(safe_file(project, PATTERN_SCORES)).st_size
    except MemError as exc:
        return Check(label, ERROR, exc.message)
    near = _size_check(label, size, MAX_BYTES)
    return near or Check(label, OK, f"{len(scores)} pattern(s), {size_text(size)} of 2 MiB")


def _orphans(project: str, older_than: float = ORPHAN_SECONDS) -> list[str]:
    """Temporary files and lock candidates killed writers left (older than
    ``older_than`` seconds: a live writer's are younger)."""
    from mem_core.files import MEMORY_DIR
    from mem_core.files.io import old_files, orphans

    directory = os.path.join(project, MEMORY_DIR)
    found = orphans(directory, older_than=older_than)
    # and what a killed writer left beside the lock
    found += old_files(directory, lambda entry: entry.startswith("writer.lock."), older_than=older_than)
    return sorted(found)


# -- backend, plugins, adapters -------------------------------------------------------


def _backend_checks(settings: Settings, kernel: Kernel, fix: bool) -> list[Check]:
    from mem_core.api.backend import choose_store
    from mem_core.memories.records import project_store_dir

    directory = project_store_dir(settings.project)
    try:
        backend = choose_store(settings, kernel.stores, directory)
    except MemError as exc:
        return [Check("backend", ERROR, exc.message)]
    name = getattr(backend, "name", "?")
    checks = []
    if name == "postgres":
        variable = settings.postgres_dsn_env
        if settings.postgres_dsn():
            checks.append(Check("backend", OK, f"postgres (DSN in ${variable})"))
        else:
            checks.append(Check("backend", ERROR, f"postgres, but ${variable} is not set: the store cannot open"))
            return checks
    else:
        checks.append(Check("backend", OK, f"{name}" + ("" if backend.exists(directory) else " (no store yet)")))
    if not backend.exists(directory):
        return checks
    try:
        # read-only: a foreign or newer database is reported, never migrated;
        # the store's own doctor opens for writing only to repair (--fix)
        with backend.open_read_only(directory) as store:
            method = getattr(store, "doctor", None)
            if callable(method):
                for row in method(fix):
                    checks.append(_store_row(row))
    except MemError as exc:
        checks.append(Check("memories", ERROR, exc.message))
    except Exception as exc:  # a store's own failure is a finding, not a crash
        checks.append(Check("memories", ERROR, f"{type(exc).__name__}: {exc}"))
    return checks


def _archive_checks(project: str) -> list[Check]:
    """An interrupted ``mem archive``, its temporary files, and how close the
    outcome store (never archived) is to its limit."""
    from mem_core.api.archive import check

    return [_store_row(row) for row in check(project)]


def _store_row(row: Any) -> Check:
    if not isinstance(row, dict):
        return Check("memories", ERROR, f"the store's doctor returned {row!r}")
    status = row.get("status")
    return Check(
        str(row.get("name", "memories")),
        status if status in STATUSES else ERROR,
        str(row.get("detail", "")),
    )


def _settings_checks(settings: Settings, kernel: Kernel) -> list[Check]:
    """Settings that make commands fail (a ranking no plugin registers …)."""
    from mem_core.api.configure import setting_problems

    problems = setting_problems(settings, kernel)
    return [Check("settings", ERROR, problem) for problem in problems] or [Check("settings", OK, "every value usable")]


def _recall_checks(settings: Settings) -> list[Check]:
    """What recall ranks with, and for ``hybrid`` whether it can: the
    extra, the embedding index, and whether the prompt hook is served
    ``hybrid`` now or ranks ``bm25`` itself (docs/recall.md)."""
    ranking = settings.get("recall_ranking")
    if settings.layer("recall_ranking") == "default":
        origin = "the default, as bmad-plus mem ranks; `mem init` writes the best ranking installed"
    else:
        origin = f"from {settings.where('recall_ranking')}"
    checks = [Check("recall", OK, f"ranking {ranking} ({origin})")]
    if ranking != "hybrid":
        return checks
    from mem_core.embeddings import MISSING, missing

    if missing():
        return [Check("recall", WARN, MISSING.removeprefix("mem: "))]
    import contextlib
    import sqlite3

    from mem_core.embeddings.store import index_path

    path = index_path(settings.cache_dir, settings.project)
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
        checks.append(Check("embedding index", OK, f"{count} vector(s) in {path}"))
    except sqlite3.Error:
        checks.append(
            Check(
                "embedding index", OK, "not built yet: the first hybrid recall builds it (with progress on a terminal)"
            )
        )
    from mem_core.hooks.service import serving

    if serving(settings.project):
        checks.append(Check("prompt hook", OK, "ranks hybrid, served by a running mem mcp"))
    else:
        checks.append(
            Check(
                "prompt hook",
                OK,
                "ranks bm25: no mem mcp serves hybrid for this project now (an assistant's session runs one; "
                "it serves once its warm ranking of a prompt takes at most 50 ms)",
            )
        )
    return checks


def _plugin_checks(kernel: Kernel) -> list[Check]:
    from mem_core.kernel.report import plugins_report

    try:
        report = plugins_report(kernel)
    except MemError as exc:
        return [Check("plugins", ERROR, exc.message)]
    checks = [Check("plugins", ERROR, problem) for problem in report.problems]
    broken = [row for row in report.plugins if row["error"]]
    for row in broken:
        checks.append(Check(f"plugin {row['name']}", ERROR, str(row["error"])))
    if not checks:
        checks.append(Check("plugins", OK, f"{len(report.plugins)} loaded, none broken"))
    return checks


def _adapter_checks(project: str, kernel: Kernel) -> list[Check]:
    from mem_core.api.adapters import adapters_status

    try:
        report = adapters_status(project, kernel=kernel)
    except MemError as exc:
        return [Check("adapters", WARN, exc.message)]
    rows = getattr(report, "rows", None)
    if rows is None:
        rows = report.to_json().get("adapters", [])
    checks = []
    for row in rows:
        command = row.get("command")
        if command and command["problem"]:
            checks.append(
                Check(
                    f"adapter {row['name']}",
                    ERROR,
                    f"its command `{command['line']} --version` does not run ({command['problem']}): {command['fix']}",
                )
            )
        checks += [Check(f"adapter {row['name']}", ERROR, problem) for problem in row.get("problems", [])]
        missing = row.get("missing") or []
        if row.get("installed") == "yes" and not missing:
            checks.append(Check(f"adapter {row['name']}", OK, "installed"))
        else:
            what = f"missing {', '.join(missing)}" if missing else str(row.get("installed"))
            checks.append(
                Check(
                    f"adapter {row['name']}",
                    WARN,
                    f"installed in part ({what}): `mem adapters install {row['name']}` completes it",
                )
            )
    return checks or [Check("adapters", OK, "none installed")]


# -- the whole -----------------------------------------------------------------------


def doctor(directory: str | None = None, *, fix: bool = False, kernel: Kernel | None = None) -> DoctorReport:
    """Check the project's memory (see the module's docstring); with ``fix``,
    repair what is provably safe and report it as ``fixed``."""
    from mem_core.clock import now_iso
    from mem_core.files import JOURNAL, LOCK, MEMORY_DIR, OUTCOMES, PROMOTIONS, safe_file, writer_lock
    from mem_core.files import lock as lock_module
    from mem_core.kernel import resolve

    now = now_iso()
    kernel, settings = resolve(directory, kernel)
    project = settings.project
    checks: list[Check] = []
    lock_check, stale = _lock_check(project)
    stores = (JOURNAL, PROMOTIONS, OUTCOMES)
    memory_dir = os.path.join(project, MEMORY_DIR)
    can_lock = lock_check.status == OK or stale
    if fix and os.path.isdir(memory_dir) and can_lock:
        silenced = lock_module.set_notifier(lambda text: None)
        left = _orphans(project, 0.0)  # taking the lock removes some of them
        try:
            with writer_lock(project):
                if stale:
                    lock_check = Check("lock", FIXED, lock_check.detail.replace("stale:", "stale lock taken over:"))
                checks.append(lock_check)
                for relative in stores:
                    checks.extend(_store_checks(project, relative, True, now))
                checks.append(_scores_check(project))
                for path in _orphans(project):
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
                removed = [path for path in left if not os.path.lexists(path)]
                if removed:
                    names = ", ".join(os.path.basename(p) for p in removed)
                    checks.append(Check("temporary files", FIXED, f"removed {len(removed)} orphan(s): {names}"))
                else:
                    checks.append(Check("temporary files", OK, "none left over"))
        except MemError as exc:
            checks = [lock_check]
            for relative in stores:
                checks.extend(_store_checks(project, relative, False, now))
            checks.append(_scores_check(project))
            checks.append(Check("repairs", ERROR, f"not made: {exc.message}"))
        finally:
            lock_module.set_notifier(silenced)
    else:
        checks.append(lock_check)
        if not os.path.isdir(memory_dir):
            try:
                safe_file(project, LOCK)
                checks.append(Check(MEMORY_DIR, OK, "absent (nothing written yet)"))
            except MemError as exc:
                checks.append(Check(MEMORY_DIR, ERROR, exc.message))
        for relative in stores:
            checks.extend(_store_checks(project, relative, False, now))
        checks.append(_scores_check(project))
        found = _orphans(project)
        if found:
            names = ", ".join(os.path.basename(p) for p in found)
            checks.append(
                Check("temporary files", WARN, f"{len(found)} left by killed writers ({names}); --fix removes them")
            )
        else:
            checks.append(Check("temporary files", OK, "none left over"))
        if fix and not can_lock and os.path.isdir(memory_dir):
            checks.append(Check("repairs", WARN, "none made: the writer lock is not provably stale (see lock)"))
        checks.extend(_archive_checks(project))
    checks.extend(_settings_checks(settings, kernel))
    checks.extend(_recall_checks(settings))
    checks.extend(_backend_checks(settings, kernel, fix))
    checks.extend(_plugin_checks(kernel))
    checks.extend(_adapter_checks(project, kernel))
    return DoctorReport(project, checks, fix)
