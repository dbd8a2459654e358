"""``mem remember | memories | forget | verify | context``: outputs byte for
byte, refusals with their message and exit 1 leaving the database as it was,
and the human confirmation through a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import select
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from mem_core.api import memories as service
from tests.conftest import NOW
from tests.core.test_memories_context import EXPECTED, MIND, store_set
from tests.humans import signer_for

DB = Path(".bmad/memory/memories.sqlite3")
PROMPT_END = b"Type 'yes' to confirm: "


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


# -- outputs --------------------------------------------------------------------


def test_remember_text_output(mem, project: Path, now: str) -> None:
    d = ["-d", str(project)]
    run = mem("remember", "project", "synapse_status", "v1.5.0", "deployed", "--tag", "Synapse,deployment",
              "--priority", "high", "--expires", "7d", *d)  # fmt: skip
    assert run.code == 0 and run.err == ""
    memory_id = service.list_memories(directory=str(project)).memories[0].id
    assert run.out == (
        f"mem remember: created project/synapse_status ({memory_id}) in mind default, project store\n"
        "  priority=high source=agent verified=false confidence=0.7 expires=2026-11-12T12:00:00.000Z "
        "tags=synapse,deployment\n"
    )
    again = mem("remember", "project", "synapse_status", "v1.5.0 deployed", "--tag", "synapse", "--tag",
                "deployment", "--priority", "high", "--expires", "2026-11-12T12:00:00.000Z", *d)  # fmt: skip
    assert again.out.startswith(f"mem remember: unchanged project/synapse_status ({memory_id})")
    changed = mem("remember", "project", "synapse_status", "v1.6.0 deployed", "--confidence", "0.85", *d)
    assert changed.out == (
        f"mem remember: updated project/synapse_status ({memory_id}) in mind default, project store\n"
        "  priority=high source=agent verified=false confidence=0.85 expires=2026-11-12T12:00:00.000Z "
        "tags=synapse,deployment\n"
    )


def test_remember_json_output_is_the_memory_and_created(mem, project: Path, now: str) -> None:
    run = mem("remember", "fact", "office_city", "Büro in Berlin", "--tag", "berlin", "--mind", MIND, "--json",
              "-d", str(project))  # fmt: skip
    memory = service.list_memories(mind=MIND, directory=str(project)).memories[0]
    assert run.out == (
        "{\n"
        '  "memory": {\n'
        f'    "id": "{memory.id}",\n'
        '    "category": "fact",\n'
        '    "key": "office_city",\n'
        '    "content": "Büro in Berlin",\n'
        '    "tags": [\n'
        '      "berlin"\n'
        "    ],\n"
        '    "priority": "normal",\n'
        '    "source": "agent",\n'
        '    "verified": false,\n'
        '    "verification": "unsigned",\n'
        '    "confidence": 0.7,\n'
        '    "expires_at": null,\n'
        '    "mind_id": "Michael\'s Mind",\n'
        f'    "created_at": "{NOW}",\n'
        f'    "updated_at": "{NOW}"\n'
        "  },\n"
        '  "created": true\n'
        "}\n"
    )
    again = json.loads(
        mem("remember", "fact", "office_city", "Berlin", "--mind", MIND, "--json", "-d", str(project)).out
    )
    assert again["created"] is False and again["memory"]["id"] == memory.id


def test_memories_text_output_lists_searches_and_shows_expiry(mem, project: Path, now: str) -> None:
    user_name = service.remember("identity", "user_name", "Michael Schäfer", tags=["person", "identity"],
                             priority="critical", as_user=True, signer=signer_for(project), directory=str(project)).memory  # fmt: skip
    meeting = service.remember("context", "meeting_topic", "Discussing Q3 roadmap", expires="2026-11-05T11:00:00Z",
                           directory=str(project), now="2026-11-01T00:00:00.000Z").memory  # fmt: skip
    d = ["-d", str(project)]
    assert mem("memories", *d).out == (
        "mem memories: 1 memory in mind default (project store)\n"
        "  1. identity/user_name (CRITICAL) [verified]\n"
        "     Michael Schäfer\n"
        f"     source=user confidence=1 expires=- tags=person,identity id={user_name.id}\n"
    )
    assert mem("memories", "--include-expired", *d).out.splitlines()[0] == "mem memories: 2 memories in mind default (project store)"  # fmt: skip
    expiring = mem("memories", "--expiring", "7d", *d)
    assert expiring.out == (
        "mem memories: 1 expiring within 7d in mind default (project store)\n"
        "  1. context/meeting_topic (NORMAL) [unverified] [expired]\n"
        "     Discussing Q3 roadmap\n"
        f"     source=agent confidence=0.7 expires=2026-11-05T11:00:00.000Z tags=- id={meeting.id}\n"
    )
    assert mem("memories", "--search", "schafer", *d).out.splitlines()[0] == (
        'mem memories: 1 match(es) for "schafer" in mind default (project store)'
    )
    assert mem("memories", "--search", "roadmap", *d).out == (
        'mem memories: no matches for "roadmap" in mind default (project store)\n'
    )
    mistyped = mem("memories", "--mind", "other", *d)
    assert (mistyped.code, mistyped.out) == (1, "")
    assert mistyped.err == "mem memories: no mind 'other' in the project store (minds: default)\n"
    assert mem("memories", "--expiring", "1m", "--category", "identity", *d).out == (
        "mem memories: none expiring within 1m in mind default (project store)\n"
    )


def test_memories_json_and_filters(mem, project: Path, now: str) -> None:
    service.remember("project", "swarm_setup", "Docker swarm on three nodes", tags=["docker"], priority="high",
                 directory=str(project))  # fmt: skip
    service.remember("note", "k8s", "Maybe leave swarm for kubernetes", tags=["k8s"], directory=str(project))
    service.remember("preference", "style", "concise", as_user=True, signer=signer_for(project), directory=str(project))
    d = ["-d", str(project), "--json"]

    def keys(*args: str) -> list[str]:
        data = json.loads(mem("memories", *args, *d).out)
        limited = "--limit" in args  # with a limit, "total" says how many matched before it
        assert list(data) == (["count", "total", "memories"] if limited else ["count", "memories"])
        assert data["count"] == len(data["memories"])
        return [m["key"] for m in data["memories"]]

    assert keys() == ["swarm_setup", "k8s", "style"]
    assert keys("--search", "swarm") == ["swarm_setup", "k8s"]
    assert keys("--search", "swarm", "--tag", "K8S") == ["k8s"]
    assert keys("--tag", "docker") == ["swarm_setup"]
    assert keys("--category", "note") == ["k8s"]
    assert keys("--source", "user") == ["style"]
    assert keys("--unverified") == ["swarm_setup", "k8s"]
    assert keys("--priority", "high") == ["swarm_setup"]
    assert keys("--limit", "1") == ["swarm_setup"]


def test_forget_and_verify_outputs(mem, project: Path, now: str) -> None:
    stored = service.remember("fact", "k", "v", as_user=True, signer=signer_for(project), directory=str(project)).memory
    d = ["-d", str(project)]
    assert mem("verify", "fact/k", *d).out == (
        f"mem verify: fact/k ({stored.id}) was already verified (mind default, project store) [signed]\n"
    )
    assert json.loads(mem("verify", stored.id, "--json", *d).out) == {"memory": stored.to_json(), "changed": False}
    # what the user said is not forgotten by an agent (no terminal, no human)
    refused = mem("forget", "fact/k", *d)
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (
        "mem forget: only a trusted human key proves a human here (trusted: ada) and none of their private keys "
        "is on this machine (mem human init); nothing was deleted.\n"
    )
    assert service.forget("fact/k", directory=str(project), signer=signer_for(project)).memory.id == stored.id
    agent = service.remember("fact", "k", "agent's note", directory=str(project)).memory
    assert (
        mem("forget", "fact/k", *d).out == f"mem forget: forgot fact/k ({agent.id}) from mind default, project store\n"
    )
    again = service.remember("fact", "k", "v", directory=str(project)).memory
    assert json.loads(mem("forget", again.id, "--json", *d).out) == {"forgotten": again.to_json()}
    gone = mem("forget", "fact/k", *d)
    assert (gone.code, gone.out, gone.err) == (
        1,
        "",
        "mem forget: No memory fact/k in mind default of the project store.\n",
    )


def test_context_is_the_spec_layout(mem, project: Path, now: str) -> None:
    store_set(project)
    run = mem("context", "--mind", MIND, "-d", str(project))
    assert run.code == 0 and run.out_bytes == (EXPECTED + "\n").encode("utf-8")
    data = json.loads(mem("context", "--mind", MIND, "--json", "-d", str(project)).out)
    assert data["text"] == EXPECTED and data["total"] == 12
    assert mem("context", "--mind", MIND, "--limit", "1", "-d", str(project)).out.count("\n[") == 1


def test_the_user_option_selects_the_user_store(mem, project: Path, now: str, tmp_path: Path) -> None:
    run = mem("remember", "identity", "user_name", "Michael", "--user", "--priority", "critical", "-d", str(project))
    assert run.code == 0 and ", user store\n" in run.out
    assert (tmp_path / "user-store" / "memories.sqlite3").is_file() and not (project / ".bmad").exists()
    assert "Michael" in mem("context", "--user").out
    assert mem("context", "-d", str(project)).out == "Mind: default\nMemories: 0 total (0 verified, 0 unverified)\n"
    assert mem("forget", "identity/user_name", "--user").code == 0


def test_options_may_come_before_the_command(mem, project: Path, now: str) -> None:
    run = mem("-d", str(project), "remember", "--json", "fact", "k", "--tag", "x", "--", "-5", "degrees")
    assert run.code == 0, run.err
    assert json.loads(run.out)["memory"]["content"] == "-5 degrees"


# -- refusals: message, exit 1, database unchanged -----------------------------------

REFUSED = [
    (["remember", "bogus", "k", "v"], "mem remember: category must be one of identity, preference, fact, project, skill, mistake, context, note (got 'bogus')"),
    (["remember", "fact", "Bad-Key", "v"], "mem remember: key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got 'Bad-Key')"),
    (["remember", "fact", "k", "  "], "mem remember: content must be non-empty text"),
    (["remember", "fact", "k", "v", "--priority", "urgent"], "mem remember: priority must be one of low, normal, high, critical (got 'urgent')"),
    (["remember", "fact", "k", "v", "--confidence", "1.01"], "mem remember: confidence must be a number from 0 to 1 (got '1.01')"),
    (["remember", "fact", "k", "v", "--expires", "next week"], "mem remember: --expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) or a duration like 7d, 12h or 30m (got 'next week')"),
    (["remember", "fact", "k", "v", "--tag", "t" * 65], "mem remember: tag must be at most 64 characters (got 65: '" + "t" * 39 + "…')"),
    (["remember", "fact", "k", "v", "--verified"], "mem remember: unknown option '--verified'"),
    (["remember", "fact", "k", "v", "--source", "user"], "mem remember: unknown option '--source'"),
    (
        ["remember", "fact", "k"],
        "mem remember: content is missing: give it after the key (after -- when it starts with -), "
        "with --content TEXT or --content-file FILE, or - to read it from stdin",
    ),
    (["remember", "identity", "k", "v", "--as-user"], "mem remember: --as-user needs a human: confirm it at a terminal (mem could not open /dev/tty); nothing was stored."),
    (["verify", "fact/k"], "mem verify: verify needs a human: confirm it at a terminal (mem could not open /dev/tty); nothing was changed."),
    (["verify", "fact/k", "--verified"], "mem verify: unknown option '--verified'"),
    (["forget", "fact"], "mem forget: a memory is named by its id (mem_…) or <category>/<key> (got 'fact')"),
    (["memories", "--expiring", "7"], "mem memories: --expiring must be a duration like 7d, 12h or 30m (got '7')"),
    (["memories", "--search", "?!"], "mem memories: --search needs at least one word of letters or digits (got '?!')"),
    (["context", "--mind", ""], "mem context: mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got '')"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), REFUSED, ids=[" ".join(a)[:40] for a, _ in REFUSED])
def test_refusals_have_their_message_exit_1_and_change_nothing(
    mem, project: Path, now: str, args: list[str], message: str
) -> None:
    service.remember("fact", "k", "the original", directory=str(project))
    before = dump(project / DB)
    run = mem(*args, "-d", str(project))
    assert (run.code, run.out, run.err) == (1, "", message + "\n")
    as_json = mem(*args, "-d", str(project), "--json")
    assert (as_json.code, as_json.err) == (1, "")
    assert (
        as_json.out
        == json.dumps({"error": message.split(": ", 1)[1]}, ensure_ascii=False, separators=(",", ":")) + "\n"
    )
    assert dump(project / DB) == before


def test_every_option_has_a_help_text() -> None:
    import typer

    from mem_cli.app import make_app

    group = typer.main.get_command(make_app())
    for name in ("remember", "memories", "forget", "verify", "context"):
        command = group.commands[name]  # type: ignore[attr-defined]
        assert command.help
        for param in command.params:
            assert getattr(param, "help", None), f"{name} {param.name}"
    humans = group.commands["human"]  # type: ignore[attr-defined]
    assert humans.help and set(humans.commands) == {"init", "list", "revoke", "login"}
    for name, command in humans.commands.items():
        assert command.help
        for param in command.params:
            assert getattr(param, "help", None), f"human {name} {param.name}"


# -- the human confirmation, on a real terminal ----------------------------------------


def on_terminal(args: list[str], answer: bytes | None, cwd: Path, *, stdout_tty: bool = True) -> tuple[int, str, str]:
    """Run ``mem`` in its own session whose controlling terminal is a
    pseudo-terminal (stdin and stdout on it too); type ``answer`` after the
    prompt. Returns (exit code, terminal text, stderr)."""
    import fcntl
    import termios

    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mem_cli", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave if stdout_tty else subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if answer is not None and seen.endswith(PROMPT_END):
                os.write(master, answer)
                answer = None
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the terminal closed: the process ended
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        stdout, stderr = proc.communicate(timeout=60)  # also closes the pipes
    finally:
        os.close(master)
    text = (seen + (stdout or b"")).decode("utf-8").replace("\r\n", "\n")
    return proc.returncode, text, stderr.decode("utf-8")


@pytest.mark.slow
def test_remember_as_user_after_yes_on_the_terminal(project: Path, now: str) -> None:
    code, text, err = on_terminal(["remember", "identity", "user_name", "Michael Schäfer", "--as-user", "--json",
                                   "-d", str(project)], b"yes\n", project)  # fmt: skip
    assert (code, err) == (0, "")
    prompt, _, rest = text.partition("Type 'yes' to confirm: yes\n")
    assert prompt == (
        "mem remember: store this memory as said by you, the user (source user, verified)?\n"
        "  identity/user_name (mind default, project store)\n"
        "  Michael Schäfer\n"
    )
    memory = json.loads(rest)["memory"]
    # no human key is trusted: the terminal confirmation counts, and says so
    assert (memory["source"], memory["verified"], memory["verification"], memory["confidence"]) == (
        "user", True, "terminal", 1,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("answer", [b"no\n", b"\n", b"yess\n"])
def test_anything_but_yes_on_the_terminal_stores_nothing(project: Path, now: str, answer: bytes) -> None:
    code, text, err = on_terminal(
        ["remember", "identity", "user_name", "M", "--as-user", "-d", str(project)], answer, project
    )
    assert code == 1 and err == "mem remember: Not confirmed; nothing was stored.\n"
    assert not (project / ".bmad").exists()


@pytest.mark.slow
def test_verify_after_yes_on_the_terminal(project: Path, now: str) -> None:
    stored = service.remember("project", "synapse_status", "v1.5.0 deployed", directory=str(project)).memory
    code, text, err = on_terminal(["verify", "project/synapse_status", "-d", str(project)], b"y\n", project)
    assert (code, err) == (0, "")
    assert text == (
        "mem verify: confirm that this memory is true (verified)?\n"
        "  project/synapse_status (mind default, project store)\n"
        "  v1.5.0 deployed\n"
        "Type 'yes' to confirm: y\n"
        f"mem verify: verified project/synapse_status ({stored.id}) in mind default, project store "
        "[terminal confirmation]\n"
    )
    verified = service.list_memories(directory=str(project)).memories[0]
    assert (verified.verified, verified.verification) == (True, "terminal")


@pytest.mark.slow
def test_verify_declined_on_the_terminal_changes_nothing(project: Path, now: str) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    code, _, err = on_terminal(["verify", "fact/k", "-d", str(project)], b"n\n", project)
    assert (code, err) == (1, "mem verify: Not confirmed; nothing was changed.\n")
    assert dump(project / DB) == before


@pytest.mark.slow
def test_the_question_is_asked_on_the_terminal_even_with_stdout_piped(project: Path, now: str) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    code, text, err = on_terminal(["verify", "fact/k", "-d", str(project)], b"yes\n", project, stdout_tty=False)
    assert (code, err) == (0, "")
    assert "Type 'yes' to confirm: yes\n" in text and text.endswith("[terminal confirmation]\n")


@pytest.mark.slow
def test_without_a_terminal_a_real_process_is_refused_even_with_yes_piped(project: Path, now: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", "remember", "identity", "user_name", "M", "--as-user", "--json",
         "-d", str(project)],
        input=b"yes\n", capture_output=True, timeout=60, start_new_session=True,
    )  # fmt: skip
    assert proc.returncode == 1 and proc.stdout == (
        b'{"error":"--as-user needs a human: confirm it at a terminal (mem could not open /dev/tty); '
        b'nothing was stored."}\n'
    )
    assert not (project / ".bmad").exists()
