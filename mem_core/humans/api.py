"""``mem human init|list|revoke``: the humans whose keys a project trusts.

* :func:`init_human` — at a terminal only: asks a passphrase twice on
  ``/dev/tty`` (echo off), makes an Ed25519 key pair, keeps the encrypted
  private key in the user config directory and trusts the public key in the
  project (``--trust project``, the default: ``.bmad/memory/humans/<name>.pub``,
  to commit) or in the user's trust list (``--trust user``);
  :func:`create_human` does the same with a passphrase given (the Python API);
* :func:`list_humans` — every trusted public key and every private key on
  this machine, with their fingerprints;
* :func:`revoke_human` — no longer trust a name (its public key files are
  removed); what it signed reads ``signature-invalid`` from then on. The
  private key stays where it is: only its owner deletes it.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

from mem_core.errors import MemError
from mem_core.humans.keys import (
    HumanKey,
    PublicKey,
    check_passphrase,
    local_key_names,
    local_public,
    parse_name,
    parse_trust,
    private_key_path,
    project_keys,
    user_keys,
    write_public_key,
)

__all__ = ["Human", "HumanResult", "HumansResult", "RevokeResult", "init_human", "create_human", "list_humans",
           "revoke_human", "NO_TERMINAL"]  # fmt: skip

NO_TERMINAL = "init needs you at a terminal (mem could not open /dev/tty); no key was made."
MISMATCH = "the two passphrases differ; no key was made."


class Human(BaseModel):
    """One human key: its name, fingerprint, where its public key is trusted
    and whether its private key is on this machine."""

    name: str
    fingerprint: str
    trusted: list[str]
    local: bool
    public_key: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "fingerprint": self.fingerprint,
            "trusted": list(self.trusted),
            "local": self.local,
            "publicKey": self.public_key,
        }


class HumanResult(BaseModel):
    """What :func:`init_human` made. JSON: ``{"human", "publicKeyFile", "privateKeyFile"}``."""

    human: Human
    public_key_file: str
    private_key_file: str

    def to_json(self) -> dict[str, Any]:
        return {
            "human": self.human.to_json(),
            "publicKeyFile": self.public_key_file,
            "privateKeyFile": self.private_key_file,
        }


class HumansResult(BaseModel):
    """JSON: ``{"count", "humans"}``."""

    humans: list[Human]
    project: str

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.humans), "humans": [h.to_json() for h in self.humans]}


class RevokeResult(BaseModel):
    """JSON: ``{"revoked": <name>, "fingerprints", "removed": [files]}``."""

    name: str
    fingerprints: list[str]
    removed: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"revoked": self.name, "fingerprints": list(self.fingerprints), "removed": list(self.removed)}


def _default_name() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # pragma: no cover - no login name
        return "me"


def _project(directory: str | None) -> str:
    from mem_core.project import find_project

    return find_project(directory)


def _refuse_taken(name: str, trust: str, project: str) -> None:
    """Refuse before asking anything when the name is taken."""
    path = private_key_path(name)
    if os.path.lexists(path):
        raise MemError(f"a private key named {name} exists already ({path}); no key was made.")
    keys = project_keys(project) if trust == "project" else user_keys()
    if any(key.name == name for key in keys):
        where = "the project" if trust == "project" else "your trust list"
        raise MemError(f"{where} already trusts a human named {name}; no key was made.")


def create_human(
    name: str | None, passphrase: str, *, trust: str = "project", directory: str | None = None
) -> HumanResult:
    """Make and keep a key pair for ``name`` (default: the login name),
    its private key encrypted with ``passphrase``; trust its public key
    where ``trust`` says (``project`` or ``user``)."""
    name = parse_name(_default_name() if name is None else name)
    where = parse_trust(trust)
    project = _project(directory)
    _refuse_taken(name, where, project)
    check_passphrase(passphrase)
    key = HumanKey.generate(name)
    private = key.save(passphrase)
    try:
        public = write_public_key(key.public_key(where), project if where == "project" else None)
    except BaseException:
        os.unlink(private)  # no private key without its trusted public key
        raise
    human = Human(name=name, fingerprint=key.fingerprint, trusted=[where], local=True,
                  public_key=key.public_key(where).line().strip())  # fmt: skip
    return HumanResult(human=human, public_key_file=public, private_key_file=private)


def init_human(name: str | None = None, *, trust: str = "project", directory: str | None = None) -> HumanResult:
    """:func:`create_human` with the passphrase typed twice on the terminal
    device (never stdin, an option or the environment)."""
    from mem_core.humans.terminal import Terminal

    name = parse_name(_default_name() if name is None else name)
    where = parse_trust(trust)
    _refuse_taken(name, where, _project(directory))
    with Terminal.open(NO_TERMINAL) as tty:
        tty.write(
            f"mem human init: a key for {name}; its passphrase is asked on each verify and --as-user.\n"
            "Choose a passphrase no agent can guess (it is never shown, never stored).\n"
        )
        first = tty.ask("Passphrase: ", echo=False)
        check_passphrase(first)
        second = tty.ask("The same passphrase again: ", echo=False)
    if first != second:
        raise MemError(MISMATCH)
    return create_human(name, first, trust=where, directory=directory)


def list_humans(*, directory: str | None = None) -> HumansResult:
    """The trusted keys (the project's, then the user's) and the private
    keys on this machine, one entry per name and fingerprint."""
    project = _project(directory)
    entries: dict[tuple[str, str], Human] = {}

    def add(key: PublicKey, trusted: str | None, local: bool) -> None:
        found = entries.get((key.name, key.fingerprint))
        if found is None:
            found = entries[(key.name, key.fingerprint)] = Human(
                name=key.name, fingerprint=key.fingerprint, trusted=[], local=False, public_key=key.line().strip()
            )
        if trusted is not None and trusted not in found.trusted:
            found.trusted.append(trusted)
        found.local = found.local or local

    for key in project_keys(project):
        add(key, "project", False)
    for key in user_keys():
        add(key, "user", False)
    for name in local_key_names():
        public = local_public(name)
        if public is not None:
            add(public, None, True)
    return HumansResult(humans=list(entries.values()), project=project)


def revoke_human(name: str, *, directory: str | None = None) -> RevokeResult:
    """Stop trusting ``name``: remove its public key from the project's list
    (under the writer lock) and from the user's trust list."""
    from mem_core.files import writer_lock
    from mem_core.files.paths import safe_file
    from mem_core.humans.keys import PROJECT_HUMANS_DIR

    name = parse_name(name)
    project = _project(directory)
    removed: list[str] = []
    fingerprints: list[str] = []
    found = [k for k in project_keys(project) + user_keys() if k.name == name]
    if not found:
        raise MemError(f"no trusted human named {name} (mem human list); nothing was changed.")
    for key in found:
        if key.where == "project":
            with writer_lock(project):
                path = safe_file(project, f"{PROJECT_HUMANS_DIR}/{name}.pub")
                os.unlink(path)
        else:
            path = key.path
            os.unlink(path)
        removed.append(path)
        if key.fingerprint not in fingerprints:
            fingerprints.append(key.fingerprint)
    return RevokeResult(name=name, fingerprints=fingerprints, removed=removed)
