"""The ``mem mcp`` server: the tools of :mod:`mem_core.mcp.tools` on the MCP
Python SDK's low-level server, over stdio or streamable HTTP.

* One :class:`~mem_core.kernel.Kernel` for the server's life, passed to
  every API call.
* The project is fixed when the server starts; no tool chooses it.
* Tool calls run in worker threads, so that a slow call never holds up the
  others; calls that change files need no serialising of their own (the
  writer lock excludes other threads and processes alike, the stores have
  their transactions). Files are read by identity: a changed file is seen by
  the next call (the kernel's file cache).
* A failure is an MCP error result (``isError: true``) whose text is the
  CLI's one-line message; nothing but protocol goes to stdout (anything else
  printed goes to stderr, and so does logging).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError, UsageError
from mem_core.mcp.tools import INSTRUCTIONS, TOOLS, Tool, ToolContext

if TYPE_CHECKING:
    from mcp import types
    from mcp.server.lowlevel import Server

    from mem_core.kernel import Kernel

__all__ = ["MemServer", "serve", "parse_http", "INSTRUCTIONS"]

log = logging.getLogger("mem.mcp")

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class ToolFailure(Exception):
    """A tool call failed; ``message`` is the one line the CLI would print."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MemServer:
    """The tools, bound to one project and one kernel.

    :meth:`call` runs a tool and returns its structured result (what the
    command prints with ``--json``) and that JSON as compact text; it raises
    :class:`ToolFailure` with the CLI's message. Safe to call from many
    threads at once.
    """

    def __init__(self, project: str, *, portfolio: str | None = None, kernel: Kernel | None = None) -> None:
        if kernel is None:
            from mem_core.kernel import Kernel
            from mem_core.settings import load_settings

            kernel = Kernel(settings=load_settings(project))
        self.context = ToolContext(project=project, kernel=kernel, portfolio=portfolio)
        self.tools: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
        self._validators = {tool.name: _validator(tool.input_schema) for tool in TOOLS}

    @property
    def project(self) -> str:
        return self.context.project

    @property
    def kernel(self) -> Kernel:
        return self.context.kernel

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
        tool = self.tools.get(name)
        if tool is None:
            raise ToolFailure(f"unknown tool '{name}'")
        arguments = arguments or {}
        problem = next(iter(self._validators[name].iter_errors(arguments)), None)
        if problem is not None:
            raise ToolFailure(f"Input validation error: {problem.message}")
        try:
            # concurrent writes are safe: the writer lock excludes threads and
            # processes alike, and the stores their own transactions
            result = tool.run(self.context, arguments)
        except MemError as exc:
            for note in exc.notes:
                log.warning("mem %s: %s", name, note)
            raise ToolFailure(exc.message) from None
        except Exception as exc:  # never a traceback to the client
            log.debug("mem %s failed", name, exc_info=True)
            raise ToolFailure(str(exc) or type(exc).__name__) from None
        from mem_core.js.jsonfmt import dumps
        from mem_core.textsafe import escape_json

        text = dumps(result.to_json())  # compact: every byte of it is a token the agent pays for
        # the text content shows no raw bidirectional or zero-width character
        return json.loads(text), escape_json(text)

    def result(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """:meth:`call` as an MCP result (an error result on failure)."""
        from mcp import types

        try:
            structured, text = self.call(name, arguments)
        except ToolFailure as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=exc.message)], isError=True)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structuredContent=structured, isError=False
        )

    def mcp_tools(self) -> list[types.Tool]:
        from mcp import types

        return [
            types.Tool(
                name=tool.name,
                title=tool.title,
                description=tool.description,
                inputSchema=tool.input_schema,
                outputSchema=tool.output_schema,
                annotations=types.ToolAnnotations(**tool.annotations()),
            )
            for tool in TOOLS
        ]

    def build(self) -> Server[Any, Any]:
        """The SDK's low-level server with the tools registered."""
        import anyio
        from mcp.server.lowlevel import Server

        from mem_core.version import __version__

        server: Server[Any, Any] = Server("mem", version=__version__, instructions=INSTRUCTIONS)
        listed = self.mcp_tools()

        @server.list_tools()
        async def list_tools() -> list[types.Tool]:
            return listed

        # nothing to list, but clients that ask (the Inspector's resources/list) get an answer
        @server.list_resources()
        async def list_resources() -> list[types.Resource]:
            return []

        @server.list_prompts()
        async def list_prompts() -> list[types.Prompt]:
            return []

        @server.call_tool(validate_input=False)  # validated in call(), with compiled schemas
        async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await anyio.to_thread.run_sync(self.result, name, arguments)

        return server


def _validator(schema: dict[str, Any]) -> Any:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# -- transports -------------------------------------------------------------------


def parse_http(value: str) -> tuple[str, int]:
    """``--http HOST:PORT`` (loopback only; port 0 picks a free one)."""
    host, sep, port_text = value.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not port_text.isdigit() or int(port_text) > 65535:
        raise UsageError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8765), got '{value}'")
    if host not in LOOPBACK:
        raise UsageError(f"--http serves loopback only (127.0.0.1, localhost or [::1]), got '{host}'")
    return host, int(port_text)


def _logging() -> None:
    level = logging.DEBUG if os.environ.get("MEM_DEBUG") == "1" else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mem mcp: %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


async def _run_stdio(mem: MemServer) -> None:
    """The SDK's server on the lines :mod:`mem_core.mcp.early` has read
    (and answered, for the handshake) since the process started; what it
    answers goes out as the SDK's stdio transport writes it."""
    import anyio
    from mcp import types
    from mcp.shared.message import SessionMessage

    from mem_core.mcp.early import start

    early = start()
    # the protocol owns fd 1; a stray print() goes to stderr instead
    sys.stdout = sys.stderr
    server = mem.build()
    incoming_send, incoming = anyio.create_memory_object_stream[Any](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[Any](0)

    async def read() -> None:
        async with incoming_send:
            while True:
                line = await anyio.to_thread.run_sync(early.next_line, abandon_on_cancel=True)
                if line is None:
                    return
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except Exception as exc:  # the session reports it, as the SDK's transport does
                    await incoming_send.send(exc)
                    continue
                await incoming_send.send(SessionMessage(message))

    async def write() -> None:
        async with outgoing_receive:
            async for sent in outgoing_receive:
                message = sent.message.root
                if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and early.answered_here(message.id):
                    continue
                data = sent.message.model_dump_json(by_alias=True, exclude_none=True)
                await anyio.to_thread.run_sync(early.write, data.encode("utf-8") + b"\n")

    early.hand_over()
    from mem_core.hooks.server import serve_hybrid

    serve_hybrid(mem.project, mem.kernel)  # after the handshake: the model loads in a thread
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        await server.run(incoming, outgoing, server.create_initialization_options())
        tasks.cancel_scope.cancel()


async def _run_http(mem: MemServer, host: str, port: int) -> None:
    import socket

    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(
        app=mem.build(),
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        ),
    )

    class Endpoint:
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    app = Starlette(routes=[Route("/mcp", endpoint=Endpoint())], lifespan=lambda _app: manager.run())
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise MemError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"mem mcp: serving http://{shown}:{bound}/mcp (project {mem.project})", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", log_config=None)
    await uvicorn.Server(config).serve(sockets=[sock])


def serve(project: str, *, http: str | None = None, portfolio: str | None = None) -> None:
    """Run the server until the client goes away (stdio) or it is
    interrupted (HTTP)."""
    import anyio

    address = parse_http(http) if http is not None else None
    if not os.path.isdir(project):
        raise MemError(f"project directory not found: {project}")
    _logging()
    mem = MemServer(project, portfolio=os.path.abspath(portfolio) if portfolio else None)
    if address is None:
        anyio.run(_run_stdio, mem)
    else:
        anyio.run(_run_http, mem, *address)
