"""Aider: a CONVENTIONS.md block and .aider.conf.yml read: entries for it and the brief."""

from __future__ import annotations

import json

import pytest

from mem_core.adapters.edits import BEGIN
from mem_core.errors import MemError

CONF = """\
# aider settings
model: sonnet
auto-commits: false
read:
  - docs/ARCHITECTURE.md
  - "docs/style guide.md"
lint-cmd: ruff check
"""


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("aider")
    assert sorted(k for k, v in installed.items() if v is not None) == [".aider.conf.yml", "CONVENTIONS.md"]
    assert installed[".aider.conf.yml"] == (
        b"read:  # mem\n  - CONVENTIONS.md  # mem\n  - .bmad/memory/brief.md  # mem\n"
    )


def test_the_block_tells_aider_to_run_mem_on_the_command_line(adapters) -> None:
    adapters.install("aider")
    text = adapters.read("CONVENTIONS.md")
    assert text.startswith(BEGIN)
    for words in ("mem recall", "mem write --agent aider --cli aider", ".bmad/memory/brief.md", "for the human"):
        assert words in text
    assert "MCP" not in text


def test_a_config_with_other_keys_and_a_read_list_round_trip(adapters) -> None:
    installed = adapters.round_trip(
        "aider", {".aider.conf.yml": CONF, "CONVENTIONS.md": "# Conventions\n\n- Type hints everywhere.\n"}
    )
    conf = installed[".aider.conf.yml"].decode()
    assert conf == CONF.replace(
        '  - "docs/style guide.md"\n',
        '  - "docs/style guide.md"\n  - CONVENTIONS.md  # mem\n  - .bmad/memory/brief.md  # mem\n',
    )


def test_an_entry_the_user_had_stays_after_remove(adapters) -> None:
    conf = "read:\n- CONVENTIONS.md\n"
    installed = adapters.round_trip("aider", {".aider.conf.yml": conf, "CONVENTIONS.md": "Mine.\n"})
    assert installed[".aider.conf.yml"] == b"read:\n- CONVENTIONS.md\n- .bmad/memory/brief.md  # mem\n"


def test_a_flow_read_list_is_refused_and_nothing_changes(adapters, tree, put) -> None:
    put(adapters.project, {".aider.conf.yml": "read: [docs/A.md]\n"})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.aider\.conf\.yml: 'read:' is not a block list"):
        adapters.install("aider")
    assert tree(adapters.project) == before


def test_aider_has_no_user_scope(adapters) -> None:
    with pytest.raises(MemError, match="aider has no user-level files; install it with --scope project"):
        adapters.install("aider", scope="user")


def test_install_writes_the_brief_aider_reads_and_status_watches_it(adapters) -> None:
    from mem_core.doctor import doctor

    brief = adapters.project / ".bmad/memory/brief.md"
    result = adapters.install("aider")
    [done] = result.adapters[0]["done"]
    assert done.startswith("wrote .bmad/memory/brief.md, which aider reads (")
    assert result.adapters[0]["notes"] == []
    assert brief.read_text().startswith("<!-- written by `mem brief --write --budget 1500`")
    assert adapters.status()["aider"]["problems"] == []
    assert adapters.install("aider").adapters[0]["done"] == []  # current: not written again

    # another tool appends to the journal (bmad-plus mem, a git merge): the brief is out of date
    journal = adapters.project / ".bmad/memory/journal.ndjson"
    event = {
        "ts": "2026-11-05T12:00:00.000Z",
        "agent": "dev",
        "cli": "aider",
        "task": "rotate keys",
        "outcome": "failure",
    }
    journal.write_text(json.dumps(event) + "\n")
    [problem] = adapters.status()["aider"]["problems"]
    assert problem == ".bmad/memory/brief.md, which aider reads, is out of date: run `mem brief --write`"
    checks = doctor(str(adapters.project), kernel=adapters.kernel)
    assert [(c.status, c.detail) for c in checks.checks if c.name == "adapter aider"][0] == ("error", problem)
    assert not checks.ok

    brief.unlink()
    [problem] = adapters.status()["aider"]["problems"]
    assert problem == ".bmad/memory/brief.md, which aider reads, is missing: run `mem brief --write`"
    assert adapters.install("aider").adapters[0]["done"][0].startswith("wrote .bmad/memory/brief.md")
    assert adapters.status()["aider"]["problems"] == []
