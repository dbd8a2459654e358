"""Aider: a CONVENTIONS.md block and .aider.conf.yml read: entries for it and the brief."""

from __future__ import annotations

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


def test_the_user_is_told_to_write_the_brief_until_it_exists(adapters, put) -> None:
    (note,) = adapters.install("aider").adapters[0]["notes"]
    assert "mem brief --write" in note
    put(adapters.project, {".bmad/memory/brief.md": "# Brief\n"})
    assert adapters.status()["aider"]["notes"] == []
