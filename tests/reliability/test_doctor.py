"""``mem doctor [--json] [--fix]`` (issue 10 item 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.files import hostname
from tests.reliability.conftest import MEMORY, run_mem, snapshot, store_problems

pytestmark = pytest.mark.reliability

EVENT = '{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","task":"cache","signals":{},"id":"e1"}\n'
ORPHAN = "pattern-scores.json.12345678-1234-1234-1234-123456789abc.tmp"


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def _broken_project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    memory = project / MEMORY
    memory.mkdir(parents=True)
    (memory / "journal.ndjson").write_text(EVENT + '{"ts":"2026-10-18T09:31:00.000Z","agent":"for')
    (memory / "promotions.ndjson").write_text("")
    (memory / "writer.lock").write_text(json.dumps({"pid": _dead_pid(), "hostname": hostname(), "token": "t"}))
    (memory / ORPHAN).write_text("{}")
    os.utime(memory / ORPHAN, (0, 0))
    return project


def _checks(run) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for check in json.loads(run.out)["checks"]:
        found.setdefault(check["name"], []).append(check)
    return found


def test_a_sound_project_is_all_ok(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    assert run_mem("write", "--agent", "a", cwd=project).code == 0
    before = snapshot(project)
    run = run_mem("doctor", cwd=project)
    assert run.code == 0, run.out + run.err
    lines = run.out.splitlines()
    assert lines[0] == "ok    lock: none"
    assert "ok    journal.ndjson: 1 record(s), 148 bytes of 2 MiB" in lines
    assert all(line.startswith(("ok ", "warn ")) for line in lines), run.out
    assert snapshot(project) == before  # checking changes nothing


def test_doctor_reports_and_changes_nothing_without_fix(tmp_path: Path) -> None:
    project = _broken_project(tmp_path)
    before = snapshot(project)
    run = run_mem("doctor", "--json", cwd=project)
    assert run.code == 1
    checks = _checks(run)
    assert checks["lock"][0]["status"] == "error"
    assert "stale: owner pid" in checks["lock"][0]["detail"]
    assert checks["journal.ndjson"][0]["status"] == "error"
    assert "incomplete final line" in checks["journal.ndjson"][0]["detail"]
    assert checks["temporary files"][0]["status"] == "warn"
    assert snapshot(project) == before
    text = run_mem("doctor", cwd=project)
    assert text.code == 1
    assert any(line.startswith("error lock: stale: owner pid") for line in text.out.splitlines())


def test_fix_repairs_what_is_provably_safe(tmp_path: Path) -> None:
    project = _broken_project(tmp_path)
    run = run_mem("doctor", "--fix", "--json", cwd=project)
    assert run.code == 0, run.out
    checks = _checks(run)
    assert [c["status"] for c in checks["lock"]] == ["fixed"]
    assert [c["status"] for c in checks["journal.ndjson"]] == ["fixed"]
    assert [c["status"] for c in checks["temporary files"]] == ["fixed"]
    memory = project / MEMORY
    assert (memory / "journal.ndjson").read_text() == EVENT
    [torn] = [p for p in memory.iterdir() if ".torn-" in p.name]
    assert torn.name.startswith("journal.ndjson.torn-")
    assert torn.read_text() == '{"ts":"2026-10-18T09:31:00.000Z","agent":"for'
    assert not (memory / "writer.lock").exists()
    assert store_problems(project) == []
    assert run_mem("write", "--agent", "after", cwd=project).code == 0
    again = run_mem("doctor", cwd=project)
    assert again.code == 0, again.out


def test_a_live_or_foreign_lock_is_explained_and_left(tmp_path: Path) -> None:
    project = tmp_path / "p"
    memory = project / MEMORY
    memory.mkdir(parents=True)
    lock = memory / "writer.lock"
    for owner, words in (
        ({"pid": os.getpid(), "hostname": hostname(), "token": "t"}, "which is running"),
        ({"pid": 12, "hostname": "build-7", "token": "t"}, "on host build-7"),
    ):
        lock.write_text(json.dumps(owner))
        before = lock.read_bytes()
        run = run_mem("doctor", "--fix", cwd=project)
        assert run.code == 0, run.out
        line = run.out.splitlines()[0]
        assert line.startswith("warn  lock: held by pid") and words in line and "left alone" in line
        assert "warn  repairs: none made" in run.out
        assert lock.read_bytes() == before


def test_an_empty_lock_is_an_error_left_for_a_person(tmp_path: Path) -> None:
    project = tmp_path / "p"
    memory = project / MEMORY
    memory.mkdir(parents=True)
    (memory / "writer.lock").write_bytes(b"")
    run = run_mem("doctor", "--fix", cwd=project)
    assert run.code == 1
    assert run.out.splitlines()[0].startswith("error lock: writer.lock is empty")
    assert (memory / "writer.lock").read_bytes() == b""


def test_sizes_near_the_limit_warn(tmp_path: Path) -> None:
    project = tmp_path / "p"
    memory = project / MEMORY
    memory.mkdir(parents=True)
    line = EVENT.encode()
    (memory / "journal.ndjson").write_bytes(line * (int(1.9 * 1024 * 1024) // len(line)))
    run = run_mem("doctor", cwd=project)
    assert "warn  journal.ndjson: 1.9 MiB of 2 MiB: archive it before it refuses appends" in run.out.splitlines()
    assert run.code == 0


def test_a_hostile_score_file_and_a_fifo_store(tmp_path: Path) -> None:
    project = tmp_path / "p"
    memory = project / MEMORY
    memory.mkdir(parents=True)
    (memory / "pattern-scores.json").write_bytes(b'{"caf\xe9": 1}')
    os.mkfifo(memory / "outcomes.ndjson")
    run = run_mem("doctor", cwd=project, timeout=20)
    assert run.code == 1
    assert "error pattern-scores.json: Memory source must contain valid UTF-8." in run.out.splitlines()
    assert "error outcomes.ndjson: Memory source must be a regular file of at most 2 MiB." in run.out.splitlines()


def test_a_project_without_memory_is_not_created(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    run = run_mem("doctor", "--fix", "-d", str(project), cwd=tmp_path)
    assert run.code == 0, run.out
    assert list(project.iterdir()) == []


def test_doctor_says_what_recall_ranks_with_and_where_that_comes_from(tmp_path: Path, monkeypatch) -> None:
    from mem_core.doctor import doctor

    monkeypatch.delenv("MEM_RECALL_RANKING", raising=False)
    project = tmp_path / "p"
    (project / MEMORY).mkdir(parents=True)

    def said() -> str:
        return {check.name: check.detail for check in doctor(str(project)).checks}["recall"]

    assert said() == (
        "ranking lexical (the default, as bmad-plus mem ranks; `mem init` writes the best ranking installed)"
    )
    (project / MEMORY / "mem.toml").write_text('recall_ranking = "bm25"\n')
    assert said() == f"ranking bm25 (from recall_ranking in {project / MEMORY / 'mem.toml'})"
    monkeypatch.setenv("MEM_RECALL_RANKING", "lexical")
    assert said() == "ranking lexical (from MEM_RECALL_RANKING)"
