"""The audit log nobody can rewrite: every write and every human action of
the team server, hash-chained and signed (docs/server.md, Audit).

An entry is ``{seq, at, actor, action, target, detail, prev}`` and its
``hash``, the SHA-256 of the canonical JSON of those fields (keys sorted, no
spaces, UTF-8); ``prev`` is the previous entry's hash (64 zeros for the
first). Appends are serialised across replicas (PostgreSQL: an advisory
transaction lock; SQLite: the write transaction), in the same transaction as
the server-side change they record where there is one. Each entry also
carries the server key's signature of the chain's head at that entry,
``mem-audit-head\\n<seq>\\n<hash>``: whoever can write the database but does
not hold the server's key cannot edit an entry and re-chain the rest.

:func:`verify` recomputes the chain and names the first break: a gap in the
sequence (an entry deleted), a ``prev`` that is not the previous hash (an
entry deleted or inserted), a hash that does not match its fields (an entry
edited), a head signature the server's key did not make (a re-chained tail).
Removing the newest entries leaves a shorter valid chain: compare the head
with one kept elsewhere (the server logs its head, ``GET /v1/audit`` shows
it; ``mem serve audit verify --expect SEQ:HASH``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from mem_server.db import LOCK_CLASS, Cursor, ServerDB

__all__ = ["append", "verify", "entries", "head", "AuditReport", "GENESIS", "entry_hash"]

GENESIS = "0" * 64
_COLUMNS = "seq, at, actor, action, target, detail, prev, hash, head_signature"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(seq: int, at: str, actor: str, action: str, target: str, detail: str, prev: str) -> str:
    fields = {"action": action, "actor": actor, "at": at, "detail": detail, "prev": prev, "seq": seq,
              "target": target}  # fmt: skip
    return hashlib.sha256(_canonical(fields).encode("utf-8", "surrogatepass")).hexdigest()


def head_statement(seq: int, digest: str) -> bytes:
    return f"mem-audit-head\n{seq}\n{digest}".encode("ascii")


def append(cursor: Cursor, actor: str, action: str, target: str, detail: dict[str, Any], now: str) -> int:
    """Append one entry inside the caller's transaction; returns its seq."""
    if cursor.postgres:
        cursor.run("SELECT pg_advisory_xact_lock(?, 1)", (LOCK_CLASS,))
    last = cursor.one("SELECT seq, hash FROM mem_srv_audit ORDER BY seq DESC LIMIT 1")
    seq = int(last[0]) + 1 if last else 1
    prev = last[1] if last else GENESIS
    detail_text = _canonical(detail)
    digest = entry_hash(seq, now, actor, action, target, detail_text, prev)
    signature = cursor.signer.sign(head_statement(seq, digest)) if cursor.signer is not None else ""
    cursor.run(
        f"INSERT INTO mem_srv_audit ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, now, actor, action, target, detail_text, prev, digest, signature),
    )
    return seq


def _entry(row: tuple[Any, ...]) -> dict[str, Any]:
    try:
        detail = json.loads(row[5])
    except ValueError:
        detail = row[5]
    return {"seq": int(row[0]), "at": row[1], "actor": row[2], "action": row[3], "target": row[4],
            "detail": detail, "prev": row[6], "hash": row[7]}  # fmt: skip


def entries(db: ServerDB, *, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
    """Entries after ``after``, oldest first, at most ``limit``."""
    with db.transaction() as cursor:
        rows = cursor.run(f"SELECT {_COLUMNS} FROM mem_srv_audit WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit))
    return [_entry(row) for row in rows]


def head(cursor: Cursor) -> dict[str, Any] | None:
    row = cursor.one("SELECT seq, hash, head_signature FROM mem_srv_audit ORDER BY seq DESC LIMIT 1")
    return None if row is None else {"seq": int(row[0]), "hash": row[1], "signature": row[2]}


@dataclass
class AuditReport:
    entries: int = 0
    head: dict[str, Any] | None = None
    #: the first break: ``{"seq", "problem"}``; ``None`` when the chain holds
    broken: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.broken is None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "entries": self.entries, "head": self.head, "break": self.broken}


def verify(db: ServerDB, server_key: Any, *, expect: tuple[int, str] | None = None) -> AuditReport:
    """Recompute the whole chain; the report names the first break.
    ``expect``: a head (seq, hash) seen earlier, which must still be in the chain."""
    report = AuditReport()
    with db.transaction() as cursor:
        rows = cursor.run(f"SELECT {_COLUMNS} FROM mem_srv_audit ORDER BY seq")
    prev, expected_seq = GENESIS, 1
    hashes: dict[int, str] = {}
    for row in rows:
        seq, at, actor, action, target, detail, stored_prev, digest, signature = row
        seq = int(seq)
        problem = None
        if seq != expected_seq:
            problem = f"entry {expected_seq} is missing (the next is {seq}): an entry was deleted"
            seq = expected_seq
        elif stored_prev != prev:
            problem = "its prev is not the previous entry's hash: an entry before it was deleted, inserted or edited"
        elif entry_hash(seq, at, actor, action, target, detail, stored_prev) != digest:
            problem = "its hash does not match its fields: the entry was edited"
        elif not server_key.valid(head_statement(seq, digest), signature):
            problem = "its head signature is not the server key's: the chain was rewritten from here"
        if problem is not None:
            report.broken = {"seq": seq, "problem": problem}
            break
        hashes[seq] = digest
        prev, expected_seq = digest, seq + 1
        report.entries += 1
    if rows and report.broken is None:
        last = rows[-1]
        report.head = {"seq": int(last[0]), "hash": last[7]}
    if report.broken is None and expect is not None:
        seq, digest = expect
        if hashes.get(seq) != digest:
            report.broken = {"seq": seq, "problem": f"the expected head {seq}:{digest[:12]}… is not in the chain: "
                                                    "entries were removed or rewritten"}  # fmt: skip
    return report
