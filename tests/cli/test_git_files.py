"""What of ``.bmad/memory`` belongs in git: ``mem init`` and ``mem adapters
install`` write ``.gitignore`` and ``.gitattributes``; two branches that both
appended to the journal and the receipts merge, with real ``git``, without a
conflict, and the merged stores read back whole."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.nexus_builder import RunBuilder, make_project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(project: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(project.parent)}
    done = subprocess.run(["git", *args], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def alone(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PATH": str(tmp_path / "nothing")}


def test_init_ignores_local_files_and_keeps_the_stores(mem, project: Path, alone) -> None:
    (project / ".gitignore").write_text("node_modules/")  # the user's own, without a final newline
    run = mem("init", "-d", str(project), env=alone)
    assert run.code == 0, run.err
    assert "mem init: .gitignore and .gitattributes now say what of .bmad/memory stays out of git" in run.out
    ignore = (project / ".gitignore").read_text()
    assert ignore.startswith("node_modules/\n\n# mem: ")
    assert ".bmad/memory/*.sqlite3-*\n" in ignore and ".bmad/memory/writer.lock\n" in ignore
    attributes = (project / ".gitattributes").read_text()
    assert ".bmad/memory/journal.ndjson merge=union\n" in attributes
    git(project, "init", "-q")
    memory = project / ".bmad/memory"
    for name in ("memories.sqlite3", "memories.sqlite3-wal", "memories.sqlite3-shm", "writer.lock", "hooks.log"):
        (memory / name).write_text("x")
    (memory / "journal.ndjson.0123abcd-0000-4000-8000-000000000000.tmp").write_text("x")
    (memory / "journal.ndjson").write_text("{}\n")
    (memory / "outcomes.ndjson").write_text("{}\n")
    git(project, "add", "-A")
    staged = set(git(project, "diff", "--cached", "--name-only").split())
    assert {".bmad/memory/journal.ndjson", ".bmad/memory/outcomes.ndjson", ".bmad/memory/mem.toml"} <= staged
    assert not [name for name in staged if "sqlite3" in name or "lock" in name or "log" in name or ".tmp" in name]
    again = mem("init", "-d", str(project), env=alone)
    assert "gitignore" not in again.out  # complete: nothing added twice
    assert (project / ".gitignore").read_text() == ignore


def test_adapters_install_adds_the_git_files_once(mem, project: Path, alone) -> None:
    run = mem("adapters", "install", "cursor", "--json", "-d", str(project), env=alone)
    files = json.loads(run.out)["files"]
    assert {"path": ".gitignore", "change": "created"} in files
    assert {"path": ".gitattributes", "change": "created"} in files
    run = mem("adapters", "remove", "cursor", "-d", str(project), env=alone)
    assert run.code == 0 and (project / ".gitignore").is_file()  # the memory's rules outlive one adapter
    again = json.loads(mem("adapters", "install", "cursor", "--json", "-d", str(project), env=alone).out)
    assert ".gitignore" not in {row["path"] for row in again["files"]}


def test_two_branches_that_appended_merge_without_a_conflict(mem, project: Path, alone) -> None:
    make_project(project)
    RunBuilder(project, "base").accepted("task").write()
    assert mem("init", "-d", str(project), env=alone).code == 0
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")

    def work(branch: str, run_id: str, words: str) -> None:
        git(project, "checkout", "-q", *(["main"] if branch == "main" else ["-b", branch]))
        RunBuilder(project, run_id).accepted("task").write()
        (project / "in.json").write_text(
            json.dumps(
                {
                    "runId": run_id,
                    "taskId": "task",
                    "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
                    "scope": ["work"],
                    "interpretation": f"Accepted in {run_id}; causality is not measured.",
                }
            )
        )
        assert mem("observe", "--input", "in.json", "-d", str(project)).code == 0
        (project / "in.json").unlink()
        run = mem(
            "write", "--agent", "dev", "--cli", "claude", "--task", words, "--outcome", "success", "-d", str(project)
        )
        assert run.code == 0, run.err
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", branch)

    work("left", "run-left", "migrate the billing tables")
    work("main", "run-main", "rotate the signing keys")
    merged = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "left"],
        cwd=project,
        env={**os.environ, **GIT_ENV, "HOME": str(project.parent)},
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(project, "status", "--porcelain") == ""
    journal = (project / ".bmad/memory/journal.ndjson").read_text().splitlines()
    assert len(journal) == 2 and all(json.loads(line) for line in journal)
    receipts = json.loads(mem("outcomes", "--json", "-d", str(project)).out)
    assert sorted(r["source"]["runId"] for r in receipts["results"]) == ["run-left", "run-main"]
    assert {r["eligible"] for r in receipts["results"]} == {True}
    for words in ("billing tables", "signing keys"):
        found = json.loads(mem("recall", *words.split(), "--json", "-d", str(project)).out)
        assert any(words in json.dumps(r) for r in found["results"]), found
