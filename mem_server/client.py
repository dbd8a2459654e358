"""A client of the team server for the command line: the human's login and
the requests of the ``server`` memory store (:mod:`mem_plugins.stores.server`).

Standard library only (``urllib``): the store is on the path of commands
whose start-up counts. Every failure is a one-line ``MemError``; a server
that cannot be reached changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from mem_core.errors import MemError

__all__ = ["request", "human_login", "login", "session_token", "steps_for_read", "ServerError", "TIMEOUT_SECONDS"]

TIMEOUT_SECONDS = 30


class ServerError(MemError):
    """The server's refusal: its one-line message and HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def request(url: str, method: str, path: str, *, token: str | None = None, body: Any = None,
            query: dict[str, Any] | None = None, text: bool = False) -> Any:  # fmt: skip
    """One request; the JSON answer (``text``: the body as text)."""
    import urllib.error
    import urllib.parse
    import urllib.request

    target = url.rstrip("/") + path
    if query:
        target += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None}, doseq=True)
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(target, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_SECONDS) as response:
            payload = response.read()
    except urllib.error.HTTPError as exc:
        payload = exc.read()
        try:
            message = json.loads(payload)["error"]
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {exc.code}"
        raise ServerError(exc.code, f"the server {url} refused: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServerError(0, f"cannot reach the server {url}: {reason}; nothing was changed.") from None
    if text:
        return payload.decode("utf-8")
    try:
        return json.loads(payload)
    except ValueError:
        raise ServerError(0, f"the server {url} answered something that is not JSON") from None


def human_login(url: str, key: Any) -> str:
    """Log in as the human of ``key`` (an unlocked :class:`~mem_core.humans.keys.HumanKey`):
    sign the server's one-time challenge; returns the session token."""
    import base64

    from mem_server.credentials import login_payload

    challenge = request(url, "POST", "/v1/auth/challenge", body={"name": key.name})["challenge"]
    signature = base64.b64encode(key.sign(login_payload(challenge))).decode("ascii")
    answer = request(url, "POST", "/v1/auth/login", body={"name": key.name, "challenge": challenge,
                                                          "signature": signature})  # fmt: skip
    return str(answer["token"])


def _session_path(url: str) -> str:
    import hashlib
    import os

    from mem_core.humans.keys import config_dir

    digest = hashlib.sha256(url.rstrip("/").encode("utf-8")).hexdigest()[:24]
    return os.path.join(config_dir(), "sessions", f"{digest}.json")


def login(url: str, *, human: str | None = None, passphrase: str | None = None) -> dict[str, Any]:
    """``mem human login URL``: unlock the human key on this machine (``human``,
    or the only one) with ``passphrase`` — asked on the terminal device when
    not given — sign the server's challenge, and keep the session token in
    the user config directory (owner-only). Returns what was kept, without
    the token."""
    import os

    from mem_core.humans.keys import HumanKey, local_key_names, parse_name

    if not url.startswith(("http://", "https://")):
        raise MemError(f"the server URL starts with http:// or https:// (got {url[:80]!r})")
    names = local_key_names()
    if human is not None:
        parse_name(human)
        if human not in names:
            raise MemError(f"no human key {human} on this machine (mem human init); nothing was changed.")
    elif len(names) == 1:
        human = names[0]
    else:
        raise MemError("choose the human key with --human NAME" if names else
                       "no human key on this machine (mem human init); nothing was changed.")  # fmt: skip
    if passphrase is None:
        from mem_core.humans.terminal import Terminal

        refused = "login needs you at a terminal (mem could not open /dev/tty); nothing was changed."
        with Terminal.open(refused) as tty:
            passphrase = tty.ask(f"Passphrase of the human key {human}: ", echo=False)
    key = HumanKey.load(human, passphrase)
    token = human_login(url, key)
    path = _session_path(url)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    kept = {"url": url.rstrip("/"), "human": human, "fingerprint": key.fingerprint}
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, json.dumps({**kept, "token": token}).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    return {**kept, "sessionFile": path}


def session_token(url: str) -> str:
    """The session token ``mem human login URL`` kept; a one-line error when there is none."""
    try:
        with open(_session_path(url), encoding="utf-8") as handle:
            return str(json.load(handle)["token"])
    except (OSError, ValueError, KeyError, TypeError):
        raise MemError(f"not logged in to {url}: run `mem human login {url}`") from None


# -- the server store's transactions (mem_plugins.stores.server, mem_server.store) ----

#: reads whose answer is about the memories their ids name, and nothing else
_BY_ID = {"get": "memory_id", "history": "memory_id", "signatures": "memory_id", "id_known": "memory_id",
          "signatures_of": "memory_ids"}  # fmt: skip
_WRITES = ("insert", "update", "delete", "add_signature", "drop_signatures", "import_memory")


def _written(step: dict[str, Any]) -> tuple[object, object]:
    """The memory a write step touches: its id, and its (mind, category, key) when it carries a record."""
    args = step.get("args")
    if not isinstance(args, dict):
        return None, None
    record = args.get("record")
    if isinstance(record, dict):
        return record.get("id"), (record.get("mind_id"), record.get("category"), record.get("key"))
    signature = args.get("signature")
    if isinstance(signature, dict):
        return signature.get("memory_id"), None
    return args.get("memory_id"), None


def steps_for_read(steps: list[Any], op: str, args: dict[str, Any]) -> list[Any]:
    """The steps of a transaction a read inside it must see. A read about
    given memories (by id, or by (mind, category, key)) sees only the writes
    to them — and, by key, every ``delete``, which names only an id — since
    other writes cannot change its answer, and the commit replays every step
    anyway: reading a transaction's writes back one by one then costs each
    read its own writes, not all of them. Any other read sees every step."""
    if op == "get_by_key":
        if any(not isinstance(step, dict) or step.get("op") == "delete" for step in steps):
            return steps  # a delete names an id, not the key it frees
        wanted_key = (args.get("mind_id"), args.get("category"), args.get("key"))
        return [step for step in steps if step.get("op") in _WRITES and _written(step)[1] == wanted_key]
    name = _BY_ID.get(op)
    wanted = args.get(name) if name is not None else None
    ids = {wanted} if isinstance(wanted, str) else set(wanted) if isinstance(wanted, list) else None
    if ids is None or not all(isinstance(i, str) for i in ids):
        return steps
    return [step for step in steps if isinstance(step, dict) and step.get("op") in _WRITES
            and _written(step)[0] in ids]  # fmt: skip
