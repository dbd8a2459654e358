"""One replica of the team server and a request on it: its configuration
(:class:`ServerConfig`) and state (:class:`Server`), what a route's function
gets (:class:`Call`), the JSON every response is written in (:class:`Json`),
and the memory lookups the API's routes (:mod:`mem_server.app`), the store's
(:mod:`mem_server.store`), the review pages (:mod:`mem_server.review`) and
``/mcp`` (:mod:`mem_server.mcp`) share. Every one of those imports this
module; it imports none of them."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse

from mem_core.errors import MemError
from mem_server.credentials import AgentKey, HumanSession, Refused, ServerKey
from mem_server.db import ServerDB, Unavailable
from mem_server.metrics import Metrics

__all__ = ["ServerConfig", "Server", "Call", "Json", "SessionHuman", "memory_at", "about", "TIMESTAMP", "UNAVAILABLE"]

log = logging.getLogger("mem.serve")
_MEMORY_ID = re.compile(r"mem_[0-9a-f]{1,64}")
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
UNAVAILABLE = "the database is unreachable; try again (nothing was changed)"


@dataclass
class ServerConfig:
    """What one replica serves: the project directory, the store
    (``sqlite`` or ``postgres``), where the DSN is, the server's key."""

    project: str
    store: str
    key_file: str
    dsn: str | None = None
    rate_per_minute: int = 600
    #: how often the audit chain's head is written to the log
    head_log_seconds: float = 60.0

    def open_db(self) -> ServerDB:
        import os

        from mem_core.memories.records import project_store_dir
        from mem_server.db import SQLITE_FILE

        if self.store == "postgres":
            if not self.dsn:
                raise MemError("--store postgres needs the DSN in the environment variable postgres_dsn_env names")
            return ServerDB(dsn=self.dsn)
        return ServerDB(path=os.path.join(project_store_dir(self.project), SQLITE_FILE))


@dataclass
class Call:
    """What a route's function gets: who asks, the path and query
    parameters, the JSON body, and the server's state."""

    who: AgentKey | HumanSession | None
    path: dict[str, str]
    query: dict[str, str]
    body: dict[str, Any]
    now: str
    server: Server
    audit: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    @property
    def human(self) -> HumanSession | None:
        return self.who if isinstance(self.who, HumanSession) else None

    @property
    def agent(self) -> AgentKey | None:
        return self.who if isinstance(self.who, AgentKey) else None

    def param(self, name: str, default: str | None = None) -> str | None:
        return self.query.get(name, default)

    def mind(self, given: object = None) -> str:
        """The mind a request works in: an agent key's own (naming another is
        403); a human's as given, else the default."""
        if given is not None and not isinstance(given, str):
            raise Refused(400, "mind must be a string")
        agent = self.agent
        if agent is not None:
            if given is not None and given != agent.mind:
                raise Refused(403, f"the agent key {agent.id} is for the mind {agent.mind} only")
            return agent.mind
        return given if given is not None else self.server.default_mind

    def record(self, action: str, target: str, detail: dict[str, Any]) -> None:
        self.audit.append((action, target, detail))


class Server:
    """One replica's state: configuration, database handle, key, metrics.
    Nothing here is needed by another replica."""

    def __init__(self, config: ServerConfig) -> None:
        from mem_core.kernel import project_settings

        self.config = config
        self.db = config.open_db()
        self.key = ServerKey.load(config.key_file)
        self.db.signer = self.key
        self.metrics = Metrics()
        self.default_mind = project_settings(config.project, None).default_mind
        #: one kernel for the replica's life, as ``mem mcp`` keeps one (safe across threads)
        self.kernel = _kernel(config.project)
        self._create_store()

    def _create_store(self) -> None:
        """Create the store served when it is missing, at start: the store
        routes open it as it is, so that no request (a refused one above
        all) is what creates it. A database that is down now is no reason
        not to start: the first write creates it then."""
        from mem_core.api.memories import resolve_target

        try:
            target = resolve_target(self.kernel, False, self.config.project, None)
            if not target.backend.exists(target.directory):
                target.backend.open(target.directory, create=True).close()
        except MemError as error:
            log.warning("the memory store could not be created at start: %s", error)

    def check_database(self) -> bool:
        try:
            self.db.ping()
        except Unavailable:
            return False
        return True


def _kernel(project: str) -> Any:
    from mem_core.kernel import Kernel
    from mem_core.settings import load_settings

    return Kernel(settings=load_settings(project))


class Json(JSONResponse):
    """JSON as the command line's ``--json`` writes it (``JSON.stringify``:
    NaN is ``null``, a lone surrogate escaped), in UTF-8."""

    def render(self, content: Any) -> bytes:
        from mem_core.js.jsonfmt import dumps

        return dumps(content).encode("utf-8")


class SessionHuman:
    """A logged-in human where ``mem_core`` asks only whether a trusted human
    is present (forgetting a memory a human confirmed): nothing is signed."""

    def __init__(self, session: HumanSession) -> None:
        self.name = session.human
        self.fingerprint = session.fingerprint

    def sign(self, data: bytes) -> bytes:  # pragma: no cover - forget signs nothing
        raise Refused(400, "this action needs the human key's signature")


def memory_at(call: Call) -> dict[str, Any]:
    """The current memory the path's id names, judged; 404 when there is
    none or (for an agent key) it is in another mind."""
    from mem_core.api.memories import memory_history

    memory_id = call.path["id"]
    missing = Refused(404, f"No memory {memory_id[:80]} on this server.")
    if not _MEMORY_ID.fullmatch(memory_id):
        raise missing
    try:
        history = memory_history(memory_id, directory=call.server.config.project, kernel=call.server.kernel)
    except MemError:
        raise missing from None
    last = history.entries[-1]
    if last.action == "delete" or call.agent is not None and last.memory.mind_id != call.agent.mind:
        raise missing
    memory = _current(call.server.config.project, memory_id, last.memory.mind_id, call.server.kernel)
    if memory is None:
        raise missing
    return memory


def _current(project: str, memory_id: str, mind: str, kernel: Any) -> dict[str, Any] | None:
    """The memory as its row is now (the history keeps what was written;
    the row is what an edit in the database would change), judged by its
    signatures."""
    from mem_core.api.memories import judge, resolve_target
    from mem_core.memories.results import memory_json

    target = resolve_target(kernel, False, project, mind)
    if not target.backend.exists(target.directory):
        return None
    with target.backend.open_read_only(target.directory) as store:
        record = store.get(memory_id)
        if record is None:
            return None
        return memory_json(judge(store, [record], project)[0])


def about(memory: dict[str, Any]) -> dict[str, Any]:
    from mem_core.memories.trust import content_sha256

    return {"mind": memory["mind_id"], "category": memory["category"], "key": memory["key"],
            "contentSha256": content_sha256(memory["content"])}  # fmt: skip
