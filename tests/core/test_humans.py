"""Human keys (mem_core.humans): names, where keys live and with which
permissions, unlocking, the trust lists, ``mem human list|revoke``."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.errors import MemError
from mem_core.humans.api import create_human, list_humans, revoke_human
from mem_core.humans.keys import HumanKey, parse_name, trusted_keys
from mem_core.memories.trust import payload
from tests.conftest import tree_bytes

PASSPHRASE = "correct horse battery"


def config(tmp_path: Path) -> Path:
    return tmp_path / "user-config"


@pytest.mark.parametrize(
    "name", ["", "two words", "a/b", "a\\b", ".hidden", "ada\u200b", "ada\u202e", "x" * 65, "tab\t", "nb\u00a0sp"]
)
def test_a_name_is_visible_characters_only(name: str) -> None:
    with pytest.raises(MemError, match="a human's name is 1-64 visible characters"):
        parse_name(name)


def test_a_key_is_kept_owner_only_encrypted_and_unlocks_with_its_passphrase_only(project: Path, tmp_path: Path) -> None:
    made = create_human("ada", PASSPHRASE, directory=str(project))
    key_file = Path(made.private_key_file)
    assert key_file == config(tmp_path) / "humans" / "ada.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    document = json.loads(key_file.read_text())
    assert document["kdf"]["name"] == "scrypt" and document["cipher"] == "aes-256-gcm"
    assert PASSPHRASE not in key_file.read_text()
    key = HumanKey.load("ada", PASSPHRASE)
    assert key.fingerprint == made.human.fingerprint
    with pytest.raises(MemError, match="^wrong passphrase for the human key ada; nothing was changed.$"):
        HumanKey.load("ada", PASSPHRASE + "x")
    # a file pieced together from another key's public half does not open
    other = HumanKey.generate("eve")
    document["public"] = other.public_key("user").line().strip()
    key_file.write_text(json.dumps(document))
    with pytest.raises(MemError, match="wrong passphrase"):
        HumanKey.load("ada", PASSPHRASE)
    key_file.write_text("not json")
    with pytest.raises(MemError, match="is damaged"):
        HumanKey.load("ada", PASSPHRASE)
    with pytest.raises(MemError, match="^no private key named bob on this machine"):
        HumanKey.load("bob", PASSPHRASE)


def test_names_are_not_reused_and_short_passphrases_are_refused(project: Path) -> None:
    with pytest.raises(MemError, match="at least 8 characters"):
        create_human("ada", "short", directory=str(project))
    assert not (project / ".bmad").exists()
    create_human("ada", PASSPHRASE, directory=str(project))
    before = tree_bytes(project)
    with pytest.raises(MemError, match="a private key named ada exists already"):
        create_human("ada", PASSPHRASE, directory=str(project))
    assert tree_bytes(project) == before


def test_the_user_trust_list_trusts_a_key_in_every_project(project: Path, tmp_path: Path) -> None:
    create_human("ada", PASSPHRASE, trust="user", directory=str(project))
    assert (config(tmp_path) / "trusted" / "ada.pub").is_file() and not (project / ".bmad").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert [k.name for k in trusted_keys(str(elsewhere)).values()] == ["ada"]
    key = HumanKey.load("ada", PASSPHRASE)
    memory = service.remember("fact", "k", "v", as_user=True, signer=key, directory=str(elsewhere)).memory
    assert memory.verification == "signed"


def test_list_and_revoke(mem, project: Path) -> None:
    assert mem("human", "list", "-d", str(project)).out == "mem human: no human keys (mem human init makes yours)\n"
    made = create_human("ada", PASSPHRASE, directory=str(project))
    data = json.loads(mem("human", "list", "--json", "-d", str(project)).out)
    assert data == {"count": 1, "humans": [made.human.to_json()]}
    assert made.human.to_json()["trusted"] == ["project"] and made.human.local
    refused = mem("human", "revoke", "bob", "-d", str(project))
    assert (refused.code, refused.err) == (1, "mem human: no trusted human named bob (mem human list); nothing was changed.\n")  # fmt: skip
    result = revoke_human("ada", directory=str(project))
    assert result.fingerprints == [made.human.fingerprint]
    assert list_humans(directory=str(project)).humans[0].trusted == []  # the private key stays, trusted nowhere


def test_human_init_needs_a_terminal(mem, project: Path, tmp_path: Path) -> None:
    run = mem("human", "init", "--name", "ada", "-d", str(project))
    assert (run.code, run.out) == (1, "")
    assert run.err == "mem human: init needs you at a terminal (mem could not open /dev/tty); no key was made.\n"
    assert not (project / ".bmad").exists() and not (config(tmp_path) / "humans").exists()
    bad = mem("human", "init", "--trust", "team", "-d", str(project), "--json")
    assert bad.out == '{"error":"--trust must be project or user (got \'team\')"}\n'


def test_the_signed_payload_is_the_canonical_json_of_the_spec_fields() -> None:
    memory = {"id": "mem_1", "category": "fact", "key": "k", "content": "Zoë", "mind_id": "Ada's Mind"}
    assert payload(memory, "2026-11-05T12:00:00.000Z", "ada") == (
        b'{"by":"ada","category":"fact","contentSha256":'
        b'"c6a12698582fc1104ea24107a2d7268145ff06ef859707729d01fd060897f067",'
        b'"key":"k","mind":"Ada\'s Mind","verifiedAt":"2026-11-05T12:00:00.000Z"}'
    )  # the hash: sha256sum of the UTF-8 content
