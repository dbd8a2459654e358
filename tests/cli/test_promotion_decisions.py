"""``mem promotions accept|reject ID --reason TEXT``: a human's decision on a
proposed promotion, appended to ``promotions.ndjson`` with the reference's
``approvedBy``/``approvedAt`` (or a rejection), and shown by ``mem promotions``."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.api.decisions import decide, decision_payload
from mem_core.errors import MemError
from mem_core.reinforcement.models import PromotionRecord
from tests.conftest import tree_bytes
from tests.humans import trusted_key

PROMOTIONS = ".bmad/memory/promotions.ndjson"


def propose(mem, project: Path, pattern: str) -> str:
    """Reinforce ``pattern`` until a promotion is proposed; its id."""
    for _ in range(3):
        run = mem("reinforce", "--pattern", pattern, "--accept", "true", "--ci", "pass", "--evidence", "e1",
                  "-d", str(project))  # fmt: skip
        assert run.code == 0, run.err
    return json.loads(mem("promotions", "--json", "-d", str(project)).out)["promotions"][-1]["id"]


def lines(project: Path) -> list[dict]:
    return [json.loads(line) for line in (project / PROMOTIONS).read_text().splitlines()]


def applicable(record: dict) -> bool:
    """``bmad-plus mem``'s ``assertPromotionApplicable``: APPROVED with an approver's name."""
    return (
        record.get("status") == "APPROVED" and isinstance(record.get("approvedBy"), str) and record["approvedBy"] != ""
    )


def test_accept_and_reject_with_a_human_key(mem, project: Path, now: str) -> None:
    first, second = propose(mem, project, "Rate limit"), propose(mem, project, "Cache")
    key = trusted_key(project)
    proposals = lines(project)
    accepted = decide(first, "accept", "holds in prod", directory=str(project), signer=key, interactive=False)
    rejected = decide(second, "reject", "too early", directory=str(project), signer=key, interactive=False)
    records = lines(project)
    assert records[: len(proposals)] == proposals  # appended, nothing rewritten
    approved, refused = records[-2:]
    assert approved == accepted.record and refused == rejected.record
    assert (approved["id"], approved["status"], approved["approvedBy"], approved["approvedAt"]) == (
        first, "APPROVED", "ada", now)  # fmt: skip
    assert applicable(approved) and not applicable(refused)
    assert (refused["status"], refused["approvedBy"], refused["approvedAt"]) == ("REJECTED", None, None)
    assert (refused["rejectedBy"], refused["rejectedAt"], refused["decisionReason"]) == ("ada", now, "too early")
    # the reference's keys first, in its order; every reader keeps the rest
    assert list(approved)[:12] == list(proposals[0])
    for record in (approved, refused):
        assert PromotionRecord.model_validate_json(json.dumps(record)).status == record["status"]
        by = record["approvedBy"] or record["rejectedBy"]
        key.public_key("project").verifier().verify(
            base64.b64decode(record["signature"]), decision_payload(record, by, now, record["decisionReason"])
        )
    got = json.loads(mem("promotions", "--json", "-d", str(project)).out)
    assert got["promotions"] == []
    assert got["decisions"] == [
        {"id": first, "pattern": "Rate limit", "status": "APPROVED", "by": "ada", "at": now,
         "reason": "holds in prod", "decidedWith": "signed"},
        {"id": second, "pattern": "Cache", "status": "REJECTED", "by": "ada", "at": now, "reason": "too early",
         "decidedWith": "signed"},
    ]  # fmt: skip
    text = mem("promotions", "-d", str(project)).out
    assert text.endswith(
        "decided: 2\n"
        f"  {first} Rate limit: APPROVED by ada at {now} (signed)\n     reason: holds in prod\n"
        f"  {second} Cache: REJECTED by ada at {now} (signed)\n     reason: too early\n"
    )
    # reinforce still proposes (and prints) as before: a decision changes nothing of it
    run = mem("reinforce", "--pattern", "Rate limit", "--accept", "true", "-d", str(project))
    assert run.code == 0 and "promotion PROPOSED (" in run.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("accept", "ID", "--reason", "ok"), "no proposed promotion ID (mem promotions lists them); nothing was changed."),
        (("accept", "FIRST"), "--reason is required: say why (it is kept with the decision); nothing was changed."),
        (("reject", "FIRST", "--reason", "two\nlines"),
         "--reason is 1-2000 visible characters on one line; nothing was changed."),
        (("reject", "FIRST", "--reason", "no terminal"),
         "deciding on a promotion needs a human: confirm it at a terminal (mem could not open /dev/tty); "
         "nothing was changed."),
    ],
)  # fmt: skip
def test_refused_without_a_change(mem, project: Path, now: str, args: tuple[str, ...], message: str) -> None:
    first = propose(mem, project, "Rate limit")
    args = tuple(first if a == "FIRST" else a for a in args)
    before = tree_bytes(project)
    # a real process in a session of its own: no controlling terminal, as an agent's
    proc = subprocess.run([sys.executable, "-m", "mem_cli", "promotions", *args, "-d", str(project)],
                          capture_output=True, text=True, timeout=60, start_new_session=True,
                          env={**os.environ, "MEM_NOW": now})  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", f"mem promotions: {message}\n")
    assert tree_bytes(project) == before


def test_a_decided_promotion_is_not_decided_again(mem, project: Path, now: str) -> None:
    first = propose(mem, project, "Rate limit")
    key = trusted_key(project)
    before = tree_bytes(project)
    with pytest.raises(MemError, match="needs a human: a signature by a trusted human key"):
        decide(first, "accept", "yes", directory=str(project), interactive=False)
    assert tree_bytes(project) == before
    decide(first, "reject", "no", directory=str(project), signer=key, interactive=False)
    before = tree_bytes(project)
    with pytest.raises(MemError, match="is decided already \\(REJECTED\\); nothing was changed"):
        decide(first, "accept", "yes", directory=str(project), signer=key, interactive=False)
    assert tree_bytes(project) == before


def test_an_untrusted_key_decides_nothing(mem, project: Path, tmp_path: Path, now: str) -> None:
    first = propose(mem, project, "Rate limit")
    trusted_key(project)
    stranger = trusted_key(tmp_path / "elsewhere", name="mallory")
    before = tree_bytes(project)
    with pytest.raises(MemError, match="is not trusted here"):
        decide(first, "accept", "me", directory=str(project), signer=stranger, interactive=False)
    assert tree_bytes(project) == before


def at_a_terminal(project: Path, env: dict[str, str], args: list[str], answer: str) -> tuple[int, str]:
    """``mem promotions …`` on a pseudo-terminal of its own, ``answer`` typed at its prompt."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "mem_cli", "promotions", *args, "-d", str(project)], env)
    out = b""
    answered = False
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not answered and out.rstrip().endswith(b":"):
            os.write(fd, answer.encode() + b"\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_at_a_terminal_with_a_yes_or_the_passphrase(mem, project: Path, now: str) -> None:
    first, second = propose(mem, project, "Rate limit"), propose(mem, project, "Cache")
    env = {**os.environ, "MEM_NOW": now}  # the test's own user config directory (tests/conftest.py)
    # no human key trusted: a yes typed at the terminal, recorded as such
    code, out = at_a_terminal(project, env, ["accept", first, "--reason", "fine"], "yes")
    assert code == 0, out
    assert f"mem promotions: {first} Rate limit APPROVED by terminal at {now} (terminal)" in out
    # a trusted key: its passphrase, and the decision carries its signature
    from mem_core.humans.api import create_human

    create_human("ada", "correct horse battery", directory=str(project))
    code, out = at_a_terminal(project, env, ["reject", second, "--reason", "no"], "not the passphrase")
    assert code == 1, out
    code, out = at_a_terminal(project, env, ["reject", second, "--reason", "no"], "correct horse battery")
    assert code == 0, out
    last = lines(project)[-1]
    assert (last["status"], last["rejectedBy"], last["decidedWith"]) == ("REJECTED", "ada", "signed")
    assert last["signature"] and last["fingerprint"].startswith("SHA256:")
