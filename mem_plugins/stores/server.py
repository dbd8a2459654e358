"""Memory store ``server``: a project's structured memories on a team server (``mem serve``).

Select it with ``store = "server"`` and ``server_url = "https://mem.example.com"``
in the project's ``.bmad/memory/mem.toml`` and put the agent key
(``mem serve keys create``) in the environment variable the
``server_key_env`` setting names, ``MEM_SERVER_KEY`` by default — never in a
config file. ``remember``, ``memories``, ``forget``, ``context``, ``recall``'s
memories and ``mem mcp``'s memory tools then run ``mem_core``'s own code —
validation, the trust rules, ``verified`` computed from signatures by the keys
this machine trusts — against the memories the server keeps, which its
``/v1/memory`` routes serve too.

* **Directory → server.** The store's directory holds a marker,
  ``memories.server.json``, naming the server's URL; :meth:`exists` reads only
  the marker (recall asks on every run). The server keeps one store: every
  directory whose marker names it shares it (an agent key sees its mind).
* **Reads** are one request each (``POST /v1/store/read``), over one kept
  HTTP connection.
* **Transactions** take the server's lease (``/v1/store/lock``, waited for
  up to :data:`LOCK_TIMEOUT_SECONDS`), keep their writes here and send them
  with every read they made (and the digest of its answer) in one
  ``/v1/store/commit``: the server replays them in one store transaction
  and refuses the whole (409, nothing changed) if any read answers otherwise
  now. A read inside a transaction sends the writes so far, which the server
  applies, reads after and rolls back: a transaction reads its own writes.
* **Humans.** What only a human may do — verify, store as the user, forget
  what a human confirmed, import — is sent with the session ``mem human login
  URL`` opened on this machine; without one it goes with the agent key, and
  the server refuses it (403, its one-line message).
* **Failures** are one-line ``MemError``\\ s; a server that cannot be reached
  changes nothing (a transaction's writes are sent only by its commit).

Standard library only (``http.client``): the store is on the start-up path of
``mem recall`` and the hooks.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mem_core.plugin import SERVER_MARKER, MemError, MemoryStore, server_store_at

if TYPE_CHECKING:
    from typing import Any, ClassVar

    from mem_core.plugin import MemoryFilter, Settings

__all__ = ["ServerStore", "MARKER", "KEY_ENV", "LOCK_TIMEOUT_SECONDS"]

#: the file in a store's directory that names its server
MARKER = SERVER_MARKER
#: where the agent key is by default (the ``server_key_env`` setting)
KEY_ENV = "MEM_SERVER_KEY"
#: how long a transaction waits for the server's lease
LOCK_TIMEOUT_SECONDS = 30.0
#: how long one request may take
REQUEST_TIMEOUT_SECONDS = 30.0
_SESSION_PREFIX = "mem_hs_"
_FILTER = ("mind_id", "category", "tag", "source", "verified", "priority", "include_expired", "now",
           "expires_before", "limit")  # fmt: skip


def _read_marker(directory: str) -> str | None:
    path = os.path.join(directory, MARKER)
    try:
        with open(path, encoding="utf-8") as handle:
            url = json.load(handle)["url"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        raise MemError(f"{path} is not a server store marker (delete it, or restore it from version control)") from None
    if not isinstance(url, str):
        raise MemError(f"{path} is not a server store marker (delete it, or restore it from version control)")
    return url


def _write_marker(directory: str, url: str) -> None:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, MARKER)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"url": url}) + "\n")
    os.replace(temporary, path)


def _records(value: Any) -> Any:
    """A record (or a list of them) as the interface types it: the JSON
    of a whole-number confidence reads back as an int."""
    if isinstance(value, list):
        return [_records(item) for item in value]
    if isinstance(value, dict) and "confidence" in value:
        value["confidence"] = float(value["confidence"])
    return value


class ServerStore(MemoryStore):
    """The store a team server keeps (see the module's docstring)."""

    name = "server"
    help = f"the memories of a team server (mem serve): server_url, the agent key in ${KEY_ENV}"

    #: the server; ``None`` until configured, ``""`` when no setting names one
    url: ClassVar[str | None] = None
    #: the credential sent: an agent key (or a human's session token)
    key: ClassVar[str] = ""
    key_env: ClassVar[str] = KEY_ENV

    @classmethod
    def bind(cls, url: str, key: str, *, variable: str | None = None) -> type[ServerStore]:
        """This backend on ``url`` with the credential ``key`` (programs and
        tests that hold their own); ``variable``: where the key came from."""
        namespace = {
            "url": url.rstrip("/"),
            "key": key,
            "key_env": variable or cls.key_env,
            "__module__": cls.__module__,
        }
        return type(cls.__name__, (cls,), namespace)

    @classmethod
    def configure(cls, settings: Settings) -> type[ServerStore]:
        """Bound to ``server_url`` and the key in the variable ``server_key_env``
        names (read now, never kept in a config file); a bound class stays."""
        if cls.url is not None:
            return cls
        return cls.bind(settings.server_url or "", settings.server_key(), variable=settings.server_key_env)

    @classmethod
    def exists(cls, directory: str) -> bool:
        return server_store_at(directory)

    @classmethod
    def _checked_url(cls, directory: str, marker: str | None) -> str:
        if not cls.url:
            raise MemError(
                "the server store needs server_url: `mem config set server_url https://…` (or MEM_SERVER_URL)"
            )
        if marker is not None and marker.rstrip("/") != cls.url:
            raise MemError(
                f"the server store in {directory} is on {marker}, but server_url is {cls.url}: set server_url to "
                f"{marker} (or move {os.path.join(directory, MARKER)} away)"
            )
        return cls.url

    @classmethod
    def open(cls, directory: str, *, create: bool) -> ServerStore:
        marker = _read_marker(directory)
        if marker is None and not create:
            raise MemError(f"No memory store in {directory} (no {MARKER}).")
        store = cls(directory, cls._checked_url(directory, marker), read_only=False)
        if marker is None:
            store._request("/v1/store/read", {"read": {"op": "minds", "args": {}}})  # reachable, and the key is good
            _write_marker(directory, store.location)
        return store

    @classmethod
    def open_read_only(cls, directory: str) -> ServerStore:
        marker = _read_marker(directory)
        if marker is None:
            raise MemError(f"No memory store in {directory} (no {MARKER}).")
        return cls(directory, cls._checked_url(directory, marker), read_only=True)

    def __init__(self, directory: str, url: str, *, read_only: bool) -> None:
        from urllib.parse import urlsplit

        self.directory = directory
        self._url = url
        self.read_only = read_only
        parts = urlsplit(url)
        self._https = parts.scheme == "https"
        self._netloc = parts.netloc
        self._base = parts.path.rstrip("/")
        self._conn: Any = None
        self._closed = False
        #: the transaction's steps (its writes and the reads it made), ``None`` outside one
        self._steps: list[dict[str, Any]] | None = None
        self._lease: str | None = None
        #: ids a read showed as stated or confirmed by a human (forgetting one is a human's)
        self._confirmed: set[str] = set()

    @property
    def location(self) -> str:
        return self._url

    def close(self) -> None:
        self._closed = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def doctor(self, fix: bool) -> list[dict[str, str]]:
        """Whether the server answers this credential (``mem doctor``)."""
        del fix  # nothing here to repair
        try:
            minds = self.minds()
        except MemError as exc:
            return [{"name": "server", "status": "error", "detail": " ".join(str(exc).split())}]
        return [
            {"name": "server", "status": "ok", "detail": f"{self._url} answers; the key reads {len(minds)} mind(s)"}
        ]

    # -- requests ---------------------------------------------------------------

    def _token(self, human: bool) -> str:
        """The credential of a request: the key; for what only a human may
        do, or where no key is set, the session of ``mem human login URL``."""
        if (human or not self.key) and not self.key.startswith(_SESSION_PREFIX):
            from mem_server.client import session_token

            try:
                return session_token(self._url)
            except MemError:
                pass  # no human login here: the agent key asks, and the server refuses
        if self.key:
            return self.key
        raise MemError(
            f"the server store's agent key is not set: put it in ${self.key_env} (server_key_env names the variable; "
            "never a config file); nothing was changed."
        )

    def _request(self, path: str, body: dict[str, Any], *, human: bool = False) -> Any:
        import http.client

        from mem_core.plugin import json_dumps as dumps
        from mem_server.client import ServerError

        if self._closed:
            raise MemError(f"the server store {self._url} is closed")
        data = dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Authorization": f"Bearer {self._token(human)}"}  # fmt: skip
        for attempt in (1, 2):
            reused = self._conn is not None
            if self._conn is None:
                connection = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
                self._conn = connection(self._netloc, timeout=REQUEST_TIMEOUT_SECONDS)
            try:
                self._conn.request("POST", self._base + path, body=data, headers=headers)
                response = self._conn.getresponse()
                payload = response.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self._conn.close()
                self._conn = None
                # a kept connection the server closed while idle: once more on a new one
                if attempt == 1 and reused and isinstance(exc, (http.client.RemoteDisconnected, ConnectionError)):
                    continue
                reason = " ".join(str(getattr(exc, "reason", None) or exc or type(exc).__name__).split())
                raise ServerError(0, f"cannot reach the server {self._url}: {reason}; nothing was changed.") from None
        if response.status >= 400:
            try:
                message = json.loads(payload)["error"]
            except (ValueError, KeyError, TypeError):
                message = f"HTTP {response.status}"
            raise ServerError(response.status, f"the server {self._url} refused: {message}")
        try:
            return json.loads(payload)
        except ValueError:
            raise ServerError(0, f"the server {self._url} answered something that is not JSON") from None

    def _read(self, op: str, **args: Any) -> Any:
        body: dict[str, Any] = {"read": {"op": op, "args": args}}
        if self._steps:
            from mem_server.client import steps_for_read

            body["steps"] = steps_for_read(self._steps, op, args)
        if self._lease is not None:
            body["lease"] = self._lease
        answer = self._request("/v1/store/read", body)
        if self._steps is not None:
            self._steps.append({"op": op, "args": args, "digest": answer["digest"]})
        return answer["result"]

    def _write(self, op: str, **args: Any) -> None:
        if self._closed:
            raise MemError(f"the server store {self._url} is closed")
        if self._steps is None:
            raise RuntimeError(f"{op} outside a transaction")
        self._steps.append({"op": op, "args": args})

    @staticmethod
    def _where(where: MemoryFilter) -> dict[str, Any]:
        return {name: getattr(where, name) for name in _FILTER}

    def _seen(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in records:
            if record["source"] == "user" or record["verified"]:
                self._confirmed.add(record["id"])
        return records

    # -- transactions ----------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        from mem_server.client import ServerError

        if self._steps is not None:
            raise RuntimeError("transactions do not nest")
        if self.read_only:
            raise MemError(f"the server store {self._url} was opened for reading; nothing was changed.")
        deadline = time.monotonic() + LOCK_TIMEOUT_SECONDS
        while True:
            try:
                self._lease = self._request("/v1/store/lock", {})["lease"]
                break
            except ServerError as exc:
                if exc.status != 409 or time.monotonic() > deadline:
                    raise
        self._steps = []
        try:
            yield
        except BaseException:
            self._steps = None
            self._unlock()
            raise
        steps, self._steps = self._steps, None
        try:
            self._request("/v1/store/commit", {"steps": steps, "lease": self._lease}, human=self._by_human(steps))
        except BaseException:
            self._unlock()
            raise
        self._lease = None

    def _unlock(self) -> None:
        lease, self._lease = self._lease, None
        try:
            self._request("/v1/store/unlock", {"lease": lease})
        except MemError:
            pass  # the lease ends by itself

    def _by_human(self, steps: list[dict[str, Any]]) -> bool:
        """Whether a transaction does what only a human may."""
        for step in steps:
            op, args = step["op"], step["args"]
            if op in ("add_signature", "import_memory") or args.get("action") == "verify":
                return True
            if op in ("insert", "update") and (args["record"]["source"] == "user" or args["record"]["verified"]):
                return True
            if op == "delete" and args["memory_id"] in self._confirmed:
                return True
        return False

    # -- reads ------------------------------------------------------------------

    def get(self, memory_id: str) -> dict[str, Any] | None:
        found = _records(self._read("get", memory_id=memory_id))
        return self._seen([found])[0] if found is not None else None

    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:
        found = _records(self._read("get_by_key", mind_id=mind_id, category=category, key=key))
        return self._seen([found])[0] if found is not None else None

    def id_known(self, memory_id: str) -> bool:
        return bool(self._read("id_known", memory_id=memory_id))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        entries = self._read("history", memory_id=memory_id)
        for entry in entries:
            _records(entry["memory"])
        return list(entries)

    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:
        return self._seen(_records(self._read("query", where=self._where(where))))

    def count(self, where: MemoryFilter) -> int:
        return int(self._read("count", where=self._where(where)))

    def signed(self, where: MemoryFilter) -> list[dict[str, Any]]:
        return self._seen(_records(self._read("signed", where=self._where(where))))

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        return self._seen(_records(self._read("search", words=list(words), where=self._where(where))))

    def search_count(self, words: list[str], where: MemoryFilter) -> int:
        return int(self._read("search_count", words=list(words), where=self._where(where)))

    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:
        return _records(self._read("recall_candidates", tokens=None if tokens is None else list(tokens), now=now))

    def minds(self) -> list[tuple[str, int]]:
        return [(name, int(count)) for name, count in self._read("minds")]

    def known_ids(self) -> list[str]:
        return list(self._read("known_ids"))

    def signatures(self, memory_id: str) -> list[dict[str, Any]]:
        rows = list(self._read("signatures", memory_id=memory_id))
        if rows:
            self._confirmed.add(memory_id)
        return rows

    def signatures_of(self, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        found = dict(self._read("signatures_of", memory_ids=list(memory_ids)))
        self._confirmed.update(memory_id for memory_id, rows in found.items() if rows)
        return found

    # -- writes -----------------------------------------------------------------

    def insert(self, record: dict[str, Any], *, at: str, action: str = "create") -> None:
        self._write("insert", record=dict(record), at=at, action=action)

    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:
        self._write("update", record=dict(record), action=action, at=at)

    def delete(self, memory_id: str, *, at: str) -> None:
        self._write("delete", memory_id=memory_id, at=at)

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        entries = [{"action": e["action"], "at": e["at"], "memory": dict(e["memory"])} for e in history]
        self._write("import_memory", record=dict(record), history=entries, forgotten=forgotten)

    def add_signature(self, signature: dict[str, Any]) -> None:
        self._write("add_signature", signature=dict(signature))

    def drop_signatures(self, memory_id: str) -> None:
        self._write("drop_signatures", memory_id=memory_id)
