"""Human keys: Ed25519 key pairs that prove a human (structured-memory.md, Trust).

Where they live:

* the **private key** of a person, ``<user config dir>/humans/<name>.key``
  (the directory of ``$MEM_USER_CONFIG``, else platformdirs' user config
  directory for ``mem``; directories ``0700``, the file ``0600``): JSON
  holding the public key and the 32-byte Ed25519 seed encrypted with
  AES-256-GCM under a key derived from the passphrase by scrypt
  (N=2^15, r=8, p=1); the name and the public key are the cipher's
  associated data, so a file pieced together from two keys does not open;
* a **trusted public key**, one line in OpenSSH's format
  (``ssh-ed25519 AAAA… <name>``): in the project,
  ``.bmad/memory/humans/<name>.pub`` (committed: the team's list of trusted
  humans), or in the user's trust list, ``<user config dir>/trusted/<name>.pub``
  (every project of that user trusts it).

A key's fingerprint is OpenSSH's (``SHA256:`` and the unpadded base64 of the
SHA-256 of the key blob), so ``ssh-keygen -lf <name>.pub`` shows the same.

Reading public keys imports nothing heavy; ``cryptography`` is imported when
a key is made, unlocked or used to check a signature.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mem_core.errors import MemError
from mem_core.files import MEMORY_DIR

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "HumanKey",
    "PublicKey",
    "Trust",
    "PROJECT_HUMANS_DIR",
    "parse_name",
    "parse_trust",
    "config_dir",
    "private_key_path",
    "user_trust_dir",
    "project_keys",
    "user_keys",
    "trusted_keys",
    "serving_trust",
    "local_key_names",
    "write_public_key",
    "check_passphrase",
    "PASSPHRASE_MIN",
]

Trust = Literal["project", "user"]
#: the project's trusted humans, relative to the project
PROJECT_HUMANS_DIR = f"{MEMORY_DIR}/humans"
NAME_MAX = 64
PASSPHRASE_MIN = 8
_BLOB_PREFIX = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"
_KEY_FORMAT = "mem-human-key"
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}


def parse_name(value: object) -> str:
    """A human's name: 1-64 visible characters, no spaces, no ``/`` or ``\\``,
    not starting with ``.`` (it names files)."""
    from mem_core.textsafe import visible_name

    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= NAME_MAX
        or not visible_name(value, spaces=False)
        or "/" in value
        or "\\" in value
        or value.startswith(".")
    ):
        from mem_core.textsafe import escape

        shown = escape(value) if isinstance(value, str) else repr(value)
        raise MemError(
            f"a human's name is 1-{NAME_MAX} visible characters without spaces, / or \\, "
            f"not starting with . (got '{shown[:40]}')"
        )
    return value


def parse_trust(value: object) -> Trust:
    if value not in ("project", "user"):
        raise MemError(f"--trust must be project or user (got {value!r})")
    return value  # type: ignore[return-value]


def config_dir() -> str:
    """The user config directory (where ``config.toml`` is)."""
    from mem_core.settings import user_config_path

    return os.path.dirname(user_config_path())


def private_key_path(name: str) -> str:
    return os.path.join(config_dir(), "humans", f"{name}.key")


def user_trust_dir() -> str:
    return os.path.join(config_dir(), "trusted")


# -- public keys -------------------------------------------------------------


@dataclass(frozen=True)
class PublicKey:
    """A trusted public key: its name, the 32 raw bytes, where it is trusted."""

    name: str
    raw: bytes
    where: Trust
    path: str

    @property
    def blob(self) -> bytes:
        return _BLOB_PREFIX + self.raw

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.raw)

    def line(self) -> str:
        """The ``.pub`` file's one line."""
        return f"ssh-ed25519 {base64.b64encode(self.blob).decode('ascii')} {self.name}\n"

    def verifier(self) -> Ed25519PublicKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(self.raw)


def fingerprint_of(raw: bytes) -> str:
    digest = hashlib.sha256(_BLOB_PREFIX + raw).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def parse_public_line(text: str) -> bytes | None:
    """The raw key of a ``ssh-ed25519 <base64> [comment]`` line, ``None`` if it is not one."""
    parts = text.strip().split()
    if len(parts) < 2 or parts[0] != "ssh-ed25519":
        return None
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except ValueError:
        return None
    if len(blob) != len(_BLOB_PREFIX) + 32 or not blob.startswith(_BLOB_PREFIX):
        return None
    return blob[len(_BLOB_PREFIX) :]


def _read_keys(directory: str, where: Trust) -> list[PublicKey]:
    """The well-formed ``<name>.pub`` files of ``directory`` (a regular file,
    not a link, at most 4 KiB, a valid name); the others are left out."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    keys = []
    for entry in names:
        if not entry.endswith(".pub"):
            continue
        name = entry[: -len(".pub")]
        try:
            parse_name(name)
        except MemError:
            continue
        path = os.path.join(directory, entry)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            import stat

            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            data = os.read(fd, 4097)
        except OSError:
            continue
        finally:
            os.close(fd)
        if len(data) > 4096:
            continue
        raw = parse_public_line(data.decode("utf-8", "replace"))
        if raw is not None:
            keys.append(PublicKey(name, raw, where, path))
    return keys


def project_keys(project: str) -> list[PublicKey]:
    """The public keys the project trusts (``.bmad/memory/humans/*.pub``)."""
    return _read_keys(os.path.join(project, PROJECT_HUMANS_DIR), "project")


def user_keys() -> list[PublicKey]:
    """The public keys the user's trust list holds."""
    return _read_keys(user_trust_dir(), "user")


#: the trust list of a team server (``mem serve``) while it answers a request
_SERVING: ContextVar[dict[str, PublicKey] | None] = ContextVar("mem_serving_trust", default=None)


@contextmanager
def serving_trust(keys: dict[str, PublicKey]) -> Iterator[None]:
    """While the block runs (in this thread or task), :func:`trusted_keys`
    answers ``keys`` and nothing else: a team server judges signatures by
    the humans its own database registers, never by files on the host or a
    user's trust list."""
    token = _SERVING.set(dict(keys))
    try:
        yield
    finally:
        _SERVING.reset(token)


def trusted_keys(project: str | None) -> dict[str, PublicKey]:
    """Every key trusted in ``project`` (the project's list, then the user's),
    by fingerprint; inside :func:`serving_trust`, the server's list."""
    serving = _SERVING.get()
    if serving is not None:
        return dict(serving)
    keys: dict[str, PublicKey] = {}
    for key in (project_keys(project) if project else []) + user_keys():
        keys.setdefault(key.fingerprint, key)
    return keys


def local_key_names() -> list[str]:
    """The names of the private keys in the user config directory."""
    try:
        entries = sorted(os.listdir(os.path.join(config_dir(), "humans")))
    except OSError:
        return []
    return [entry[: -len(".key")] for entry in entries if entry.endswith(".key")]


def write_public_key(key: PublicKey, project: str | None) -> str:
    """Write ``key`` to where ``key.where`` says (the project's list: under
    the writer lock, atomically); refuse to replace a key of that name."""
    if key.where == "project":
        from mem_core.files import writer_lock
        from mem_core.files.io import replace_bytes
        from mem_core.files.paths import safe_file

        assert project is not None
        relative = f"{PROJECT_HUMANS_DIR}/{key.name}.pub"
        with writer_lock(project):
            path = safe_file(project, relative)
            if os.path.lexists(path):
                raise MemError(f"the project already trusts a human named {key.name} ({path}); nothing was changed.")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            replace_bytes(project, relative, key.line().encode("utf-8"))
        return path
    directory = user_trust_dir()
    _private_dir(directory)
    path = os.path.join(directory, f"{key.name}.pub")
    if os.path.lexists(path):
        raise MemError(f"your trust list already holds a human named {key.name} ({path}); nothing was changed.")
    _write_private_file(path, key.line().encode("utf-8"), mode=0o644)
    return path


# -- private keys ------------------------------------------------------------


def check_passphrase(passphrase: str) -> None:
    if len(passphrase) < PASSPHRASE_MIN:
        raise MemError(f"a passphrase has at least {PASSPHRASE_MIN} characters; no key was made.")


def _derive(passphrase: str, salt: bytes, params: dict[str, int]) -> bytes:
    return hashlib.scrypt(
        passphrase.encode("utf-8", "surrogatepass"),
        salt=salt,
        n=params["n"],
        r=params["r"],
        p=params["p"],
        maxmem=256 * 1024 * 1024,
        dklen=32,
    )


def _private_dir(directory: str) -> None:
    """Create ``directory`` (and its parents) owner-only."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)


def _write_private_file(path: str, data: bytes, *, mode: int = 0o600) -> None:
    """Write a new file atomically with ``mode``; never replaces one."""
    temporary = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        try:
            os.fchmod(fd, mode)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(temporary, path)  # fails when the file appeared meanwhile
    finally:
        os.unlink(temporary)


class HumanKey:
    """A person's unlocked private key: signs what they vouch for.

    Example usage::

        key = HumanKey.load("ada", passphrase)   # the passphrase she typed
        verify("fact/db_engine", signer=key)
    """

    def __init__(self, name: str, private: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self.name = parse_name(name)
        self._private = private
        self.raw_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.raw_public)

    def public_key(self, where: Trust, path: str = "") -> PublicKey:
        return PublicKey(self.name, self.raw_public, where, path)

    def sign(self, data: bytes) -> bytes:
        return self._private.sign(data)

    @classmethod
    def generate(cls, name: str) -> HumanKey:
        """A new key pair (not saved; see :meth:`save`)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(name, Ed25519PrivateKey.generate())

    def save(self, passphrase: str) -> str:
        """Write the private key, encrypted with ``passphrase``, to
        :func:`private_key_path` (owner-only); refuse to replace one."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

        check_passphrase(passphrase)
        path = private_key_path(self.name)
        if os.path.lexists(path):
            raise MemError(f"a private key named {self.name} exists already ({path}); nothing was changed.")
        salt, nonce = os.urandom(16), os.urandom(12)
        seed = self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        sealed = AESGCM(_derive(passphrase, salt, _SCRYPT)).encrypt(nonce, seed, self._aad())
        document = {
            "format": _KEY_FORMAT,
            "version": 1,
            "name": self.name,
            "public": self.public_key("user").line().strip(),
            "kdf": {"name": "scrypt", **_SCRYPT, "salt": _b64(salt)},
            "cipher": "aes-256-gcm",
            "nonce": _b64(nonce),
            "ciphertext": _b64(sealed),
        }
        _private_dir(os.path.dirname(path))
        _write_private_file(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
        return path

    def _aad(self) -> bytes:
        return self.name.encode("utf-8") + b"\x00" + self.raw_public

    @classmethod
    def load(cls, name: str, passphrase: str) -> HumanKey:
        """Unlock the private key ``name`` with ``passphrase``; a wrong
        passphrase or a damaged file is a one-line ``MemError``."""
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        name = parse_name(name)
        path = private_key_path(name)
        document = _read_key_file(path, name)
        try:
            kdf = document["kdf"]
            params = {"n": int(kdf["n"]), "r": int(kdf["r"]), "p": int(kdf["p"])}
            salt, nonce = _unb64(kdf["salt"]), _unb64(document["nonce"])
            sealed = _unb64(document["ciphertext"])
            raw_public = parse_public_line(document["public"])
            if kdf["name"] != "scrypt" or document["cipher"] != "aes-256-gcm" or raw_public is None:
                raise ValueError
        except (KeyError, TypeError, ValueError):
            raise MemError(f"the private key file {path} is damaged; nothing was changed.") from None
        aad = name.encode("utf-8") + b"\x00" + raw_public
        try:
            seed = AESGCM(_derive(passphrase, salt, params)).decrypt(nonce, sealed, aad)
        except (InvalidTag, ValueError):
            raise MemError(f"wrong passphrase for the human key {name}; nothing was changed.") from None
        key = cls(name, Ed25519PrivateKey.from_private_bytes(seed))
        if key.raw_public != raw_public:  # pragma: no cover - AES-GCM authenticated both
            raise MemError(f"the private key file {path} is damaged; nothing was changed.")
        return key


def _read_key_file(path: str, name: str) -> dict[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise MemError(f"no private key named {name} on this machine ({path}); nothing was changed.") from None
    except OSError as exc:
        raise MemError(f"cannot read the private key {path}: {exc.strerror}; nothing was changed.") from None
    try:
        data = os.read(fd, 65536)
    finally:
        os.close(fd)
    try:
        document = json.loads(data)
        if not isinstance(document, dict) or document.get("format") != _KEY_FORMAT:
            raise ValueError
    except ValueError:
        raise MemError(f"the private key file {path} is damaged; nothing was changed.") from None
    return document


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: object) -> bytes:
    if not isinstance(text, str):
        raise ValueError
    return base64.b64decode(text, validate=True)


def local_public(name: str) -> PublicKey | None:
    """The public half of the private key ``name`` on this machine (read from
    its file, not unlocked), ``None`` when there is none or it is damaged."""
    try:
        document = _read_key_file(private_key_path(name), name)
    except MemError:
        return None
    raw = parse_public_line(str(document.get("public", "")))
    return None if raw is None else PublicKey(name, raw, "user", private_key_path(name))
