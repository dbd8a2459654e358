"""``mem portfolio`` and ``mem recall --scope all`` as real processes, on real
files, with the user config in the test's own directory (MEM_USER_CONFIG)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NOW


def _config(tmp_path: Path) -> Path:
    return Path(os.environ["MEM_USER_CONFIG"]).parent / "portfolio.json"


def _project(path: Path, lessons: str = "", journal: str = "") -> Path:
    memory = path / ".agents" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    if lessons:
        (memory / "lessons.md").write_text(lessons, encoding="utf-8")
    if journal:
        store = path / ".bmad" / "memory"
        store.mkdir(parents=True, exist_ok=True)
        (store / "journal.ndjson").write_text(journal, encoding="utf-8")
    return path


def test_add_list_remove(tmp_path: Path, mem_process) -> None:
    a = _project(tmp_path / "a")
    b = _project(tmp_path / "b")
    (a / "src").mkdir()
    run = mem_process("portfolio", "add", str(a / "src"), str(b))
    assert run.code == 0, run.err
    assert run.out.splitlines()[:2] == [f"mem portfolio: added {a}", f"mem portfolio: added {b}"]
    again = mem_process("portfolio", "add", str(a), "--json")
    assert again.code == 0 and json.loads(again.out)["added"] == []
    document = json.loads(_config(tmp_path).read_text())
    assert document == {"version": 1, "projects": [str(a), str(b)], "brain": None}
    listing = json.loads(mem_process("portfolio", "list", "--json").out)
    assert listing["projects"] == [{"path": str(a), "status": "ok"}, {"path": str(b), "status": "ok"}]
    removed = mem_process("portfolio", "remove", str(b))
    assert removed.code == 0 and removed.out.startswith(f"mem portfolio: removed {b}")
    assert json.loads(_config(tmp_path).read_text())["projects"] == [str(a)]


def test_refusals_change_nothing(tmp_path: Path, mem_process) -> None:
    a = _project(tmp_path / "a")
    assert mem_process("portfolio", "add", str(a)).code == 0
    before = _config(tmp_path).read_bytes()
    (tmp_path / "file.txt").write_text("x")
    for args, message in (
        (("add", str(tmp_path / "file.txt")), "not a directory"),
        (("add", str(tmp_path / "nowhere")), "no such directory"),
        (("remove", str(tmp_path / "nowhere")), "not a registered project"),
        (("add", str(a), str(tmp_path / "nowhere")), "no such directory"),  # all checked before any is added
    ):
        run = mem_process("portfolio", *args)
        assert run.code == 1 and run.out == ""
        assert run.err.count("\n") == 1 and message in run.err and run.err.startswith("mem portfolio: ")
        refused = mem_process("portfolio", *args, "--json")
        assert refused.code == 1 and message in json.loads(refused.out)["error"]
        assert _config(tmp_path).read_bytes() == before


def test_corrupt_file_is_one_line_and_kept(tmp_path: Path, mem_process, project: Path) -> None:
    path = _config(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"projects": 3}')
    for args in (("portfolio", "list"), ("portfolio", "add", str(project)), ("recall", "x", "--scope", "all")):
        run = mem_process(*args, cwd=project)
        assert run.code == 1 and run.err.count("\n") == 1 and "not a portfolio file" in run.err
    assert path.read_text() == '{"projects": 3}'


def test_scan(tmp_path: Path, mem_process) -> None:
    code = tmp_path / "code"
    shop = _project(code / "shop")
    (code / "api" / ".bmad" / "memory").mkdir(parents=True)
    (code / "tool").mkdir()
    (code / "tool" / "mem.toml").write_text("")
    _project(shop / "packages" / "inner")  # inside a project: not searched
    _project(code / "node_modules" / "dep")
    _project(code / ".git" / "x")
    venv = code / "work-env"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    _project(venv / "lib" / "pkg")
    _project(code / "deep" / "a" / "b" / "c" / "d")
    run = mem_process("portfolio", "scan", str(code), "--json")
    assert run.code == 0, run.err
    found = json.loads(run.out)
    assert found["found"] == [str(code / "api"), str(shop), str(code / "tool")]
    assert found["added"] == [] and not _config(tmp_path).exists()
    text = mem_process("portfolio", "scan", str(code))
    assert text.out.splitlines()[-1] == "re-run with --yes to register them"
    assert not _config(tmp_path).exists()
    deep = json.loads(mem_process("portfolio", "scan", str(code), "--depth", "5", "--json").out)
    assert str(code / "deep" / "a" / "b" / "c" / "d") in deep["found"]
    added = mem_process("portfolio", "scan", str(code), "--yes")
    assert added.code == 0 and f"  added {shop}" in added.out.splitlines()
    assert json.loads(_config(tmp_path).read_text())["projects"] == found["found"]


def test_brain_defaults_scope_portfolio(tmp_path: Path, mem_process, now: str) -> None:
    project = _project(tmp_path / "p", "### Local cache\ncache here\n")
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    (brain / "memory" / "lessons.md").write_text("### Brain cache\nshared cache lesson\n")
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "memory" / "lessons.md").write_text("### Other cache\nother cache\n")
    before = mem_process("recall", "cache", "--scope", "portfolio", "-d", str(project))
    assert "Brain cache" not in before.out
    assert mem_process("portfolio", "brain", str(brain)).out == f"mem portfolio: brain {brain}\n"
    assert json.loads(mem_process("portfolio", "brain", "--json").out)["brain"] == str(brain)
    after = mem_process("recall", "cache", "--scope", "portfolio", "-d", str(project))
    assert "note lessons.md § Brain cache" in after.out
    assert mem_process("recall", "cache", "-d", str(project)).out == before.out.replace("portfolio", "project")
    chosen = mem_process("recall", "cache", "--scope", "portfolio", "--portfolio", str(other), "-d", str(project))
    assert "Other cache" in chosen.out and "Brain cache" not in chosen.out
    setting = mem_process(
        "recall", "cache", "--scope", "portfolio", "-d", str(project), env={"MEM_PORTFOLIO": str(other)}
    )
    assert setting.out == chosen.out
    assert mem_process("portfolio", "brain", "--unset").out == "mem portfolio: brain none\n"
    assert mem_process("recall", "cache", "--scope", "portfolio", "-d", str(project)).out == before.out


@pytest.mark.parametrize("index", ["1", "0"])
def test_recall_scope_all(tmp_path: Path, mem_process, now: str, index: str) -> None:
    a = _project(tmp_path / "alpha", "### Cache rule\nKeep cache values.\n")
    b = _project(
        tmp_path / "beta",
        "### Cache beta\nbeta cache cache\n",
        '{"ts":"2026-11-01T00:00:00.000Z","agent":"forge","task":"cache fix","id":"e1"}\n',
    )
    gone = tmp_path / "gone"
    here = _project(tmp_path / "here", "### Cache here\nthe current project's cache note\n")
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    (brain / "memory" / "patterns.md").write_text("### Brain cache\ncache everywhere\n")
    gone.mkdir()
    assert mem_process("portfolio", "add", str(a), str(b), str(gone)).code == 0
    assert mem_process("portfolio", "brain", str(brain)).code == 0
    gone.rmdir()
    env = {"MEM_RECALL_INDEX": index}
    run = mem_process("recall", "cache", "--scope", "all", "--limit", "10", "-d", str(here), env=env)
    assert run.code == 0
    assert run.err == f"mem recall: skipped {gone}: no such directory\n"
    lines = run.out.splitlines()
    assert lines[0] == 'mem recall: 5 match(es) for "cache" (scope: all)'
    headers = [line for line in lines[1:] if line.startswith("  ") and not line.startswith("     ")]
    assert sorted(h.split(" (")[-1] for h in headers) == [
        "brain)",
        "project: alpha)",
        "project: beta)",
        "project: beta)",
        "project: here)",
    ]
    data = json.loads(mem_process("recall", "cache", "--scope", "all", "--json", "-d", str(here), env=env).out)
    assert data["scope"] == "all" and data["count"] == 5
    by_ref = {r["ref"]: r for r in data["results"]}
    assert by_ref["Cache here"]["project"] == str(here)
    assert (
        by_ref["Cache rule"]["project"] == str(a) and by_ref["Cache rule"]["sourceFile"] == ".agents/memory/lessons.md"
    )
    assert by_ref["e1"]["project"] == str(b) and by_ref["e1"]["kind"] == "event"
    assert (
        by_ref["Brain cache"]["project"] == str(brain) and by_ref["Brain cache"]["sourceFile"] == "memory/patterns.md"
    )
    assert list(by_ref["Cache rule"]) == ["score", "kind", "source", "sourceFile", "ref", "text", "project"]
    assert data["skipped"] == [{"path": str(gone), "reason": "no such directory", "project": str(gone)}]
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_scope_all_refuses_evidence(tmp_path: Path, mem_process, project: Path) -> None:
    run = mem_process(
        "recall", "x", "--scope", "all", "--ranking", "evidence", "--context-scope", "a", "-d", str(project)
    )
    assert run.code == 1 and run.out == ""
    assert run.err == "mem recall: Evidence ranking supports project-local lexical recall only.\n"


def test_scope_all_unreadable_project(tmp_path: Path, mem_process, now: str) -> None:
    a = _project(tmp_path / "a", "### Cache\ncache\n")
    locked = _project(tmp_path / "locked", "### Cache\ncache\n")
    assert mem_process("portfolio", "add", str(a), str(locked)).code == 0
    locked.chmod(0)
    try:
        if os.geteuid() == 0:
            # root reads every directory; in a user namespace of its own with no
            # uid mapped, root keeps owning its files but loses the power to
            # override their modes: the locked folder is unreadable there
            env = dict(os.environ)
            proc = subprocess.run(
                [
                    "unshare",
                    "--user",
                    sys.executable,
                    "-m",
                    "mem_cli",
                    "recall",
                    "cache",
                    "--scope",
                    "all",
                    "-d",
                    str(a),
                ],
                env=env,
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            code, err = proc.returncode, proc.stderr
        else:
            run = mem_process("recall", "cache", "--scope", "all", "-d", str(a))
            code, err = run.code, run.err
    finally:
        locked.chmod(0o755)
    assert code == 0 and err == f"mem recall: skipped {locked}: permission denied\n"


def test_help(mem_process) -> None:
    for sub in ("add", "remove", "list", "scan", "brain", "proposals"):
        run = mem_process("portfolio", sub, "-h")
        assert run.code == 0 and "Usage: mem portfolio " + sub in run.out
    assert "all" in mem_process("recall", "-h").out


def test_no_portfolio_output_unchanged(tmp_path: Path, mem_process, now: str) -> None:
    project = _project(tmp_path / "p", "### Cache\ncache\n")
    plain = mem_process("recall", "cache", "--scope", "portfolio", "-d", str(project))
    assert (
        plain.out
        == 'mem recall: 1 match(es) for "cache" (scope: portfolio)\n  1. [1.197] note lessons.md § Cache\n     Cache cache\n'
    )
    assert NOW


def test_d_is_the_project(tmp_path: Path, mem_process) -> None:
    a = _project(tmp_path / "a")
    (a / "src").mkdir()
    assert mem_process("portfolio", "add", cwd=a / "src").out.startswith(f"mem portfolio: added {a}\n")
    listing = mem_process("portfolio", "list", "-d", str(a))
    assert f"  {a} (current)" in listing.out.splitlines()
    assert json.loads(mem_process("portfolio", "list", "--json", "-d", str(tmp_path)).out)["current"] is None
    brain, other = tmp_path / "brain", tmp_path / "other"
    brain.mkdir()
    other.mkdir()
    assert mem_process("portfolio", "brain", str(brain)).code == 0
    (a / ".bmad" / "memory").mkdir(parents=True)
    (a / ".bmad" / "memory" / "mem.toml").write_text(f'portfolio = "{other}"\n')
    shown = json.loads(mem_process("portfolio", "brain", "--json", "-d", str(a)).out)
    assert shown["brain"] == str(brain) and shown["used"] == str(other)
    assert shown["usedFrom"] == str(a / ".bmad" / "memory" / "mem.toml")
    assert json.loads(mem_process("portfolio", "brain", "--json", "-d", str(tmp_path)).out)["used"] == str(brain)
    assert mem_process("portfolio", "remove", "-d", str(a)).out.startswith(f"mem portfolio: removed {a}\n")
    assert json.loads(mem_process("portfolio", "scan", "--json", "-d", str(tmp_path)).out)["found"] == [str(a)]
