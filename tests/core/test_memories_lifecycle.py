"""The structured-memory lifecycle (structured-memory.md, Lifecycle): what an
update keeps, the human's word, history and restore, minds, the context's
default budget, and every way ``mem remember`` takes its content."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.errors import MemError
from mem_core.memories.validate import CONTENT_MAX_BYTES
from tests.conftest import NOW, tree_bytes
from tests.humans import signer_for

LATER = "2026-11-06T12:00:00.000Z"
STATED = "identity/user_name was stated by a human; only a human can change it"


def rows(project: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The bytes that matter of the store: every memory row and every history row."""
    with closing(sqlite3.connect(project / ".bmad" / "memory" / "memories.sqlite3")) as conn:
        return (
            conn.execute("SELECT * FROM memories ORDER BY n").fetchall(),
            conn.execute("SELECT * FROM memory_history ORDER BY seq").fetchall(),
        )


# -- the human's word -----------------------------------------------------------------


def test_an_agent_update_of_a_user_memory_is_refused_from_the_command_line(mem, project: Path, now: str) -> None:
    service.remember(
        "identity", "user_name", "Ada Lovelace", as_user=True, signer=signer_for(project), directory=str(project)
    )
    before, files = rows(project), tree_bytes(project)
    d = ["-d", str(project)]
    for argv in (
        ["remember", "identity", "user_name", "Mallory"],
        ["remember", "identity", "user_name", "Ada Lovelace", "--priority", "low"],
        ["remember", "identity", "user_name", "Ada Lovelace", "--no-tags", "--tag", "x"],
        ["remember", "identity", "user_name", "--content", "Mallory", "--json"],
    ):
        run = mem(*argv, *d)
        assert run.code == 1
        if "--json" in argv:
            assert (json.loads(run.out), run.err) == ({"error": STATED}, "")
        elif "--no-tags" not in argv:
            assert (run.out, run.err) == ("", f"mem remember: {STATED}\n")
    assert rows(project) == before and tree_bytes(project) == files
    same = mem("remember", "identity", "user_name", "Ada Lovelace", *d)  # nothing to change: not an overwrite
    assert same.code == 0 and same.out.startswith("mem remember: unchanged identity/user_name")
    assert rows(project) == before


def test_forgetting_a_user_memory_needs_the_human(project: Path, now: str) -> None:
    service.remember("identity", "user_name", "Ada", as_user=True, signer=signer_for(project), directory=str(project))
    before = rows(project)
    with pytest.raises(MemError) as caught:
        service.forget("identity/user_name", directory=str(project))  # no terminal in a test
    assert caught.value.message.endswith("nothing was deleted.")  # the key's passphrase could not be asked
    assert rows(project) == before
    forgotten = service.forget("identity/user_name", directory=str(project), signer=signer_for(project))
    assert forgotten.memory.source == "user" and rows(project) != before


def test_the_human_is_one_decision() -> None:
    import importlib.util

    from mem_core.humans import proof

    assert importlib.util.find_spec("mem_core.memories.human") is None  # no second way
    for function in (service.remember, service.verify, service.forget):
        assert "confirm" not in function.__kwdefaults__ and function.__kwdefaults__["signer"] is None
    assert service.require_human.__module__ == "mem_core.api.memories" and callable(proof.require_human)


# -- history and restore ---------------------------------------------------------------


def test_history_lists_every_version_and_restore_brings_one_back(mem, project: Path, now: str) -> None:
    d = ["-d", str(project)]
    service.remember("fact", "db", "sqlite", tags=["storage"], priority="high", directory=str(project))
    stored = service.remember("fact", "db", "postgres", tags=["server"], directory=str(project), now=LATER).memory
    service.verify("fact/db", signer=signer_for(project), directory=str(project))
    listed = mem("memories", "history", "fact/db", "--json", *d)
    assert listed.code == 0
    history = json.loads(listed.out)
    assert history["count"] == 3
    assert [
        (e["version"], e["action"], e["memory"]["content"], e["memory"]["verified"]) for e in history["history"]
    ] == [
        (1, "create", "sqlite", False),
        (2, "update", "postgres", True),  # the signature covers this content: judged now, every version alike
        (3, "verify", "postgres", True),
    ]
    text = mem("memories", "history", "fact/db", *d).out.splitlines()
    assert text[0] == f"mem memories history: 3 versions of fact/db ({stored.id}) in mind default, project store"
    assert text[1] == f"  1. created {NOW} (HIGH) [unverified]"
    assert text[7] == f"  3. verified {NOW} (HIGH) [verified]"

    restored = mem("memories", "restore", "fact/db", "1", "--json", *d)
    assert restored.code == 0
    result = json.loads(restored.out)
    assert (result["restored"], result["changed"]) == (1, True)
    memory = result["memory"]
    assert (memory["content"], memory["tags"], memory["priority"], memory["source"], memory["verified"]) == (
        "sqlite", ["storage"], "high", "agent", False,
    )  # fmt: skip
    assert (memory["created_at"], memory["updated_at"], memory["id"]) == (NOW, NOW, stored.id)
    again = mem("memories", "restore", "fact/db", "4", *d)  # version 4 is the restore itself: same values
    assert again.out == (
        f"mem memories restore: fact/db ({stored.id}) holds version 4 already (mind default, project store)\n"
    )
    actions = [e.action for e in service.memory_history("fact/db", directory=str(project)).entries]
    assert actions == ["create", "update", "verify", "restore"]


def test_a_forgotten_memory_comes_back_by_its_id(project: Path, now: str) -> None:
    stored = service.remember("note", "todo", "write tests", directory=str(project)).memory
    service.forget("note/todo", directory=str(project), now=LATER)
    with pytest.raises(MemError) as caught:
        service.restore("note/todo", 1, directory=str(project))
    assert caught.value.message == "No memory note/todo in mind default of the project store."
    back = service.restore(stored.id, 2, directory=str(project), now=LATER)  # the tombstone's value
    assert (back.changed, back.memory.content, back.memory.id) == (True, "write tests", stored.id)
    entries = service.memory_history(stored.id, directory=str(project)).entries
    assert [(e.version, e.action) for e in entries] == [(1, "create"), (2, "delete"), (3, "restore")]
    assert [m.key for m in service.list_memories(directory=str(project)).memories] == ["todo"]


def test_a_forgotten_memory_whose_key_is_taken_stays_forgotten(project: Path, now: str) -> None:
    old = service.remember("note", "todo", "one", directory=str(project)).memory
    service.forget("note/todo", directory=str(project))
    new = service.remember("note", "todo", "two", directory=str(project)).memory
    before = rows(project)
    with pytest.raises(MemError) as caught:
        service.restore(old.id, 1, directory=str(project))
    assert caught.value.message == (
        f"note/todo is held by another memory now ({new.id}); forget it first to bring this one back"
    )
    assert rows(project) == before


def test_restore_is_refused_for_what_a_human_stated_and_for_bad_versions(mem, project: Path, now: str) -> None:
    service.remember("identity", "user_name", "Ada", directory=str(project))
    service.remember(
        "identity", "user_name", "Ada Lovelace", as_user=True, signer=signer_for(project), directory=str(project)
    )
    service.remember("fact", "k", "one", directory=str(project))
    before = rows(project)
    d = ["-d", str(project)]
    for argv, message in (
        (["identity/user_name", "1"], STATED),
        (["fact/k", "2"], "version must be a number from 1 to 1 (see `mem memories history`; got '2')"),
        (["fact/k", "0"], "version must be a number from 1 to 1 (see `mem memories history`; got '0')"),
        (["fact/k", "x"], "version must be a number from 1 to 1 (see `mem memories history`; got 'x')"),
        (["fact/none", "1"], "No memory fact/none in mind default of the project store."),
    ):
        run = mem("memories", "restore", *argv, *d)
        assert (run.code, run.out, run.err) == (1, "", f"mem memories: {message}\n")
    assert rows(project) == before
    service.remember("fact", "agent_then_user", "agent said", directory=str(project))
    service.remember(
        "fact", "agent_then_user", "user said", as_user=True, signer=signer_for(project), directory=str(project)
    )
    with pytest.raises(MemError) as caught:  # the memory is the human's now: even its agent version
        service.restore("fact/agent_then_user", 1, directory=str(project))
    assert caught.value.message == "fact/agent_then_user was stated by a human; only a human can change it"


def test_memories_alone_still_lists_and_its_subcommands_have_help(mem, project: Path, now: str) -> None:
    service.remember("fact", "k", "value", directory=str(project))
    listed = mem("memories", "-d", str(project))
    assert listed.out.startswith("mem memories: 1 memory in mind default (project store)\n")
    for sub in ("history", "restore", "export", "import", "migrate"):
        shown = mem("memories", sub, "--help")
        assert shown.code == 0 and f"Usage: mem memories {sub}" in shown.out


# -- minds -----------------------------------------------------------------------------


def test_minds_lists_names_and_counts_and_a_mistyped_mind_is_an_error(mem, project: Path, now: str) -> None:
    d = ["-d", str(project)]
    assert mem("minds", *d).out == "mem minds: no minds in the project store yet\n"
    missing = mem("context", "--mind", "Michael", *d)
    assert (missing.code, missing.err) == (1, "mem context: no mind 'Michael' in the project store (minds: none yet)\n")
    for n in range(3):
        service.remember("fact", f"k{n}", "v", mind="Michael's Mind", directory=str(project))
    service.remember("fact", "k", "v", directory=str(project))
    service.remember("fact", "old", "v", expires="2026-01-01", mind="work", directory=str(project))
    assert json.loads(mem("minds", "--json", *d).out) == {
        "count": 3,
        "minds": [
            {"name": "Michael's Mind", "count": 3},
            {"name": "default", "count": 1},
            {"name": "work", "count": 1},
        ],
    }
    assert mem("minds", *d).out == (
        "mem minds: 3 minds in the project store\n"
        "  Michael's Mind  3 memories\n"
        "  default         1 memory\n"
        "  work            1 memory\n"
    )
    before = tree_bytes(project)
    for argv in (["memories", "--mind", "Michaels Mind"], ["context", "--mind", "Michaels Mind", "--json"]):
        run = mem(*argv, *d)
        message = "no mind 'Michaels Mind' in the project store (minds: Michael's Mind, default, work)"
        if "--json" in argv:
            assert (run.code, json.loads(run.out), run.err) == (1, {"error": message}, "")
        else:
            assert (run.code, run.out, run.err) == (1, "", f"mem {argv[0]}: {message}\n")
    assert tree_bytes(project) == before
    assert mem("memories", "--mind", "work", *d).out.startswith("mem memories: no memories in mind work")
    stored = mem("remember", "fact", "k", "v", "--mind", "brand new", *d)  # writing creates a mind
    assert stored.code == 0 and "in mind brand new" in stored.out


# -- the context's default budget ------------------------------------------------------


def test_the_context_summary_is_cut_at_the_default_budget(mem, project: Path, now: str) -> None:
    for n in range(300):
        service.remember(
            "fact", f"fact_{n:03d}", f"Fact number {n} about the project's build and its tests", directory=str(project)
        )
    run = mem("context", "-d", str(project))
    lines = run.out.splitlines()
    assert run.code == 0 and len(lines) < 400
    assert lines[1] == "Memories: 300 total (0 verified, 300 unverified)"
    assert lines[-1].startswith("… ") and lines[-1].endswith(" more: mem memories")
    whole = mem("context", "--budget", "100000", "-d", str(project)).out.splitlines()
    assert len(whole) == 2 + 300 * 5
    smaller = mem("context", "-d", str(project), env={"MEM_CONTEXT_BUDGET": "200"}).out.splitlines()
    assert len(smaller) < len(lines)


# -- remember's content ----------------------------------------------------------------


def _content(project: Path, key: str) -> str:
    return next(m.content for m in service.list_memories(directory=str(project)).memories if m.key == key)


def test_remember_takes_content_after_dashes_as_an_option_from_a_file_or_stdin(
    mem_process, project: Path, now: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    d = ["-d", str(project)]
    env = {"MEM_NOW": NOW}
    assert mem_process("remember", "note", "a", *d, "--", "- first item", env=env).code == 0
    assert mem_process("remember", "note", "b", "--content", "-5%", *d, env=env).code == 0
    assert mem_process("remember", "note", "c", "--tag", "x", *d, "--", "-5%", "and", "--more", env=env).code == 0
    source = tmp_path / "content.md"
    source.write_text("  line one\n- line two\n", encoding="utf-8")
    assert mem_process("remember", "note", "d", "--content-file", str(source), *d, env=env).code == 0
    piped = subprocess.run(
        [sys.executable, "-m", "mem_cli", "remember", "note", "e", "-", *d],
        input=b"from stdin\n", capture_output=True, env={**__import__("os").environ, **env},
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    assert [_content(project, k) for k in "abcde"] == [
        "- first item", "-5%", "-5% and --more", "line one\n- line two", "from stdin",
    ]  # fmt: skip
    assert service.list_memories(directory=str(project), tag="x").memories[0].key == "c"


def test_remember_refuses_bad_content_sources_and_changes_nothing(mem, project: Path, now: str, tmp_path: Path) -> None:
    service.remember("note", "k", "kept", directory=str(project))
    before = tree_bytes(project)
    big, latin, empty = tmp_path / "big.txt", tmp_path / "latin.txt", tmp_path / "empty.txt"
    big.write_bytes(b"x" * (CONTENT_MAX_BYTES + 5000))
    latin.write_bytes("caf\u00e9".encode("latin-1"))
    empty.write_bytes(b"\n\n")
    d = ["-d", str(project)]
    for argv, message in (
        (["--content-file", str(big)], f"{big} holds more than 16384 bytes; a memory's content is at most that"),
        (["--content-file", str(latin)], f"{latin} is not UTF-8 text (byte 4)"),
        (["--content-file", str(empty)], "content must be non-empty text"),
        (["--content-file", str(tmp_path / "none")], f"Cannot read {tmp_path / 'none'}: No such file or directory."),
        (
            ["words", "--content", "more"],
            "give the content once: as words, with --content, with --content-file, or - for stdin",
        ),
    ):
        run = mem("remember", "note", "k", *argv, *d)
        assert (run.code, run.out, run.err) == (1, "", f"mem remember: {message}\n")
    assert tree_bytes(project) == before
