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

__all__ = ["request", "human_login", "ServerError", "TIMEOUT_SECONDS"]

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
