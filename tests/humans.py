"""Human keys for tests: a key pair made in the test, its public key trusted
in the test's project (no passphrase: the key is used unlocked, as
``HumanKey.load(name, passphrase)`` returns it)."""

from __future__ import annotations

from pathlib import Path

from mem_core.humans.keys import HumanKey, write_public_key


def trusted_key(project: Path | str, name: str = "ada") -> HumanKey:
    """A new key for ``name``, trusted in ``project`` (``.bmad/memory/humans/<name>.pub``)."""
    key = HumanKey.generate(name)
    write_public_key(key.public_key("project"), str(project))
    return key


_KEYS: dict[str, HumanKey] = {}


def signer_for(project: Path | str) -> HumanKey:
    """The one test key trusted in ``project`` (made on first use)."""
    where = str(Path(project).resolve())
    key = _KEYS.get(where)
    if key is None or not (Path(where) / ".bmad/memory/humans/ada.pub").exists():
        key = _KEYS[where] = trusted_key(where)
    return key
