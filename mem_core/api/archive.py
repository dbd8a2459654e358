"""``mem archive``: move the oldest whole lines of the journal or the
promotions store to ``.bmad/memory/archive/<store>-<first ts>-<last ts>.ndjson``
before the store reaches its 2 MiB limit (docs/contract.md §8), so that a team never
has to choose between a full store and forgetting. ``mem recall`` reads the
archived journal events too (:mod:`mem_plugins.sources.journal`); the
reference ``bmad-plus mem`` keeps reading the live files only.

Every step holds the writer lock, and a crash at any moment loses and
duplicates nothing:

1. the lines to move are written to a temporary file in the archive folder
   and fsynced;
2. the temporary file is hard-linked to its final name (``link`` never
   replaces a file) and removed, and the folder fsynced;
3. the live store is replaced atomically (temporary file, fsync, rename) by
   the lines it keeps.

A run killed before 2 leaves a temporary file: the next run removes it (the
store still holds every line). A run killed between 2 and 3 leaves an
archive whose bytes are exactly the beginning of the live store: the next
run (and ``mem doctor``, through :func:`check`) recognises it by that — the
archive names no line twice otherwise, for a live store never starts with
the very lines an earlier archive holds — and finishes the cut instead of
archiving the lines again; until then ``recall`` leaves such an archive out,
so no event counts twice.

The outcome store is never archived: its receipts refer to each other, and
the contract keeps it at 1 000 receipts (``check`` reports how close it is).
"""

from __future__ import annotations

import os
import re
from typing import Any

from mem_core.errors import MemError
from mem_core.files import JOURNAL, MAX_BYTES, MEMORY_DIR, OUTCOMES, PROMOTIONS, read_text, safe_file, writer_lock
from mem_core.files.io import fsync_dir, replace_bytes, write_all
from mem_core.files.lock import new_token
from mem_core.kernel import Kernel

__all__ = [
    "ARCHIVE_DIR",
    "STORES",
    "THRESHOLD_BYTES",
    "DEFAULT_KEEP_BYTES",
    "ArchiveResult",
    "archive",
    "archived_files",
    "check",
]

#: the folder of the archives, project-relative
ARCHIVE_DIR = MEMORY_DIR + "/archive"
#: the stores that can be archived: name -> project-relative path
STORES: dict[str, str] = {"journal": JOURNAL, "promotions": PROMOTIONS}
#: without ``--keep``, a store is archived only when it holds more than this (75 % of 2 MiB)
THRESHOLD_BYTES = MAX_BYTES * 3 // 4
#: without ``--keep``, an archived store keeps its newest lines up to this (1 MiB)
DEFAULT_KEEP_BYTES = MAX_BYTES // 2
#: the outcome receipts the contract keeps (docs/contract.md §6)
OUTCOME_RECEIPTS = 1000

_NOT_STAMP = re.compile(r"[^0-9A-Za-z]")


class ArchiveResult:
    """What ``archive`` did, store by store: ``{"store", "archived_lines",
    "archived_bytes", "kept_lines", "kept_bytes", "file", "completed"}``
    (``file``: the new archive, project-relative, or ``None``; ``completed``:
    the archive of an interrupted run whose cut this run finished, or
    ``None``)."""

    def __init__(self, stores: list[dict[str, Any]]) -> None:
        self.stores = stores

    def to_json(self) -> dict[str, Any]:
        return {"archived": self.stores}


def archive(
    *,
    store: str | None = None,
    keep: str | int | None = None,
    directory: str | None = None,
    kernel: Kernel | None = None,
) -> ArchiveResult:
    """Archive the journal and the promotions store (or only ``store``): each
    one over :data:`THRESHOLD_BYTES` keeps its newest whole lines up to
    :data:`DEFAULT_KEEP_BYTES`; with ``keep`` (bytes), the store keeps at
    most that much whatever its size (``0``: everything is archived). An
    interrupted earlier run is finished first (see the module's docstring)."""
    from mem_core.project import find_project

    names = list(STORES) if store is None else [_store_name(store)]
    keep_bytes = None if keep is None else _parse_keep(keep)
    project = find_project(directory)
    with writer_lock(project):
        return ArchiveResult([_archive_one(project, name, keep_bytes) for name in names])


def archived_files(project: str, store: str = "journal") -> list[str]:
    """The archives of ``store`` (file names in :data:`ARCHIVE_DIR`), oldest
    first; ``[]`` when there is no archive folder."""
    folder = os.path.join(project, ARCHIVE_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(n for n in names if n.startswith(store + "-") and n.endswith(".ndjson"))


def check(project: str) -> list[dict[str, str]]:
    """For ``mem doctor``: an interrupted archive run (``warn``; ``mem
    archive`` finishes it), orphaned archive temporary files, and how close
    the outcome store is to its 1 000 receipts (it is never archived)."""
    checks: list[dict[str, str]] = []
    for name, relative in STORES.items():
        try:
            text = read_text(project, relative, missing=True) or ""
            pending = _pending(project, name, text.encode("utf-8"))
        except MemError as exc:
            checks.append({"name": f"archive {name}", "status": "error", "detail": exc.message})
            continue
        if pending is not None:
            checks.append(
                {
                    "name": f"archive {name}",
                    "status": "warn",
                    "detail": f"{ARCHIVE_DIR}/{pending} holds the first lines of {relative} still "
                    "(an interrupted mem archive): run mem archive to finish it",
                }
            )
        orphans = _orphans(project, name)
        if orphans:
            checks.append(
                {
                    "name": f"archive {name}",
                    "status": "warn",
                    "detail": f"{len(orphans)} temporary archive file(s) of an interrupted mem archive in "
                    f"{ARCHIVE_DIR}: mem archive removes them",
                }
            )
    try:
        outcomes = read_text(project, OUTCOMES, missing=True) or ""
    except MemError as exc:
        checks.append({"name": "outcomes receipts", "status": "error", "detail": exc.message})
    else:
        count = sum(1 for line in outcomes.split("\n") if line.strip())
        status = "ok" if count < OUTCOME_RECEIPTS * 9 // 10 else "warn"
        checks.append(
            {
                "name": "outcomes receipts",
                "status": status,
                "detail": f"{count} of {OUTCOME_RECEIPTS} receipts (the outcome store is never archived)",
            }
        )
    return checks


# -- steps ----------------------------------------------------------------------


def _store_name(store: str) -> str:
    if store in STORES:
        return store
    if store == "outcomes":
        raise MemError(
            "the outcome store is never archived: its receipts refer to each other (it keeps at most "
            f"{OUTCOME_RECEIPTS}); archive journal or promotions"
        )
    shown = store.encode("unicode_escape").decode("ascii")
    raise MemError(f"unknown store '{shown}' for --store (one of: {', '.join(STORES)})")


def _parse_keep(keep: str | int) -> int:
    text = str(keep)
    if not re.fullmatch(r"[0-9]{1,10}", text):
        shown = text.encode("unicode_escape").decode("ascii")
        raise MemError(f"--keep must be a number of bytes (0 to {MAX_BYTES}), not '{shown}'")
    return min(int(text), MAX_BYTES)


def _archive_one(project: str, name: str, keep: int | None) -> dict[str, Any]:
    relative = STORES[name]
    text = read_text(project, relative, missing=True)
    data = b"" if text is None else text.encode("utf-8")
    for orphan in _orphans(project, name):
        try:
            os.unlink(orphan)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise MemError(f"Cannot remove {orphan}: {exc.strerror}.") from None
    completed = _pending(project, name, data)
    if completed is not None:  # an interrupted run: its archive holds these lines
        done = os.path.getsize(safe_file(project, f"{ARCHIVE_DIR}/{completed}"))
        data = data[done:]
        _replace(project, relative, data)
    result: dict[str, Any] = {
        "store": name,
        "archived_lines": 0,
        "archived_bytes": 0,
        "kept_lines": data.count(b"\n"),
        "kept_bytes": len(data),
        "file": None,
        "completed": None if completed is None else f"{ARCHIVE_DIR}/{completed}",
    }
    if data and not data.endswith(b"\n"):
        raise MemError(f"{relative} has an incomplete final line; run mem doctor --fix before archiving it")
    if keep is None:
        if len(data) <= THRESHOLD_BYTES:
            return result
        keep = DEFAULT_KEEP_BYTES
    cut = _cut(data, keep)
    if cut == 0:
        return result
    moved, kept = data[:cut], data[cut:]
    file = _write_archive(project, name, moved)
    _replace(project, relative, kept)
    result.update(
        archived_lines=moved.count(b"\n"),
        archived_bytes=len(moved),
        kept_lines=kept.count(b"\n"),
        kept_bytes=len(kept),
        file=f"{ARCHIVE_DIR}/{file}",
    )
    return result


def _cut(data: bytes, keep: int) -> int:
    """Where the kept tail starts: at a line start, the longest tail of
    whole lines of at most ``keep`` bytes."""
    start = len(data) - keep
    if start <= 0:
        return 0
    newline = data.find(b"\n", start - 1)
    return len(data) if newline < 0 else newline + 1


def _stamp(line: bytes) -> str:
    """The ``ts`` of a line, for a file name (letters and digits only), or ``""``."""
    import json

    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return ""
    ts = value.get("ts") if isinstance(value, dict) else None
    return _NOT_STAMP.sub("", ts)[:40] if isinstance(ts, str) else ""


def _range(moved: bytes) -> tuple[str, str]:
    lines = [line for line in moved.split(b"\n") if line.strip()]
    first = next((s for s in map(_stamp, lines) if s), "unknown")
    last = next((s for s in map(_stamp, reversed(lines)) if s), "unknown")
    return first, last


def _folder(project: str) -> str:
    folder = safe_file(project, ARCHIVE_DIR)
    try:
        os.mkdir(folder)
    except FileExistsError:
        if not os.path.isdir(folder) or os.path.islink(folder):
            raise MemError(f"{ARCHIVE_DIR} is not a folder; move it away to archive.") from None
    except OSError as exc:
        raise MemError(f"Cannot create {folder}: {exc.strerror}.") from None
    return folder


def _write_archive(project: str, name: str, moved: bytes) -> str:
    """Steps 1 and 2: the new archive file, complete and fsynced, under a
    name no other archive has; its file name."""
    folder = _folder(project)
    first, last = _range(moved)
    base = f"{name}-{first}-{last}"
    temporary = safe_file(project, f"{ARCHIVE_DIR}/.{base}.{new_token()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            write_all(fd, moved)
            os.fsync(fd)
        finally:
            os.close(fd)
        for n in range(1, 10_000):
            file = f"{base}.ndjson" if n == 1 else f"{base}-{n}.ndjson"
            try:
                os.link(temporary, safe_file(project, f"{ARCHIVE_DIR}/{file}"))
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - ten thousand archives of the same instants
            raise MemError(f"Too many archives named {base} in {ARCHIVE_DIR}.")
        os.unlink(temporary)
        fsync_dir(folder)
    except OSError as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        from mem_core.files import os_error_message

        raise MemError(os_error_message(exc, "write", temporary)) from None
    return file


def _replace(project: str, relative: str, data: bytes) -> None:
    """Step 3: the live store with only its kept lines, atomically."""
    try:
        replace_bytes(project, relative, data)
    except OSError as exc:
        from mem_core.files import os_error_message

        raise MemError(os_error_message(exc, "write", safe_file(project, relative))) from None


def _pending(project: str, name: str, data: bytes) -> str | None:
    """The archive of an interrupted run: one whose bytes are exactly the
    beginning of the live store ``data`` (see the module's docstring)."""
    if not data:
        return None
    for file in archived_files(project, name):
        relative = f"{ARCHIVE_DIR}/{file}"
        path = safe_file(project, relative)
        try:
            size = os.path.getsize(path)
        except OSError:
            continue
        if 0 < size <= len(data):
            held = read_text(project, relative)
            if held and data.startswith(held.encode("utf-8")):
                return file
    return None


def _orphans(project: str, name: str) -> list[str]:
    folder = os.path.join(project, ARCHIVE_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, n) for n in sorted(names) if n.startswith(f".{name}-") and n.endswith(".tmp")]
