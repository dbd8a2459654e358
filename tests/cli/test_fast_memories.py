"""The light path of ``mem remember``, ``mem memories`` and ``mem context``
(their declarations run by mem_cli.main without typer, on
mem_core.api.memories): the same bytes as the typer path for
every line, typer for every line it does not own, plugins still honoured,
and the light start-up it exists for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mem_cli.main
from mem_cli.compat import declared, parse_command
from mem_core.errors import MemError
from mem_core.kernel.discovery import DEFAULT_PLUGINS, default_class

REPO = Path(__file__).resolve().parents[2]

#: lines run in order on one project, the fast path's answers against typer's
LINES: list[list[str]] = [
    ["context"],
    ["memories"],
    ["memories", "--search", "hello"],
    ["remember", "fact", "greeting", "hello", "world"],
    ["remember", "fact", "greeting", "hello", "world"],  # unchanged
    ["remember", "fact", "greeting", "hello", "again", "--json"],  # an update
    ["remember", "preference", "editor", "--tag", "Tools", "--tag", "a,b", "--priority", "high", "vim", "always"],
    ["remember", "--json", "fact", "dash", "--content", "-starts with a dash"],
    ["remember", "fact", "after_dashes", "--", "--not-an-option", "here"],
    ["remember", "fact", "soon", "expires", "--confidence=0.25", "--expires", "7d"],
    ["remember", "note", "other_mind", "x", "--mind", "work", "-d", "."],
    ["-d", ".", "remember", "note", "before", "the", "action", "--json"],
    ["remember", "skill", "crit", "critical", "skill", "--priority", "critical", "--no-expiry"],
    ["remember", "fact", "Bad Key", "x"],
    ["remember", "fact", "k", "x", "--no-tags", "--tag", "t"],
    ["remember", "fact", "k", "x", "--priority", "urgent"],
    ["remember", "fact", "k", "--content", "a", "b"],
    ["remember", "fact", "k"],
    ["remember", "fact"],
    ["remember", "fact", "k", "x", "--tagg", "y"],
    ["remember", "fact", "k", "x", "--no-tags=1"],
    ["remember", "fact", "k", "x", "-dx"],
    ["remember", "fact", "k", "x", "--priority"],
    ["remember", "-h"],
    ["memories"],
    ["memories", "--json"],
    ["memories", "--search", "hello world"],
    ["memories", "--search", "hello vim", "--limit", "1"],
    ["memories", "--search", "hello vim", "--limit", "1", "--json"],
    ["memories", "--search", "--"],
    ["memories", "--limit", "0"],
    ["memories", "--limit", "2", "--json"],
    ["memories", "--limit", "0x2"],
    ["memories", "--limit", "-1"],
    ["memories", "--tag", "tools", "--category", "preference"],
    ["memories", "--unverified", "--limit", "1"],
    ["memories", "--source", "agent", "--limit", "2"],
    ["memories", "--source", "user"],
    ["memories", "--expiring", "30d"],
    ["memories", "--expiring", "soon"],
    ["memories", "--include-expired", "--priority", "critical"],
    ["memories", "--mind", "work"],
    ["memories", "--mind", "nope"],
    ["memories", "--user"],
    ["memories", "history", "fact/greeting"],
    ["memories", "--serch", "x"],
    ["memories", "--search"],
    ["memories", "extra"],
    ["memories", "--help"],
    ["context"],
    ["context", "--json"],
    ["context", "--limit", "1"],
    ["context", "--limit", "2", "--json"],
    ["context", "--budget", "40"],
    ["context", "--budget", "40", "--json"],
    ["context", "--budget", "0", "--json"],
    ["context", "--budget", "x"],
    ["context", "--budget=60", "--limit=3"],
    ["context", "--mind", "work"],
    ["context", "--mind", "nope", "--json"],
    ["context", "--user"],
    ["context", "-h"],
    ["context", "--jsn"],
]


def _ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory ids from a counter: both runs get the same ones."""
    counter = iter(range(1, 10**6))
    monkeypatch.setattr("mem_core.api.memories.os.urandom", lambda n: next(counter).to_bytes(n, "big"))


def _run_all(mem: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, str]]:
    shutil.rmtree(project, ignore_errors=True)
    (project / ".bmad").mkdir(parents=True)
    with monkeypatch.context() as m:
        _ids(m)
        return [(run.code, run.out, run.err) for run in (mem(*line, cwd=project) for line in LINES)]


def test_the_fast_path_answers_as_typer_does(
    mem: Any, tmp_path: Path, now: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user"))
    owned: list[list[str]] = []
    real = mem_cli.main._run_declared

    def counting(command: str, args: Any, json_mode: bool) -> int | None:
        code = real(command, args, json_mode)
        if code is not None:
            owned.append([command, *args])
        return code

    monkeypatch.setattr(mem_cli.main, "_run_declared", counting)
    quick = _run_all(mem, project, monkeypatch)
    quick_store = (project / ".bmad" / "memory" / "memories.sqlite3").read_bytes()
    monkeypatch.setattr(mem_cli.main, "_run_declared", lambda *args: None)
    slow = _run_all(mem, project, monkeypatch)
    for line, a, b in zip(LINES, quick, slow, strict=True):
        assert a == b, line
    assert len(owned) >= 40  # the fast path ran most lines …
    assert ["remember", "-h"] not in owned and ["memories", "history", "fact/greeting"] not in owned  # … not these
    # the same rows (ids, times, history), whoever wrote them
    assert json.loads(quick[5][1]) == json.loads(slow[5][1])
    assert len(quick_store) > 0


def test_the_parser_takes_what_click_takes() -> None:
    remember, context = declared("remember"), declared("context")
    assert remember is not None and context is not None
    values = parse_command(remember, ["fact", "--tag", "a", "k", "--content", "--help", "--tag=b", "-d", "-x"])
    assert values is not None
    assert (values["category"], values["key"], values["content"]) == ("fact", "k", None)
    assert values["tag"] == ["a", "b"] and values["text"] == "--help"
    assert values["directory"] == "-x" and values["json"] is False and values["priority"] is None
    dashed = parse_command(remember, ["fact", "k", "--", "--json"])
    assert dashed is not None and dashed["content"] == ["--json"] and dashed["json"] is False
    for owned_by_typer in (["fact"], ["fact", "k", "-x"]):
        assert parse_command(remember, owned_by_typer) is None, owned_by_typer
    empty = parse_command(remember, ["fact", ""])
    assert empty is not None and empty["key"] == ""
    for owned_by_typer in (["-h"], ["--help"], ["--json=1"], ["--mind"], ["-dx"], ["-jd", "x"], ["--min", "x"], ["x"]):
        assert parse_command(context, owned_by_typer) is None, owned_by_typer


def test_a_plugin_installed_by_entry_point_is_honoured(tmp_path: Path) -> None:
    """A store plugin installed as a distribution (an entry point, not
    ``MEM_PLUGINS``) is used by all three commands: the fast path leaves the
    plugin manager out only where no plugin is installed."""
    sys.path.insert(0, str(REPO / "tests" / "plugins"))
    try:
        from test_plugins_from_docs import doc_files  # the docs' JSON store
    finally:
        sys.path.pop(0)
    site = tmp_path / "site"
    (site / "jsonstore-1.0.dist-info").mkdir(parents=True)
    (site / "jsonstore-1.0.dist-info" / "entry_points.txt").write_text("[mem.plugins]\njson = json_store\n")
    (site / "json_store.py").write_text(doc_files()["json_store.py"], encoding="utf-8")
    project = tmp_path / "project"
    (project / ".bmad" / "memory").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(site)]), MEM_STORE="json", MEM_NOW="2026-11-05T12:00:00.000Z")
    env.pop("MEM_DISABLE_PLUGINS", None)

    def mem(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mem_cli", *args], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    stored = mem("remember", "fact", "office_city", "The office is in Berlin", "--json")
    assert stored.returncode == 0, stored.stderr
    names = sorted(p.name for p in (project / ".bmad" / "memory").iterdir() if p.name.startswith("memories"))
    assert names == ["memories.json", "memories.json.lock"]
    listed = mem("memories", "--search", "berlin", "--limit", "5", "--json")
    assert [m["key"] for m in json.loads(listed.stdout)["memories"]] == ["office_city"], listed.stderr
    summary = mem("context")
    assert summary.stdout.startswith("Mind: default\nMemories: 1 total"), summary.stderr
    # with the plugin disabled the json store is not there to read: an error, not a second store
    env["MEM_DISABLE_PLUGINS"] = "json"
    assert mem("context").returncode == 1
    assert not (project / ".bmad" / "memory" / "memories.sqlite3").exists()


def test_what_the_fast_path_does_not_import(tmp_path: Path) -> None:
    """No typer, no pydantic, no cryptography (no memory
    shown is signed) for the three commands on the built-in store."""
    project = tmp_path / "project"
    (project / ".bmad").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(REPO), MEM_NOW="2026-11-05T12:00:00.000Z", MEM_USER_DIR=str(tmp_path / "user"))
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['mem', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('mem_cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = [m for m in ('typer', 'pydantic', 'cryptography') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    for args in (["remember", "fact", "k", "v"], ["remember", "fact", "k", "w"], ["memories", "--search", "v w"],
                 ["context"], ["context", "--json"], ["memories", "--limit", "1"]):  # fmt: skip
        run = subprocess.run([sys.executable, "-c", probe, *args], cwd=project, env=env, capture_output=True, text=True)
        assert "HEAVY []" in run.stderr, (args, run.stderr)


def test_the_copies_agree_with_their_originals() -> None:
    from mem_core.api import backend
    from mem_core.api.recall import parse_limit
    from mem_core.memories.kinds import BACKENDS
    from mem_core.memories.validate import parse_limit as parse_count
    from mem_core.settings import default_value
    from mem_plugins.stores import postgres, server, sqlite

    assert backend.POSTGRES_MARKER == postgres.MARKER and backend.SQLITE_FILE == sqlite.FILE
    assert backend.SERVER_MARKER == server.MARKER
    assert default_value("store") == "sqlite"
    assert backend._STORE_PLUGINS == ("sqlite_store", "postgres_store", "server_store")
    stores = [default_class(DEFAULT_PLUGINS[name]) for name in backend._STORE_PLUGINS]
    assert tuple(cls.name for cls in stores) == BACKENDS
    assert stores == [sqlite.SqliteStore, postgres.PostgresStore, server.ServerStore]
    for text in ("", "0", "3", " 3 ", "3.0", "0x3", "1e2", "-1", "x", "3.5", "Infinity", "0b1", "+4", 7, 0, "\u00a05"):
        try:
            expected: Any = parse_limit(text)
        except MemError as exc:
            expected = exc.message
        try:
            got: Any = parse_count(text)
        except MemError as exc:
            got = exc.message
        assert got == expected, text


def test_the_parser_leaves_numbers_and_missing_options_to_click() -> None:
    from mem_cli.declare import Argument, Command, Option

    command = Command(
        "c",
        "C.",
        run=lambda values, kernel, settings: None,
        arguments=(Argument("folder", "F.", metavar="[DIR]", required=False),),
        options=(
            Option("depth", "--depth", "D.", metavar="N", kind=int, default=4),
            Option("to", "--to", "T.", metavar="X", required=True),
        ),
    )
    assert parse_command(command, ["--to", "x"]) == {"depth": 4, "to": "x", "folder": None}
    assert parse_command(command, ["d", "--to", ""]) == {"depth": 4, "to": "", "folder": "d"}
    for owned_by_typer in ([], ["--to", "x", "--depth", "2"], ["a", "b", "--to", "x"]):
        assert parse_command(command, owned_by_typer) is None, owned_by_typer
