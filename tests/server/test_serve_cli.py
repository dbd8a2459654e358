"""``mem serve init`` and ``mem serve keys`` from the command line (the
project's SQLite store: no database server needed)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mem_core.humans.keys import HumanKey


@pytest.fixture
def server_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, now: str) -> dict[str, str]:
    key_file = tmp_path / "server" / "server.key"
    monkeypatch.setenv("MEM_SERVER_KEY_FILE", str(key_file))
    return {"MEM_SERVER_KEY_FILE": str(key_file)}


def at_a_terminal(argv: list[str], answer: str, env: dict[str, str]) -> tuple[int, str]:
    """Run ``mem`` on a pseudo-terminal of its own, typing ``answer`` at the prompt."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "mem_cli", *argv], {**os.environ, **env})
    output = b""
    typed = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if not typed and b"Type 'yes'" in output:
            os.write(fd, answer.encode() + b"\n")
            typed = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")


def test_serve_init_at_the_terminal_then_keys(
    mem: Any, project: Path, tmp_path: Path, server_env: dict[str, str]
) -> None:
    ada = HumanKey.generate("ada")
    public = tmp_path / "ada.pub"
    public.write_text(ada.public_key("user").line())
    argv = ["serve", "init", "--human", "ada", "--public-key", str(public), "--store", "sqlite", "-d", str(project)]
    env = {**server_env, "MEM_USER_CONFIG": os.environ["MEM_USER_CONFIG"]}
    code, shown = at_a_terminal(argv, "no", env)
    assert code == 1 and "Not confirmed; nothing was changed." in shown
    assert not Path(server_env["MEM_SERVER_KEY_FILE"]).exists()
    code, shown = at_a_terminal(argv, "yes", env)
    assert code == 0, shown
    assert f"mem serve init: the server trusts ada ({ada.fingerprint})" in shown
    assert Path(server_env["MEM_SERVER_KEY_FILE"]).stat().st_mode & 0o077 == 0
    code, shown = at_a_terminal(argv, "yes", env)
    assert code == 1 and "has its first human already" in shown

    d = ["--store", "sqlite", "-d", str(project)]
    made = mem("serve", "keys", "create", "--mind", "alpha", "--read-only", "--expires", "30d", "--json", *d)
    assert made.code == 0, made.err
    key = json.loads(made.out)
    assert key["key"].startswith(f"mem_ak_{key['id']}_") and len(key["key"]) > 50
    assert (key["mind"], key["readOnly"], key["expiresAt"]) == ("alpha", True, "2026-12-05T12:00:00.000Z")
    listed = mem("serve", "keys", "list", *d)
    assert listed.code == 0 and key["key"] not in listed.out
    assert f"  {key['id']} mind=alpha read-only expires=2026-12-05T12:00:00.000Z rate=600/min" in listed.out
    revoked = mem("serve", "keys", "revoke", key["id"], *d)
    assert revoked.code == 0 and revoked.out.startswith(f"mem serve keys: revoked {key['id']} (mind alpha)")
    assert mem("serve", "keys", "revoke", "nope", *d).err == (
        "mem serve: no agent key 'nope' (mem serve keys list); nothing was changed.\n"
    )
    bad = mem("serve", "keys", "create", "--mind", "a\u200bb", *d)
    assert bad.code == 1 and bad.err.count("\n") == 1
    audit = mem("serve", "audit", "verify", "--json", *d)
    assert audit.code == 0, audit.err
    assert json.loads(audit.out)["entries"] == 3  # human.add, key.create, key.revoke


def test_serve_init_without_a_terminal_changes_nothing(mem: Any, project: Path, server_env: dict[str, str]) -> None:
    run = mem("serve", "init", "--human", "ada", "--store", "sqlite", "-d", str(project))
    assert run.code == 1
    assert run.err == "mem serve: no `mem human` key named ada on this machine: give --public-key FILE\n"
    HumanKey.generate("ada").save("a long passphrase")
    run = mem("serve", "init", "--human", "ada", "--store", "sqlite", "-d", str(project))
    assert (
        run.err == "mem serve: mem serve init needs you at the server's terminal (no /dev/tty); nothing was changed.\n"
    )
    assert not Path(server_env["MEM_SERVER_KEY_FILE"]).exists()
    assert not (project / ".bmad" / "memory" / "server.sqlite3").exists()
