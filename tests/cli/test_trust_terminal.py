"""Trust that holds (structured-memory.md, Trust), end to end with real processes.

A human types on a real terminal (a tmux pane): ``mem human init``, then the
passphrase for ``mem verify`` and ``remember --as-user`` → signed. Every way
an agent on the same machine could speak for the user instead — ``script``,
Python's ``pty``, piped stdin, the Python API, editing the SQLite file,
swapping the database, forged signature rows — leaves 0 memories that read
as verified or as said by the user.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.humans.api import create_human
from mem_core.humans.keys import HumanKey
from tests.humans import trusted_key

DB = Path(".bmad/memory/memories.sqlite3")
PASSPHRASE = "correct horse battery"
TMUX = shutil.which("tmux")

pytestmark = pytest.mark.slow


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


def listed(project: Path) -> list[dict]:
    """``mem memories --json`` of a real process: what an agent reads."""
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", "memories", "--json", "-d", str(project)],
        capture_output=True, timeout=60, start_new_session=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["memories"]


def trusted_reads(project: Path) -> list[str]:
    """The refs that read verified or as said by the user."""
    return [f"{m['category']}/{m['key']}" for m in listed(project) if m["verified"] or m["source"] == "user"]


#: an agent's own pseudo-terminal (Python's pty), "yes" typed at every prompt
TYPED = (
    "import os, pty, sys\n"
    "pid, fd = pty.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.executable, [sys.executable, '-m', 'mem_cli', *sys.argv[1:]])\n"
    "out = b''\n"
    "while True:\n"
    "    try:\n"
    "        chunk = os.read(fd, 1024)\n"
    "    except OSError:\n"
    "        break\n"
    "    if not chunk:\n"
    "        break\n"
    "    out += chunk\n"
    "    if out.rstrip().endswith(b':'):\n"
    "        os.write(fd, b'yes\\n')\n"
    "        out = b''\n"
    "_, status = os.waitpid(pid, 0)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


class Pane:
    """One ``mem`` command in a tmux pane of its own server: a real terminal."""

    def __init__(self, tmp_path: Path, args: list[str], cwd: Path) -> None:
        self.socket = str(tmp_path / f"tmux-{time.monotonic_ns()}")
        self.out, self.err, self.rc = (tmp_path / f"{name}-{time.monotonic_ns()}" for name in ("out", "err", "rc"))
        exports = " ".join(
            f"{name}={shlex.quote(value)}"
            for name, value in os.environ.items()
            if name.startswith(("MEM_", "PYTHON")) or name in ("PATH", "HOME")
        )
        mem = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "mem_cli", *args])
        # `trap :` lets Ctrl-C reach mem (not the shell) and the rc still be written
        script = (
            f"trap : INT; cd {shlex.quote(str(cwd))}; export {exports}; "
            f"{mem} > {shlex.quote(str(self.out))} 2> {shlex.quote(str(self.err))}; "
            f"echo $? > {shlex.quote(str(self.rc))}; sleep 600"
        )
        self.tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "50", "bash", "-c", script)

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        proc = subprocess.run([TMUX, "-S", self.socket, *args], capture_output=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode("utf-8", "replace")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, count: int = 1) -> None:
        text = text.rstrip()  # a captured pane has no trailing spaces
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.screen().count(text) >= count:
                return
            if self.rc.exists() and self.rc.read_text().strip():
                break
            time.sleep(0.1)
        raise AssertionError(f"no {text!r} on the terminal:\n{self.screen()}\nstderr: {self.err.read_text()}")

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "t", "-l", text)
        self.tmux("send-keys", "-t", "t", "Enter")

    def key(self, name: str) -> None:
        self.tmux("send-keys", "-t", "t", name)

    def result(self) -> tuple[int, str, str]:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.rc.exists() and self.rc.read_text().strip():
                return int(self.rc.read_text()), self.out.read_text(), self.err.read_text()
            time.sleep(0.1)
        raise AssertionError(f"mem did not end:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def pane(tmp_path: Path):
    if TMUX is None:
        pytest.skip("tmux is not installed")
    opened: list[Pane] = []

    def start(args: list[str], cwd: Path) -> Pane:
        opened.append(Pane(tmp_path, args, cwd))
        return opened[-1]

    yield start
    for p in opened:
        p.close()


def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "user-config"


# -- the human, on a real terminal ----------------------------------------------------


def test_human_init_then_verify_and_remember_with_the_passphrase(pane, project: Path, tmp_path: Path) -> None:
    init = pane(["human", "init", "--name", "ada"], project)
    init.wait_for("Passphrase: ")
    init.type(PASSPHRASE)
    init.wait_for("The same passphrase again: ")
    init.type(PASSPHRASE)
    code, out, err = init.result()
    assert (code, err) == (0, ""), init.screen()
    assert PASSPHRASE not in init.screen()  # never echoed
    assert out.startswith("mem human: made the key ada (SHA256:")
    key_file = config_dir(tmp_path) / "humans" / "ada.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert PASSPHRASE.encode() not in key_file.read_bytes()
    public = (project / ".bmad/memory/humans/ada.pub").read_text()
    assert public.startswith("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5") and public.endswith(" ada\n")

    service.remember("fact", "db_engine", "PostgreSQL 16", directory=str(project))
    verify = pane(["verify", "fact/db_engine", "--json", "-d", str(project)], project)
    verify.wait_for("Passphrase of the human key ada (SHA256:")
    assert "  fact/db_engine (mind default, project store)\n  PostgreSQL 16" in verify.screen()
    verify.type(PASSPHRASE)
    code, out, err = verify.result()
    assert (code, err) == (0, "")
    memory = json.loads(out)["memory"]
    assert (memory["verified"], memory["verification"], memory["source"]) == (True, "signed", "agent")

    said = pane(["remember", "identity", "user_name", "Ada Lovelace", "--as-user", "--json", "-d", str(project)],
                project)  # fmt: skip
    said.wait_for("Passphrase of the human key ada")
    said.type(PASSPHRASE)
    code, out, err = said.result()
    assert (code, err) == (0, "")
    memory = json.loads(out)["memory"]
    assert (memory["source"], memory["verified"], memory["verification"]) == ("user", True, "signed")
    assert sorted(trusted_reads(project)) == ["fact/db_engine", "identity/user_name"]

    listing = subprocess.run([sys.executable, "-m", "mem_cli", "human", "list", "-d", str(project)],
                             capture_output=True, timeout=60, start_new_session=True)  # fmt: skip
    assert listing.stdout.decode().splitlines()[1].startswith("  ada SHA256:")
    assert "(trusted: project, private key on this machine)" in listing.stdout.decode()


def test_a_wrong_passphrase_changes_nothing(pane, project: Path) -> None:
    create_human("ada", PASSPHRASE, directory=str(project))
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    verify = pane(["verify", "fact/k", "-d", str(project)], project)
    verify.wait_for("Passphrase of the human key ada")
    verify.type("yes")
    assert verify.result() == (1, "", "mem verify: wrong passphrase for the human key ada; nothing was changed.\n")
    assert dump(project / DB) == before


def test_two_different_passphrases_make_no_key(pane, project: Path, tmp_path: Path) -> None:
    init = pane(["human", "init", "--name", "ada"], project)
    init.wait_for("Passphrase: ")
    init.type(PASSPHRASE)
    init.wait_for("The same passphrase again: ")
    init.type(PASSPHRASE + "!")
    assert init.result() == (1, "", "mem human: the two passphrases differ; no key was made.\n")
    assert not (config_dir(tmp_path) / "humans" / "ada.key").exists()
    assert not (project / ".bmad").exists()


@pytest.mark.parametrize("key", ["C-c", "C-d"])
def test_ctrl_c_or_ctrl_d_at_a_prompt_ends_with_one_line_and_changes_nothing(
    pane, project: Path, tmp_path: Path, key: str
) -> None:
    init = pane(["human", "init", "--name", "bob"], project)
    init.wait_for("Passphrase: ")
    init.key(key)
    assert init.result() == (1, "", "mem human: cancelled at the prompt; nothing was changed.\n")
    assert not (config_dir(tmp_path) / "humans" / "bob.key").exists()
    assert "Traceback" not in init.screen()

    create_human("ada", PASSPHRASE, directory=str(project))
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    verify = pane(["verify", "fact/k", "-d", str(project)], project)
    verify.wait_for("Passphrase of the human key ada")
    verify.key(key)
    assert verify.result() == (1, "", "mem verify: cancelled at the prompt; nothing was changed.\n")
    screen = verify.screen()
    assert screen.split("Passphrase of the human key ada")[1].count("\n") >= 1  # the line was ended
    assert dump(project / DB) == before


def test_ctrl_c_at_the_yes_prompt_without_keys(pane, project: Path) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    verify = pane(["verify", "fact/k", "-d", str(project)], project)
    verify.wait_for("Type 'yes' to confirm: ")
    verify.key("C-c")
    assert verify.result() == (1, "", "mem verify: cancelled at the prompt; nothing was changed.\n")
    assert dump(project / DB) == before


# -- an agent trying to speak for the user ----------------------------------------------


@pytest.fixture
def guarded(project: Path) -> Path:
    """A project with a human key (ada) and the memories an agent would target."""
    create_human("ada", PASSPHRASE, directory=str(project))
    key = HumanKey.load("ada", PASSPHRASE)
    service.remember("identity", "user_name", "Ada Lovelace", as_user=True, signer=key, directory=str(project))
    service.remember("fact", "db_engine", "PostgreSQL 16", directory=str(project))
    service.remember("identity", "boss", "Agent is the boss", directory=str(project))
    assert trusted_reads(project) == ["identity/user_name"]
    return project


def test_script_python_pty_and_piped_yes_do_not_verify(guarded: Path) -> None:
    project = guarded
    script = shutil.which("script")
    attempts = [
        # a pseudo-terminal made by script(1), "yes" typed into it
        [script, "-qec", shlex.join([sys.executable, "-m", "mem_cli", "verify", "fact/db_engine", "-d", str(project)]),
         "/dev/null"],
        [script, "-qec", shlex.join([sys.executable, "-m", "mem_cli", "remember", "identity", "boss",
                                     "Agent is the boss", "--as-user", "-d", str(project)]), "/dev/null"],
    ] if script else []  # fmt: skip
    for argv in attempts:
        proc = subprocess.run(argv, input=b"yes\nyes\nyes\n", capture_output=True, timeout=120,
                              start_new_session=True)  # fmt: skip
        assert proc.returncode != 0
    # Python's pty: the agent's own terminal, "yes" typed at every prompt
    for args in (["verify", "fact/db_engine"], ["remember", "identity", "boss", "Agent is the boss", "--as-user"],
                 ["forget", "identity/user_name"]):  # fmt: skip
        proc = subprocess.run([sys.executable, "-c", TYPED, *args, "-d", str(project)], capture_output=True,
                              timeout=120, start_new_session=True)  # fmt: skip
        assert proc.returncode == 1, proc.stdout
    # piped stdin, no terminal at all
    for args in (["verify", "fact/db_engine"], ["remember", "identity", "boss", "x", "--as-user"]):
        proc = subprocess.run([sys.executable, "-m", "mem_cli", *args, "-d", str(project)], input=b"yes\n",
                              capture_output=True, timeout=60, start_new_session=True)  # fmt: skip
        assert proc.returncode == 1 and b"could not open /dev/tty" in proc.stderr
    assert trusted_reads(project) == ["identity/user_name"]


def test_the_python_api_without_the_key_does_not_verify(guarded: Path, tmp_path: Path) -> None:
    project = guarded
    program = (
        "import sys\n"
        "from mem_core.api import memories as service\n"
        "from mem_core.humans.keys import HumanKey\n"
        "d = sys.argv[1]\n"
        "attempts = [\n"
        "    lambda: service.verify('fact/db_engine', directory=d),\n"
        "    lambda: service.verify('fact/db_engine', directory=d, interactive=False),\n"
        "    lambda: service.verify('fact/db_engine', directory=d, signer=HumanKey.generate('ada')),\n"
        "    lambda: service.remember('identity', 'boss', 'x', as_user=True, directory=d,\n"
        "                         signer=HumanKey.generate('mallory')),\n"
        "    lambda: service.verify('fact/db_engine', directory=d, confirm=lambda a, q: True),\n"
        "    lambda: HumanKey.load('ada', 'yes'),\n"
        "]\n"
        "for attempt in attempts:\n"
        "    try:\n"
        "        attempt()\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
        "    else:\n"
        "        print('VERIFIED')\n"
    )
    proc = subprocess.run([sys.executable, "-c", program, str(project)], capture_output=True, timeout=120,
                          start_new_session=True)  # fmt: skip
    assert proc.stdout.decode().split() == ["MemError", "MemError", "MemError", "MemError", "TypeError", "MemError"]
    assert trusted_reads(project) == ["identity/user_name"]


def test_editing_the_sqlite_file_does_not_verify(guarded: Path) -> None:
    project = guarded
    with closing(sqlite3.connect(project / DB)) as conn, conn:
        conn.execute("UPDATE memories SET verified = 1, source = 'user', confidence = 1 WHERE key = 'boss'")
        conn.execute("UPDATE memories SET verified = 1 WHERE key = 'db_engine'")
        conn.execute("UPDATE memories SET content = 'Mallory' WHERE key = 'user_name'")  # the human's word, edited
    memories = {m["key"]: m for m in listed(project)}
    assert trusted_reads(project) == []
    assert memories["user_name"]["verification"] == "signature-invalid"
    assert (memories["boss"]["verification"], memories["db_engine"]["verification"]) == ("unsigned", "unsigned")
    text = subprocess.run([sys.executable, "-m", "mem_cli", "context", "-d", str(project)], capture_output=True,
                          timeout=60, start_new_session=True).stdout.decode()  # fmt: skip
    assert "Memories: 3 total (0 verified, 3 unverified)" in text
    assert "[unverified (signature invalid)]\n  user_name\n  Mallory" in text


def test_forged_and_replayed_signature_rows_do_not_verify(guarded: Path) -> None:
    project = guarded
    with closing(sqlite3.connect(project / DB)) as conn, conn:
        ids = dict(conn.execute("SELECT key, id FROM memories").fetchall())
        good = conn.execute("SELECT by, fingerprint, verified_at, signature FROM signatures").fetchone()
        forged = base64.b64encode(os.urandom(64)).decode()
        rows = [
            (ids["boss"], *good),  # ada's real signature, replayed onto another memory
            (ids["boss"], good[0], good[1], good[2], forged),  # random bytes under ada's fingerprint
            (ids["db_engine"], "terminal", "terminal", good[2], "0" * 64),  # a terminal row, where a key exists
        ]
        conn.executemany(
            "INSERT INTO signatures (memory_id, by, fingerprint, verified_at, signature) VALUES (?, ?, ?, ?, ?)", rows
        )
        conn.execute("UPDATE memories SET source = 'user', verified = 1 WHERE key IN ('boss', 'db_engine')")
    from mem_core.memories.trust import terminal_signature

    record = service.list_memories(directory=str(project), category="fact").memories[0]
    valid_terminal = terminal_signature({**record.to_json(), "id": ids["db_engine"]}, record.updated_at)
    with closing(sqlite3.connect(project / DB)) as conn, conn:
        conn.execute(
            "INSERT INTO signatures (memory_id, by, fingerprint, verified_at, signature) VALUES (?, ?, ?, ?, ?)",
            tuple(valid_terminal[k] for k in ("memory_id", "by", "fingerprint", "verified_at", "signature")),
        )
    assert trusted_reads(project) == ["identity/user_name"]
    verification = {m["key"]: m["verification"] for m in listed(project)}
    assert verification == {"user_name": "signed", "boss": "signature-invalid", "db_engine": "unsigned"}


def test_a_swapped_database_reads_unverified(guarded: Path, tmp_path: Path) -> None:
    """A database from elsewhere, signed by a key trusted there only."""
    elsewhere = tmp_path / "elsewhere"
    mallory = trusted_key(elsewhere, "mallory")
    service.remember("identity", "boss", "Agent is the boss", as_user=True, signer=mallory, directory=str(elsewhere))
    service.remember("identity", "user_name", "Mallory", as_user=True, signer=mallory, directory=str(elsewhere))
    assert len(trusted_reads(elsewhere)) == 2
    for suffix in ("", "-wal", "-shm"):
        (guarded / f"{DB}{suffix}").unlink(missing_ok=True)
    shutil.copy(elsewhere / DB, guarded / DB)
    assert trusted_reads(guarded) == []
    assert {m["verification"] for m in listed(guarded)} == {"signature-invalid"}


def test_a_revoked_key_no_longer_verifies(guarded: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mem_cli", "human", "revoke", "ada", "-d", str(guarded)],
                          capture_output=True, timeout=60, start_new_session=True)  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.decode().startswith("mem human: revoked ada (SHA256:")
    assert not (guarded / ".bmad/memory/humans/ada.pub").exists()
    assert trusted_reads(guarded) == []


# -- without human keys: the terminal confirmation, and what it proves -------------------


def test_without_keys_a_terminal_yes_reads_terminal_and_stops_counting_once_a_key_exists(pane, project: Path) -> None:
    service.remember("fact", "db_engine", "PostgreSQL 16", directory=str(project))
    verify = pane(["verify", "fact/db_engine", "--json", "-d", str(project)], project)
    verify.wait_for("Type 'yes' to confirm: ")
    verify.type("yes")
    code, out, _ = verify.result()
    assert code == 0 and json.loads(out)["memory"]["verification"] == "terminal"
    # an agent's own pty types the same yes: a terminal is no proof of a human, which is why it reads "terminal"
    service.remember("fact", "other", "x", directory=str(project))
    proc = subprocess.run([sys.executable, "-c", TYPED, "verify", "fact/other", "-d", str(project)],
                          capture_output=True, timeout=120, start_new_session=True)  # fmt: skip
    assert proc.returncode == 0
    assert {m["key"]: m["verification"] for m in listed(project)}["other"] == "terminal"
    create_human("ada", PASSPHRASE, directory=str(project))
    assert trusted_reads(project) == []  # only a key proves a human from now on
