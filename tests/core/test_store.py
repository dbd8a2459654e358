"""Store safety, limits and the writer lock (docs/contract.md §8), on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mem_core import files
from mem_core.errors import MemError
from tests.conftest import writer_lock_held


@pytest.mark.parametrize(
    "relative",
    ["", "/etc/passwd", "a//b", "./a", "a/../b", "a/.", "c:x", "a\\..\\b", "..", "a/"],
)
def test_paths_must_be_normalized_and_project_relative(project: Path, relative: str) -> None:
    with pytest.raises(MemError, match=r"^Memory path must be a normalized project-relative path\.$"):
        files.safe_file(str(project), relative)


def test_no_component_may_be_a_symbolic_link(project: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / ".bmad").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(MemError, match="^Memory paths cannot follow symbolic links or junctions.$"):
        files.safe_file(str(project), ".bmad/memory/journal.ndjson")


def test_a_symlinked_project_directory_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(MemError, match="symbolic links"):
        files.safe_file(str(tmp_path / "link"), "notes.md")


def test_links_above_the_project_directory_are_the_users_choice(tmp_path: Path) -> None:
    """(improve, v0.2) macOS /tmp, a linked home or code folder: not refused."""
    (tmp_path / "real" / "project").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    path = files.safe_file(str(tmp_path / "link" / "project"), ".bmad/memory/journal.ndjson")
    assert path == str(tmp_path / "link" / "project" / ".bmad" / "memory" / "journal.ndjson")
    (tmp_path / "real" / "project" / ".bmad").symlink_to(tmp_path)
    with pytest.raises(MemError, match="^Memory paths cannot follow symbolic links or junctions.$"):
        files.safe_file(str(tmp_path / "link" / "project"), ".bmad/memory/journal.ndjson")


def test_a_file_as_parent_is_refused(project: Path) -> None:
    (project / ".bmad").write_text("not a directory")
    with pytest.raises(MemError, match="^Memory parent is not a directory.$"):
        files.safe_file(str(project), ".bmad/memory/journal.ndjson")


def test_read_limits(project: Path) -> None:
    big = project / "big.md"
    big.write_bytes(b"a" * (files.MAX_BYTES + 1))
    with pytest.raises(MemError, match=r"^Memory source must be a regular file of at most 2 MiB\.$"):
        files.read_text(str(project), "big.md")
    big.write_bytes(b"a" * files.MAX_BYTES)
    assert len(files.read_text(str(project), "big.md") or "") == files.MAX_BYTES
    (project / "dir.md").mkdir()
    with pytest.raises(MemError, match="regular file"):
        files.read_text(str(project), "dir.md")
    (project / "latin1.md").write_bytes("café".encode("latin-1"))
    with pytest.raises(MemError, match=r"^Memory source must contain valid UTF-8\.$"):
        files.read_text(str(project), "latin1.md")
    assert files.read_text(str(project), "missing.md", missing=True) is None
    with pytest.raises(MemError, match="^ENOENT: no such file or directory, stat '.*missing.md'$"):
        files.read_text(str(project), "missing.md")


def test_append_checks_size_first_then_the_final_newline(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b'{"a":1}')  # no final newline
    with pytest.raises(MemError, match="^Memory store has an incomplete final line; inspect it before writing.$"):
        files.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})
    assert journal.read_bytes() == b'{"a":1}'
    journal.write_bytes(b"x" * (files.MAX_BYTES - 5))  # also incomplete: size wins
    with pytest.raises(MemError, match="^Memory store is full; archive it explicitly before adding records.$"):
        files.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})


def test_append_fills_exactly_to_the_limit(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "log.ndjson"
    journal.parent.mkdir(parents=True)
    line = b'{"b":2}\n'
    journal.write_bytes(b"x" * (files.MAX_BYTES - len(line) - 1) + b"\n")
    files.append_record(str(project), ".bmad/memory/log.ndjson", {"b": 2})
    assert journal.stat().st_size == files.MAX_BYTES
    with pytest.raises(MemError, match="full"):
        files.append_record(str(project), ".bmad/memory/log.ndjson", {"b": 2})


def test_a_corrupt_line_that_ends_with_newline_does_not_block_appends(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b"{torn\n")
    files.append_record(str(project), ".bmad/memory/journal.ndjson", {"b": 2})
    assert journal.read_bytes() == b'{torn\n{"b":2}\n'


def test_write_json_is_atomic_indented_and_leaves_no_temp_file(project: Path) -> None:
    files.write_json(str(project), ".bmad/memory/scores.json", {"p": {"elo": 1216.0, "lastTs": None}})
    target = project / ".bmad" / "memory" / "scores.json"
    assert target.read_bytes() == b'{\n  "p": {\n    "elo": 1216,\n    "lastTs": null\n  }\n}\n'
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.json"]


def test_write_json_refuses_over_2_mib_and_keeps_the_old_file(project: Path) -> None:
    files.write_json(str(project), ".bmad/memory/scores.json", {"ok": True})
    before = (project / ".bmad/memory/scores.json").read_bytes()
    with pytest.raises(MemError, match=r"^Memory store exceeds 2 MiB\.$"):
        files.write_json(str(project), ".bmad/memory/scores.json", {"x": "y" * files.MAX_BYTES})
    assert (project / ".bmad/memory/scores.json").read_bytes() == before


def test_the_lock_file_holds_its_owner_and_is_removed_after(project: Path) -> None:
    lock = project / ".bmad" / "memory" / "writer.lock"
    with files.writer_lock(str(project)):
        owner = json.loads(lock.read_text())
        assert list(owner) == ["pid", "hostname", "token"]
        assert owner["pid"] == os.getpid()
        with files.writer_lock(str(project)):  # re-entrant in one process
            pass
        assert lock.exists()
    assert not lock.exists()


def test_a_lock_replaced_by_someone_else_is_not_removed(project: Path) -> None:
    lock = project / ".bmad" / "memory" / "writer.lock"
    with files.writer_lock(str(project)):
        lock.write_text('{"pid":1,"hostname":"other","token":"t"}')
    assert lock.read_text() == '{"pid":1,"hostname":"other","token":"t"}'


def test_a_live_lock_held_by_another_process_fails_after_about_two_seconds(project: Path) -> None:
    with writer_lock_held(project):
        started = time.monotonic()
        with pytest.raises(MemError) as caught:
            with files.writer_lock(str(project)):
                pass
        waited = time.monotonic() - started
    assert caught.value.message == files.LOCKED
    assert 1.9 <= waited < 6


def test_a_stale_lock_of_a_dead_process_on_this_host_is_taken_over(project: Path, capfd) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = project / ".bmad" / "memory" / "writer.lock"
    lock.parent.mkdir(parents=True)
    content = json.dumps({"pid": dead.pid, "hostname": files.hostname(), "token": "x"})
    lock.write_text(content)
    with files.writer_lock(str(project)):
        owner = json.loads(lock.read_text())
        assert owner["pid"] == os.getpid()
    assert not lock.exists()
    assert capfd.readouterr().err == (
        f"mem: took over a stale writer.lock (owner pid {dead.pid} on this host is not running)\n"
    )
    assert sorted(p.name for p in lock.parent.iterdir()) == []  # nothing set aside is left


def test_a_lock_of_another_host_or_a_live_owner_is_never_touched(project: Path) -> None:
    lock = project / ".bmad" / "memory" / "writer.lock"
    lock.parent.mkdir(parents=True)
    for owner in (
        {"pid": 4194303, "hostname": files.hostname() + "-other", "token": "x"},
        {"pid": os.getpid(), "hostname": files.hostname(), "token": "x"},  # alive, started before the lock
        {"pid": "1", "hostname": files.hostname(), "token": "x"},
    ):
        content = json.dumps(owner)
        lock.write_text(content)
        with pytest.raises(MemError) as caught:
            with files.writer_lock(str(project)):
                pass
        assert caught.value.message == files.LOCKED
        assert lock.read_text() == content


def test_a_lock_of_a_reused_pid_is_stale(project: Path) -> None:
    """The pid is running, but its process started after the lock was written."""
    lock = project / ".bmad" / "memory" / "writer.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"pid": 1, "hostname": files.hostname(), "token": "x"}))
    os.utime(lock, (0, 0))  # written in 1970: before any running process started
    with files.writer_lock(str(project)):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not lock.exists()


def test_the_layout_names_each_file_once() -> None:
    """No module but files/layout.py spells a path of the store: each uses the constant."""
    import ast

    layout = {getattr(files, name) for name in files.layout.__all__}
    root = Path(files.__file__).resolve().parents[2]
    spelled = []
    for package in ("mem_core", "mem_plugins", "mem_cli"):
        for path in (root / package).rglob("*.py"):
            if path == Path(files.layout.__file__).resolve():
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value in layout:
                    spelled.append(f"{path.relative_to(root)}:{node.lineno} {node.value}")
    assert spelled == []


def test_the_files_package_imports_nothing_heavy() -> None:
    code = "import sys, mem_core.files; print(sorted(m for m in ('threading', 'uuid', 'pydantic', 'sqlite3') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_component_checks_take_their_messages(project: Path, tmp_path: Path) -> None:
    """One walk serves the store and the Nexus verifier, each with its own words."""
    (project / "file").write_text("x")
    (project / "dir").mkdir()
    (project / "link").symlink_to(project / "dir")
    words = {"symlink": "link: {path}", "parent": "parent: {path}", "not_regular": "target: {path}"}
    cases = [
        ("link/x", f"link: {project}/link"),
        ("file/x", f"parent: {project}/file"),
        ("dir", f"target: {project}/dir"),
    ]
    for relative, message in cases:
        with pytest.raises(MemError) as caught:
            files.check_components(str(project / relative), **words)
        assert caught.value.message == message
    files.check_components(str(project / "file"), **words)
    files.check_components(str(project / "missing/deeper"), **words)
    files.check_components(str(project / "dir"), files.SYMLINK, files.PARENT)  # no target rule for the store
    assert files.is_normalized_relative("a/b\\c") and not files.is_normalized_relative("a\\..\\b")


def test_the_suite_reads_its_fixtures_from_the_repository() -> None:
    """A bare clone is enough: the reference fixtures are in tests/fixtures, and
    no test reaches beside the repository for them."""
    from tests.conftest import BMAD_PROJECT, FIXTURES, REPO

    assert FIXTURES.is_relative_to(REPO) and (BMAD_PROJECT / ".bmad" / "memory" / "journal.ndjson").is_file()
    beside = ("REPO" + ".parent", '"..' + "/shared")  # spelled apart: this file names them
    for path in (REPO / "tests").rglob("*.py"):
        text = path.read_text("utf-8")
        assert not any(word in text for word in beside), path
