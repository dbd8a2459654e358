"""``verified`` and ``source:"user"``, computed on every read (structured-memory.md, Trust).

A human vouches for a memory by a **signature**: a row of the store's
``signatures`` table, ``{"memory_id", "by", "fingerprint", "verified_at",
"signature"}``, over the canonical JSON (keys sorted, no spaces, UTF-8) of ::

    {"by": <the human's name>, "category": …, "contentSha256": <hex SHA-256 of the content>,
     "key": …, "mind": <mind_id>, "verifiedAt": <timestamp>}

made with that human's Ed25519 key (``signature``: base64). A memory reads as
``verified`` only while a signature by a key trusted here (the project's
``.bmad/memory/humans/*.pub`` or the user's trust list) matches its current
mind, category, key and content. The ``verified`` and ``source`` columns a
store keeps are never believed: a row edited by hand, a copied database or an
imported file reads as the signatures say.

Where no human key is trusted at all, a confirmation typed at a terminal is
recorded as a signature row with the fingerprint ``terminal`` and, as
``signature``, the SHA-256 of the same payload: a content changed by hand
then no longer matches, but anyone who can write the database can write such
a row too, so it proves only that someone answered a terminal prompt (or
wrote the row). As soon as one human key is trusted, ``terminal`` rows count
for nothing.

``verification`` says which: ``"signed"`` (a trusted key's signature
matches), ``"terminal"`` (no key is trusted; a terminal confirmation
matches), ``"signature-invalid"`` (signatures exist, none matches: content
edited, key not trusted or revoked, forged bytes) or ``"unsigned"``.

With no signature row among the records, nothing is read or imported: a store
without signatures costs one query.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring as _string  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mem_core.humans.keys import HumanKey, PublicKey
    from mem_core.memories.interfaces import MemoryStore

__all__ = [
    "TERMINAL",
    "payload",
    "content_sha256",
    "sign",
    "terminal_signature",
    "signature_verifies",
    "Judge",
    "judge_records",
]

#: the fingerprint of a terminal confirmation (a key's always starts with ``SHA256:``)
TERMINAL = "terminal"


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def payload(memory: Mapping[str, Any], verified_at: str, by: str) -> bytes:
    """The bytes a signature covers: the canonical JSON of ``{mind, category,
    key, contentSha256, verifiedAt, by}``."""
    # what json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # writes, built directly: a listing of 1 000 signed memories builds 1 000 of them
    text = (
        f'{{"by":{_string(by)},"category":{_string(memory["category"])},'
        f'"contentSha256":"{content_sha256(memory["content"])}","key":{_string(memory["key"])},'
        f'"mind":{_string(memory["mind_id"])},"verifiedAt":{_string(verified_at)}}}'
    )
    return text.encode("utf-8", "surrogatepass")


def sign(memory: Mapping[str, Any], signer: HumanKey, at: str) -> dict[str, Any]:
    """The signature row of ``signer`` vouching for ``memory`` at ``at``."""
    signature = signer.sign(payload(memory, at, signer.name))
    return {
        "memory_id": memory["id"],
        "by": signer.name,
        "fingerprint": signer.fingerprint,
        "verified_at": at,
        "signature": base64.b64encode(signature).decode("ascii"),
    }


def terminal_signature(memory: Mapping[str, Any], at: str) -> dict[str, Any]:
    """The row recording a terminal confirmation (no human key trusted)."""
    return {
        "memory_id": memory["id"],
        "by": TERMINAL,
        "fingerprint": TERMINAL,
        "verified_at": at,
        "signature": hashlib.sha256(payload(memory, at, TERMINAL)).hexdigest(),
    }


class Judge:
    """Checks signatures against the keys trusted in one place (a project and
    the user's trust list), each key parsed once."""

    def __init__(self, keys: Mapping[str, PublicKey]) -> None:
        self.keys = keys
        self._verifiers: dict[str, Any] = {}

    @classmethod
    def for_project(cls, project: str | None) -> Judge:
        from mem_core.humans.keys import trusted_keys

        return cls(trusted_keys(project))

    def valid(self, memory: Mapping[str, Any], signature: Mapping[str, Any]) -> bool:
        """Whether ``signature`` counts for ``memory`` as it is now."""
        try:
            fingerprint = signature["fingerprint"]
            at, by, value = signature["verified_at"], signature["by"], signature["signature"]
            if not (isinstance(at, str) and isinstance(by, str) and isinstance(value, str)):
                return False
            if signature.get("memory_id", memory["id"]) != memory["id"]:
                return False
            if fingerprint == TERMINAL:
                return not self.keys and by == TERMINAL and value == hashlib.sha256(payload(memory, at, by)).hexdigest()
            key = self.keys.get(fingerprint)
            if key is None:
                return False
            raw = base64.b64decode(value, validate=True)
            verifier = self._verifiers.get(fingerprint)
            if verifier is None:
                verifier = self._verifiers[fingerprint] = key.verifier()
            from cryptography.exceptions import InvalidSignature

            try:
                verifier.verify(raw, payload(memory, at, by))
            except InvalidSignature:
                return False
            return True
        except (KeyError, TypeError, ValueError):
            return False

    def verification(self, memory: Mapping[str, Any], signatures: Sequence[Mapping[str, Any]]) -> str:
        if not signatures:
            return "unsigned"
        kinds = [s.get("fingerprint") == TERMINAL for s in signatures]
        if self.keys and all(kinds):
            return "unsigned"  # terminal confirmations count for nothing once a key is trusted
        for signature in signatures:
            if self.valid(memory, signature):
                return "terminal" if signature.get("fingerprint") == TERMINAL else "signed"
        return "signature-invalid"


def signature_verifies(
    memory: Mapping[str, Any], signature: Mapping[str, Any], *, keys: Mapping[str, PublicKey] | None = None
) -> bool:
    """Whether ``signature`` (a signature row) is a trusted key's over
    ``memory``'s current mind, category, key and content. ``keys``: the
    trusted keys by fingerprint (default: the current project's and the
    user's, see :func:`mem_core.humans.keys.trusted_keys`)."""
    if keys is None:
        from mem_core.humans.keys import trusted_keys
        from mem_core.project import find_project

        try:
            project: str | None = find_project(None)
        except Exception:
            project = None
        keys = trusted_keys(project)
    return Judge(keys).valid(memory, signature)


def judge_records(
    records: list[dict[str, Any]],
    store: MemoryStore,
    project: str | None,
    judge: Judge | None = None,
    *,
    signatures: Mapping[str, list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """``records`` with ``verified``, ``source`` and ``verification`` as their
    signatures say (new dicts; the store's ``verified``/``source`` columns are
    only what was claimed when stored). ``signatures``: the rows already read
    (``store.signatures_of``)."""
    if not records:
        return []
    if signatures is None:
        signatures = store.signatures_of([r["id"] for r in records])
    if not any(signatures.values()) and judge is None:
        return [_judged(r, "unsigned") for r in records]
    judge = judge or Judge.for_project(project)
    return [_judged(r, judge.verification(r, signatures.get(r["id"], []))) for r in records]


def _judged(record: dict[str, Any], verification: str) -> dict[str, Any]:
    verified = verification in ("signed", "terminal")
    source = "user" if record["source"] == "user" and verified else "agent"
    return {**record, "verified": verified, "source": source, "verification": verification}
