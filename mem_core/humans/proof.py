"""The one decision "is a human here?" (structured-memory.md, Trust), for
``remember --as-user``, ``verify`` and ``forget`` of a human's memory.

* Where a human key is trusted (the project's ``.bmad/memory/humans/*.pub``
  or the user's trust list), only that key proves a human: the caller hands
  an unlocked :class:`~mem_core.humans.keys.HumanKey` (``signer``), or the
  person types its passphrase on the terminal device.
* Where none is, a ``yes`` typed on the terminal device is accepted and
  recorded as ``terminal`` — which an agent that makes itself a
  pseudo-terminal can type too (docs/structured-memory.md).

No callback can stand in for the human. ``interactive=False`` only takes the
terminal away (the MCP server, tests): then nothing but a ``signer`` passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from mem_core.humans.keys import HumanKey, PublicKey

__all__ = ["Proof", "require_human", "NO_TERMINAL", "NO_HUMAN", "NOT_CONFIRMED"]

_NOTHING = {"remember": "nothing was stored.", "verify": "nothing was changed.", "forget": "nothing was deleted.",
            "promote": "nothing was changed."}  # fmt: skip
_WHAT = {
    "remember": "--as-user needs a human",
    "verify": "verify needs a human",
    "forget": "forgetting a memory a human confirmed (verified or said by the user) needs a human",
    "promote": "deciding on a promotion needs a human",
}
#: no terminal device to ask on
NO_TERMINAL = {
    a: f"{w}: confirm it at a terminal (mem could not open /dev/tty); {_NOTHING[a]}" for a, w in _WHAT.items()
}
#: no terminal allowed and no signer given
NO_HUMAN = {
    a: f"{w}: a signature by a trusted human key, or, where no key is trusted, a confirmation at a terminal; "
    f"{_NOTHING[a]}"
    for a, w in _WHAT.items()
}
NOT_CONFIRMED = {a: f"Not confirmed; {n}" for a, n in _NOTHING.items()}


@dataclass(frozen=True)
class Proof:
    """How the human was present: ``signer`` (a trusted key, unlocked) or,
    when ``None``, a terminal confirmation where no key is trusted."""

    signer: HumanKey | None
    keys: dict[str, PublicKey]


def require_human(
    action: str,
    question: str,
    *,
    project: str | None,
    signer: HumanKey | None = None,
    human: str | None = None,
    interactive: bool = True,
) -> Proof:
    """Prove a human for ``action`` (``remember``, ``verify``, ``forget``, ``promote``)
    about what ``question`` shows, or refuse with one line (``MemError``)."""
    from mem_core.humans.keys import parse_name, trusted_keys

    keys = trusted_keys(project)
    if signer is not None:
        if signer.fingerprint not in keys:
            raise MemError(
                f"the human key {signer.name} ({signer.fingerprint}) is not trusted here "
                f"(mem human list); {_NOTHING[action]}"
            )
        return Proof(signer, keys)
    if human is not None:
        parse_name(human)
    if not interactive:
        raise MemError(NO_HUMAN[action])
    from mem_core.humans.terminal import Terminal

    if not keys:
        with Terminal.open(NO_TERMINAL[action]) as tty:
            if not tty.confirm(question):
                raise MemError(NOT_CONFIRMED[action])
        return Proof(None, keys)
    local = _local_trusted(keys, human, _NOTHING[action])
    with Terminal.open(NO_TERMINAL[action]) as tty:
        tty.write(question + "\n")
        passphrase = tty.ask(f"Passphrase of the human key {local.name} ({local.fingerprint}): ", echo=False)
    from mem_core.humans.keys import HumanKey

    key = HumanKey.load(local.name, passphrase)
    if key.fingerprint not in keys:  # pragma: no cover - the file changed while asking
        raise MemError(f"the human key {key.name} is not trusted here (mem human list); {_NOTHING[action]}")
    return Proof(key, keys)


def _local_trusted(keys: dict[str, PublicKey], human: str | None, nothing: str) -> PublicKey:
    """The one private key on this machine whose public key is trusted here."""
    from mem_core.humans.keys import local_key_names, local_public

    found = [k for k in (local_public(n) for n in local_key_names()) if k is not None and k.fingerprint in keys]
    names = ", ".join(sorted({k.name for k in keys.values()}))
    if human is not None:
        found = [k for k in found if k.name == human]
        if not found:
            raise MemError(f"no private key {human} on this machine is trusted here (trusted: {names}); {nothing}")
    if not found:
        raise MemError(
            f"only a trusted human key proves a human here (trusted: {names}) and none of their private keys "
            f"is on this machine (mem human init); {nothing}"
        )
    if len(found) > 1:
        raise MemError(f"several trusted human keys are on this machine ({', '.join(k.name for k in found)}): "
                       f"choose one with --human NAME; {nothing}")  # fmt: skip
    return found[0]
