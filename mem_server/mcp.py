"""``/mcp``: the tools of ``mem mcp`` over streamable HTTP on the team
server, for agent keys, each call kept to the key's mind.

The SDK's session manager runs **stateless** (``stateless=True``, JSON
responses): a replica keeps no MCP session, so any replica answers any
request. Each request is authenticated like the API's (the key read from
the database, its rate counted there); the key rides in a context variable
into the tool call's worker thread, where :class:`ScopedTools` pins the
``mind`` of every memory tool to the key's, refuses the user-level store,
writing tools to a read-only key, and another mind's memory named by id,
keeps ``recall``'s results to the key's mind and the journal, and appends
every writing call to the audit log.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from mem_core.mcp.server import MemServer, ToolFailure
from mem_server.credentials import AgentKey, Refused, authenticate, charge_rate, trust_list

if TYPE_CHECKING:
    from mem_server.replica import Server

__all__ = ["ScopedTools", "mcp_endpoint"]

#: the agent key of the MCP request being served
_CALLER: ContextVar[AgentKey | None] = ContextVar("mem_mcp_caller", default=None)
#: the tools whose ``mind`` argument names the memories they work on
_MIND_TOOLS = ("remember", "memories", "forget", "context")


class ScopedTools(MemServer):
    """The ``mem mcp`` tools over the server's project, for one agent key at a time."""

    def __init__(self, server: Server) -> None:
        super().__init__(server.config.project)
        self.server = server

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
        from mem_core.clock import now_iso
        from mem_core.humans.keys import serving_trust

        key = _CALLER.get()
        if key is None:  # pragma: no cover - the endpoint sets it before any call
            raise ToolFailure("no agent key")
        tool = self.tools.get(name)
        arguments = dict(arguments or {})
        if tool is not None:
            if key.read_only and not tool.read_only:
                raise ToolFailure(f"the agent key {key.id} is read-only")
            if arguments.get("user"):
                raise ToolFailure("on the team server an agent key works in its mind, never in a user store")
            if name in _MIND_TOOLS:
                given = arguments.get("mind")
                if given is not None and given != key.mind:
                    raise ToolFailure(f"the agent key {key.id} is for the mind {key.mind} only")
                arguments["mind"] = key.mind
            if name == "forget":
                self._own_memory(key, arguments.get("ref"))
            if name == "recall" and arguments.get("scope") not in (None, "project"):
                raise ToolFailure("on the team server recall covers the server's project only")
        with self.server.db.transaction() as cursor:
            trust = trust_list(cursor, self.server.key)
        with serving_trust(trust):
            structured, text = super().call(name, arguments)
        if name == "recall":
            structured["results"] = [
                r for r in structured.get("results", [])
                if (r.get("memory") or {}).get("mind_id") == key.mind or r.get("source") == "journal"
            ]  # fmt: skip
            structured["count"] = len(structured["results"])
            text = _text(structured)
        if tool is not None and not tool.read_only:
            from mem_server import audit

            target = str(arguments.get("key") or arguments.get("ref") or arguments.get("pattern") or "")[:200]
            with self.server.db.transaction() as cursor:
                audit.append(cursor, key.actor, f"mcp.{name}", f"mind:{key.mind}", {"ref": target}, now_iso())
        return structured, text

    def _own_memory(self, key: AgentKey, ref: object) -> None:
        """Refuse ``forget`` of another mind's memory named by its id (a
        ``category/key`` is looked up in the key's mind anyway)."""
        import re

        from mem_core.api.memories import memory_history
        from mem_core.errors import MemError

        if not isinstance(ref, str) or not re.fullmatch(r"mem_[0-9a-f]{1,64}", ref):
            return
        try:
            history = memory_history(ref, directory=self.server.config.project)
        except MemError:
            return  # forget itself answers "No memory …"
        if history.entries[-1].memory.mind_id != key.mind:
            raise ToolFailure(f"No memory {ref} in the project store.")


def _text(structured: dict[str, Any]) -> str:
    from mem_core.js.jsonfmt import dumps
    from mem_core.textsafe import escape_json

    return escape_json(dumps(structured, 2))


def mcp_endpoint(server: Server) -> tuple[Any, Any]:
    """The ASGI endpoint of ``/mcp`` and the session manager whose ``run()``
    the application's lifespan holds open."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.concurrency import run_in_threadpool

    from mem_core.clock import now_iso
    from mem_server.db import Unavailable
    from mem_server.replica import UNAVAILABLE, Json

    tools = ScopedTools(server)
    manager = StreamableHTTPSessionManager(
        app=tools.build(),
        stateless=True,
        json_response=True,
        # bearer keys, not cookies, authenticate: a page a browser loads from
        # a rebound name cannot send one
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    def admit(token: str | None) -> AgentKey:
        now = now_iso()
        with server.db.transaction() as cursor:
            who = authenticate(cursor, token, now)
            if not isinstance(who, AgentKey):
                raise Refused(403, "/mcp is for agent keys; a human uses the API or the CLI")
            charge_rate(cursor, who, now)
        return who

    class Endpoint:
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            header = headers.get("authorization", "")
            scheme, _, value = header.partition(" ")
            token = value.strip() if scheme.lower() == "bearer" else (None if not header else "")
            try:
                key = await run_in_threadpool(admit, token)
            except Refused as refused:
                await Json({"error": str(refused)}, status_code=refused.status)(scope, receive, send)
                return
            except Unavailable:
                await Json({"error": UNAVAILABLE}, status_code=503)(scope, receive, send)
                return
            reset = _CALLER.set(key)
            try:
                await manager.handle_request(scope, receive, send)
            finally:
                _CALLER.reset(reset)

    return Endpoint(), manager
