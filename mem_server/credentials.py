"""Who may do what on the team server (docs/server.md, Credentials).

* **Agent keys** — ``mem_ak_<id>_<secret>``: 256 random bits from
  :mod:`secrets`; the database keeps the id and the SHA-256 of the whole key
  (a key of that entropy needs no slow hash: nothing can be guessed from
  the digest). A key is bound to one mind, may be read-only, may expire, and
  carries its own rate limit. Revoking it is one row's ``revoked_at``: every
  replica reads the row on every request, so it holds from the next request.
* **Humans** — the public half of a ``mem human`` key (Ed25519), registered
  by a human (the first by ``mem serve init`` at the server's terminal). Each
  row is signed by the **server's key** (a file on the server's host, never in
  the database): a row written into the database by anyone else is not on
  the trust list.
* **Sessions** — a human proves the key by signing a one-time challenge
  (``mem human login URL``); the session token (``mem_hs_…``, hash stored)
  names the human for 12 hours. Every action that vouches for content
  (verify, a memory stated ``--as-user``) still carries the human key's own
  signature over the memory; the session only says who is asking.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
from dataclasses import dataclass
from typing import Any

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_server.db import Cursor, ServerDB

__all__ = [
    "Refused",
    "ServerKey",
    "AgentKey",
    "HumanSession",
    "create_key",
    "list_keys",
    "revoke_key",
    "authenticate",
    "charge_rate",
    "register_human",
    "trust_list",
    "new_challenge",
    "login",
    "AGENT_PREFIX",
    "SESSION_PREFIX",
    "DEFAULT_RATE_PER_MINUTE",
]

AGENT_PREFIX = "mem_ak_"
SESSION_PREFIX = "mem_hs_"
DEFAULT_RATE_PER_MINUTE = 600
CHALLENGE_SECONDS = 300
SESSION_SECONDS = 12 * 3600
#: what a login signature covers, before the challenge
LOGIN_CONTEXT = b"mem-login\n"
#: what the server signs to put a human on its trust list, before name and key
HUMAN_CONTEXT = "mem-trusted-human\n"
TOKEN_MAX = 200


class Refused(MemError):
    """A one-line refusal with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _ms_to_iso(ms: int) -> str:
    import datetime

    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _later(now: str, seconds: int) -> str:
    ms = parse_ms(now)
    if ms is None:  # pragma: no cover - now is the clock's own timestamp
        raise MemError(f"not a timestamp: {now!r}")
    return _ms_to_iso(int(ms) + seconds * 1000)


# -- the server's own key ------------------------------------------------------


class ServerKey:
    """The server's Ed25519 key: signs the humans it trusts and the audit
    chain's head. Kept unencrypted (the server starts unattended), owner-only,
    outside the database."""

    def __init__(self, private: Any) -> None:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._private = private
        self.raw_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def fingerprint(self) -> str:
        from mem_core.humans.keys import fingerprint_of

        return fingerprint_of(self.raw_public)

    def public_line(self) -> str:
        from mem_core.humans.keys import PublicKey

        return PublicKey("mem-server", self.raw_public, "user", "").line().strip()

    def sign(self, data: bytes) -> str:
        return base64.b64encode(self._private.sign(data)).decode("ascii")

    def valid(self, data: bytes, signature: str) -> bool:
        from cryptography.exceptions import InvalidSignature

        try:
            self._private.public_key().verify(base64.b64decode(signature, validate=True), data)
        except (InvalidSignature, ValueError):
            return False
        return True

    @classmethod
    def load(cls, path: str) -> ServerKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        try:
            with open(path, "rb") as handle:
                private = load_pem_private_key(handle.read(), password=None)
        except FileNotFoundError:
            raise MemError(f"no server key at {path}: run `mem serve init` first") from None
        except (OSError, ValueError) as exc:
            raise MemError(f"cannot read the server key {path}: {exc}") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise MemError(f"the server key {path} is not an Ed25519 key")
        return cls(private)

    @classmethod
    def create(cls, path: str) -> ServerKey:
        """A new key written to ``path`` (0600, never replacing one)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

        private = Ed25519PrivateKey.generate()
        data = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            raise MemError(f"a server key exists already at {path}; nothing was changed.") from None
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return cls(private)


# -- agent keys ------------------------------------------------------------------


@dataclass(frozen=True)
class AgentKey:
    id: str
    mind: str
    read_only: bool
    rate_per_minute: int
    label: str
    created_at: str
    created_by: str
    expires_at: str | None
    revoked_at: str | None

    @property
    def actor(self) -> str:
        return f"key:{self.id}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "mind": self.mind,
            "readOnly": self.read_only,
            "ratePerMinute": self.rate_per_minute,
            "label": self.label,
            "createdAt": self.created_at,
            "createdBy": self.created_by,
            "expiresAt": self.expires_at,
            "revokedAt": self.revoked_at,
        }


_KEY_COLUMNS = "id, mind, read_only, rate_per_minute, label, created_at, created_by, expires_at, revoked_at"


def _agent(row: tuple[Any, ...]) -> AgentKey:
    return AgentKey(row[0], row[1], bool(row[2]), int(row[3]), row[4], row[5], row[6], row[7], row[8])


def create_key(
    db: ServerDB,
    mind: str,
    *,
    read_only: bool = False,
    expires: str | None = None,
    rate_per_minute: int = DEFAULT_RATE_PER_MINUTE,
    label: str = "",
    by: str = "server",
    now: str | None = None,
) -> tuple[AgentKey, str]:
    """A new agent key for ``mind``; returns it and the secret (shown once)."""
    from mem_core.memories.validate import parse_expires, parse_mind

    now = now or now_iso()
    mind = parse_mind(mind)
    expires_at = parse_expires(expires, now) if expires else None
    if not isinstance(rate_per_minute, int) or not 1 <= rate_per_minute <= 1_000_000:
        raise MemError(f"--rate must be a whole number from 1 to 1000000 (got {rate_per_minute!r})")
    if len(label) > 200:
        raise MemError("a key's label is at most 200 characters")
    key_id = secrets.token_hex(6)
    secret = f"{AGENT_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    key = AgentKey(key_id, mind, read_only, rate_per_minute, label, now, by, expires_at, None)
    with db.transaction() as cursor:
        cursor.run(
            f"INSERT INTO mem_srv_keys (hash, {_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (_digest(secret), key_id, mind, int(read_only), rate_per_minute, label, now, by, expires_at, None),
        )
        _audit(cursor, by, "key.create", f"key:{key_id}", {"mind": mind, "readOnly": read_only,
                                                           "expiresAt": expires_at}, now)  # fmt: skip
    return key, secret


def list_keys(db: ServerDB) -> list[AgentKey]:
    with db.transaction() as cursor:
        rows = cursor.run(f"SELECT {_KEY_COLUMNS} FROM mem_srv_keys ORDER BY created_at, id")
    return [_agent(row) for row in rows]


def revoke_key(db: ServerDB, key_id: str, *, by: str = "server", now: str | None = None) -> AgentKey:
    now = now or now_iso()
    with db.transaction() as cursor:
        row = cursor.one(f"SELECT {_KEY_COLUMNS} FROM mem_srv_keys WHERE id = ?", (key_id,))
        if row is None:
            raise Refused(404, f"no agent key {key_id[:40]!r} (mem serve keys list); nothing was changed.")
        if row[8] is None:
            cursor.run("UPDATE mem_srv_keys SET revoked_at = ? WHERE id = ?", (now, key_id))
            _audit(cursor, by, "key.revoke", f"key:{key_id}", {}, now)
        row = cursor.one(f"SELECT {_KEY_COLUMNS} FROM mem_srv_keys WHERE id = ?", (key_id,))
    assert row is not None
    return _agent(row)


def charge_rate(cursor: Cursor, key: AgentKey, now: str) -> None:
    """Count one request of ``key`` in the current minute, in the database
    (so the limit holds across every replica); 429 past the key's limit."""
    window = now[:16]
    row = cursor.one(
        "INSERT INTO mem_srv_rate (key_id, window_start, hits) VALUES (?, ?, 1) "
        "ON CONFLICT (key_id, window_start) DO UPDATE SET hits = mem_srv_rate.hits + 1 RETURNING hits",
        (key.id, window),
    )
    if row is not None and int(row[0]) > key.rate_per_minute:
        raise Refused(429, f"rate limit: the key {key.id} may make {key.rate_per_minute} requests a minute; "
                           "try again in a minute")  # fmt: skip


# -- humans ----------------------------------------------------------------------


@dataclass(frozen=True)
class HumanSession:
    id: str
    human: str
    fingerprint: str
    csrf: str
    expires_at: str

    @property
    def actor(self) -> str:
        return f"human:{self.human}"


def _human_statement(name: str, public_line: str) -> bytes:
    return f"{HUMAN_CONTEXT}{name}\n{public_line}\n".encode()


def register_human(
    db: ServerDB, server_key: ServerKey, name: str, public_line: str, *, by: str, now: str | None = None
) -> dict[str, str]:
    """Put a human's public key on the server's trust list."""
    from mem_core.humans.keys import PublicKey, parse_name, parse_public_line

    now = now or now_iso()
    name = parse_name(name)
    raw = parse_public_line(public_line)
    if raw is None:
        raise Refused(400, "a human's public key is one line 'ssh-ed25519 AAAA… NAME' (a mem human .pub file)")
    key = PublicKey(name, raw, "user", "")
    line = key.line().strip()
    with db.transaction() as cursor:
        if cursor.one("SELECT name FROM mem_srv_humans WHERE name = ? OR fingerprint = ?", (name, key.fingerprint)):
            raise Refused(409, f"the server already trusts a human named {name} or the key {key.fingerprint}; "
                               "nothing was changed.")  # fmt: skip
        cursor.run(
            "INSERT INTO mem_srv_humans (name, fingerprint, public_key, added_at, added_by, server_signature, "
            "revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, key.fingerprint, line, now, by, server_key.sign(_human_statement(name, line)), None),
        )
        _audit(cursor, by, "human.add", f"human:{name}", {"fingerprint": key.fingerprint}, now)
    return {"name": name, "fingerprint": key.fingerprint, "publicKey": line}


def trust_list(cursor: Cursor, server_key: ServerKey) -> dict[str, Any]:
    """The humans the server trusts, by fingerprint: rows not revoked whose
    server signature holds (a row someone else wrote counts for nothing)."""
    from mem_core.humans.keys import PublicKey, parse_public_line

    keys: dict[str, Any] = {}
    for name, line, signature in cursor.run(
        "SELECT name, public_key, server_signature FROM mem_srv_humans WHERE revoked_at IS NULL"
    ):
        raw = parse_public_line(line)
        if raw is None or not server_key.valid(_human_statement(name, line), signature):
            continue
        key = PublicKey(name, raw, "user", "")
        keys[key.fingerprint] = key
    return keys


def new_challenge(db: ServerDB, name: str, *, now: str | None = None) -> str:
    from mem_core.humans.keys import parse_name

    now = now or now_iso()
    name = parse_name(name)
    challenge = secrets.token_urlsafe(32)
    with db.transaction() as cursor:
        cursor.run("DELETE FROM mem_srv_challenges WHERE expires_at < ?", (now,))
        cursor.run(
            "INSERT INTO mem_srv_challenges (challenge, name, expires_at, used) VALUES (?, ?, ?, 0)",
            (challenge, name, _later(now, CHALLENGE_SECONDS)),
        )
    return challenge


def login_payload(challenge: str) -> bytes:
    """What the human key signs to log in."""
    return LOGIN_CONTEXT + challenge.encode("ascii")


def login(
    db: ServerDB, server_key: ServerKey, name: str, challenge: str, signature: str, *, now: str | None = None
) -> tuple[HumanSession, str]:
    """A session for ``name`` when ``signature`` is its trusted key's over
    the unused, unexpired ``challenge``; returns it and its token."""
    now = now or now_iso()
    bad = Refused(401, "login refused: the challenge is unknown, used or expired, or the signature is not "
                       "the trusted key's; nothing was changed.")  # fmt: skip
    with db.transaction() as cursor:
        row = cursor.one("SELECT name, expires_at, used FROM mem_srv_challenges WHERE challenge = ?", (challenge,))
        if row is None or row[0] != name or row[2] or row[1] < now:
            raise bad
        keys = [k for k in trust_list(cursor, server_key).values() if k.name == name]
        if not keys or not _signed_by(keys[0], login_payload(challenge), signature):
            raise bad
        cursor.run("UPDATE mem_srv_challenges SET used = 1 WHERE challenge = ?", (challenge,))
        session_id = secrets.token_hex(6)
        token = f"{SESSION_PREFIX}{session_id}_{secrets.token_urlsafe(32)}"
        session = HumanSession(session_id, name, keys[0].fingerprint, secrets.token_urlsafe(24),
                               _later(now, SESSION_SECONDS))  # fmt: skip
        cursor.run(
            "INSERT INTO mem_srv_sessions (hash, id, human, fingerprint, csrf, created_at, expires_at, revoked_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (_digest(token), session.id, name, session.fingerprint, session.csrf, now, session.expires_at, None),
        )
        _audit(cursor, f"human:{name}", "human.login", f"session:{session_id}", {}, now)
    return session, token


def _signed_by(key: Any, data: bytes, signature: object) -> bool:
    from cryptography.exceptions import InvalidSignature

    if not isinstance(signature, str) or len(signature) > 200:
        return False
    try:
        key.verifier().verify(base64.b64decode(signature, validate=True), data)
    except (InvalidSignature, ValueError):
        return False
    return True


# -- authentication of a request ---------------------------------------------------


def authenticate(cursor: Cursor, token: str | None, now: str) -> AgentKey | HumanSession:
    """The agent key or human session ``token`` names, read from the
    database (revocation and expiry hold on every replica at once); 401
    otherwise."""
    if not token:
        raise Refused(401, "no credential: send 'Authorization: Bearer <agent key or session token>'")
    if len(token) > TOKEN_MAX or not token.isascii():
        raise Refused(401, "the credential is not a key this server issued")
    if token.startswith(AGENT_PREFIX):
        row = cursor.one(f"SELECT {_KEY_COLUMNS} FROM mem_srv_keys WHERE hash = ?", (_digest(token),))
        if row is None:
            raise Refused(401, "the credential is not a key this server issued")
        key = _agent(row)
        if key.revoked_at is not None:
            raise Refused(401, f"the agent key {key.id} was revoked")
        if key.expires_at is not None and key.expires_at <= now:
            raise Refused(401, f"the agent key {key.id} expired at {key.expires_at}")
        return key
    if token.startswith(SESSION_PREFIX):
        row = cursor.one(
            "SELECT id, human, fingerprint, csrf, expires_at, revoked_at FROM mem_srv_sessions WHERE hash = ?",
            (_digest(token),),
        )
        if row is None:
            raise Refused(401, "the credential is not a session this server opened")
        if row[5] is not None or row[4] <= now:
            raise Refused(401, "the session ended: log in again (mem human login URL)")
        alive = cursor.one(
            "SELECT name FROM mem_srv_humans WHERE name = ? AND fingerprint = ? AND revoked_at IS NULL",
            (row[1], row[2]),
        )
        if alive is None:
            raise Refused(401, f"the human {row[1]} is no longer trusted by this server")
        return HumanSession(row[0], row[1], row[2], row[3], row[4])
    raise Refused(401, "the credential is not a key this server issued")


def _audit(cursor: Cursor, actor: str, action: str, target: str, detail: dict[str, Any], now: str) -> None:
    from mem_server.audit import append

    append(cursor, actor, action, target, detail, now)
