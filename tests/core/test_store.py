"""Store safety, limits and the writer lock (mem-cli.md §8), on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mem_core.errors import MemError
from mem_core.files import store


@pytest.mark.parametrize(
    "relative",
    ["", "/etc/passwd", "a//b", "./a", "a/../b", "a/.", "c:x", "a\\..\\b", "..", "a/"],
)
def test_paths_must_be_normalized_and_project_relative(project: Path, relative: str) -> None:
    with pytest.raises(MemError, match=r"^Memory path must be a normalized project-relative path\.$"):
        store.safe_file(str(project), relative)


def test_no_component_may_be_a_symbolic_link(project: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / ".bmad").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(MemError, match="^Memory paths cannot follow symbolic links or junctions.$"):
        store.safe_file(str(project), ".bmad/memory/journal.ndjson")


def test_a_symlinked_project_directory_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(MemError, match="symbolic links"):
        store.safe_file(str(tmp_path / "link"), "notes.md")


def test_a_file_as_parent_is_refused(project: Path) -> None:
    (project / ".bmad").write_text("not a directory")
    with pytest.raises(MemError, match="^Memory parent is not a directory.$"):
        store.safe_file(str(project), ".bmad/memory/journal.ndjson")


def test_read_limits(project: Path) -> None:
    big = project / "big.md"
    big.write_bytes(b"a" * (store.MAX_BYTES + 1))
    with pytest.raises(MemError, match=r"^Memory source must be a regular file of at most 2 MiB\.$"):
        store.read_text(str(project), "big.md")
    big.write_bytes(b"a" * store.MAX_BYTES)
    assert len(store.read_text(str(project), "big.md") or "") == store.MAX_BYTES
    (project / "dir.md").mkdir()
    with pytest.raises(MemError, match="regular file"):
        store.read_text(str(project), "dir.md")
    (project / "latin1.md").write_bytes("café".encode("latin-1"))
    with pytest.raises(MemError, match=r"^Memory source must contain valid UTF-8\.$"):
        store.read_text(str(project), "latin1.md")
    assert store.read_text(str(project), "missing.md", missing=True) is None
    with pytest.raises(MemError, match="^ENOENT: no such file or directory, stat '.*missing.md'$"):
        store.read_text(str(project), "missing.md")


def test_append_checks_size_first_then_the_final_newline(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b'{"a":1}')  # no final newline
    with pytest.raises(MemError, match="^Memory store has an incomplete final line; inspect it before writing.$"):
        store.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})
    assert journal.read_bytes() == b'{"a":1}'
    journal.write_bytes(b"x" * (store.MAX_BYTES - 5))  # also incomplete: size wins
    with pytest.raises(MemError, match="^Memory store is full; archive it explicitly before adding records.$"):
        store.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})


def test_append_fills_exactly_to_the_limit(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "log.ndjson"
    journal.parent.mkdir(parents=True)
    line = b'{"b":2}\n'
    journal.write_bytes(b"x" * (store.MAX_BYTES - len(line) - 1) + b"\n")
    store.append_record(str(project), ".bmad/memory/log.ndjson", {"b": 2})
    assert journal.stat().st_size == store.MAX_BYTES
    with pytest.raises(MemError, match="full"):
        store.append_record(str(project), ".bmad/memory/log.ndjson", {"b": 2})


def test_a_corrupt_line_that_ends_with_newline_does_not_block_appends(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b"{torn\n")
    store.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})
    assert journal.read_bytes() == b'{torn\n{"b":2}\n'


def test_write_json_is_atomic_indented_and_leaves_no_temp_file(project: Path) -> None:
    store.write_json(str(project), ".bmad/memory/scores.json", {"p": {"elo": 1216.0, "lastTs": None}})
    target = project / ".bmad" / "memory" / "scores.json"
    assert target.read_bytes() == b'{\n  "p": {\n    "elo": 1216,\n    "lastTs": null\n  }\n}\n'
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.json"]


def test_write_json_refuses_over_2_mib_and_keeps_the_old_file(project: Path) -> None:
    store.write_json(str(project), ".bmad/memory/scores.json", {"ok": True})
    before = (project / ".bmad/memory/scores.json").read_bytes()
    with pytest.raises(MemError, match=r"^Memory store exceeds 2 MiB\.$"):
        store.write_json(str(project), ".bmad/memory/scores.json", {"x": "y" * store.MAX_BYTES})
    assert (project / ".bmad/memory/scores.json").read_bytes() == before


def test_the_lock_file_holds_its_owner_and_is_removed_after(project: Path) -> None:
    lock = project / ".bmad" / "memory" / "writer.lock"
    with store.writer_lock(str(project)):
        owner = json.loads(lock.read_text())
        assert list(owner) == ["pid", "hostname", "token"]
        assert owner["pid"] == os.getpid()
        with store.writer_lock(str(project)):  # re-entrant in one process
            pass
        assert lock.exists()
    assert not lock.exists()


def test_a_lock_replaced_by_someone_else_is_not_removed(project: Path) -> None:
    lock = project / ".bmad" / "memory" / "writer.lock"
    with store.writer_lock(str(project)):
        lock.write_text('{"pid":1,"hostname":"other","token":"t"}')
    assert lock.read_text() == '{"pid":1,"hostname":"other","token":"t"}'


def _hold_lock(project: Path) -> subprocess.Popen[bytes]:
    code = (
        "import sys,time; from mem_core.files import store\n"
        "with store.writer_lock(sys.argv[1]):\n"
        "    print('held', flush=True); time.sleep(30)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(project)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    return proc


def test_a_live_lock_held_by_another_process_fails_after_about_two_seconds(project: Path) -> None:
    holder = _hold_lock(project)
    try:
        started = time.monotonic()
        with pytest.raises(MemError) as caught:
            with store.writer_lock(str(project)):
                pass
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    assert caught.value.message == store.LOCKED
    assert 1.9 <= waited < 6


def test_a_stale_lock_of_a_dead_process_on_this_host_is_named(project: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = project / ".bmad" / "memory" / "writer.lock"
    lock.parent.mkdir(parents=True)
    content = json.dumps({"pid": dead.pid, "hostname": store.hostname(), "token": "x"})
    lock.write_text(content)
    with pytest.raises(MemError) as caught:
        with store.writer_lock(str(project)):
            pass
    assert caught.value.message == f"{store.LOCKED} (owner pid {dead.pid} on this host is not running)"
    assert lock.read_text() == content  # refused, never removed
