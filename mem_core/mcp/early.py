"""``mem mcp`` on stdio answers the handshake before the SDK is loaded.

Importing the MCP Python SDK takes 0.6 s on a quiet machine (its pydantic
types alone, ``mcp.types``, most of it) and seconds on a loaded one, and
some assistants do not wait that long: under load Claude Code sent its first
request to the model without ``mem``'s tools. So the process reads stdin on
a thread of its own from its first milliseconds (:func:`start`, called by
``mem_cli.main`` before anything else is imported) and, until the SDK's
server takes over (:meth:`EarlyStdio.hand_over`), answers two requests
itself from plain data:

* ``initialize`` — what the SDK's ``ServerSession`` answers: the client's
  protocol version when the SDK supports it (else its latest), the server's
  capabilities, name, version and instructions;
* ``tools/list`` — the tools of :mod:`mem_core.mcp.tools`, as the SDK lists
  them.

Every line read is also queued for the SDK's server, in order, so that its
session goes through the same handshake; its own answers to the requests
answered here are dropped (:meth:`EarlyStdio.answered_here`).
``tests/mcp/test_mcp_early.py`` checks both answers against the SDK's.

This module imports no SDK and no pydantic.
"""

from __future__ import annotations

import json
import sys
import threading
from queue import SimpleQueue
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, BinaryIO

__all__ = ["EarlyStdio", "start", "SUPPORTED_PROTOCOL_VERSIONS", "LATEST_PROTOCOL_VERSION"]

#: the protocol versions of the SDK pinned in pyproject.toml (``mcp.shared.version``; a test compares)
SUPPORTED_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = "2025-11-25"
#: what ``Server.create_initialization_options()`` announces for mem's handlers
CAPABILITIES = {
    "experimental": {},
    "prompts": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "tools": {"listChanged": False},
}

_started: EarlyStdio | None = None


def initialize_result(params: Any) -> dict[str, Any] | None:
    """The result of ``initialize`` with ``params``; ``None`` when the
    request is not one to answer here (the SDK will say what is wrong)."""
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return None
    if not isinstance(params.get("capabilities"), dict) or not isinstance(params.get("clientInfo"), dict):
        return None
    from mem_core.mcp.tools import INSTRUCTIONS
    from mem_core.version import __version__

    version = params["protocolVersion"]
    return {
        "protocolVersion": version if version in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "mem", "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def tools_list_result() -> dict[str, Any]:
    """The result of ``tools/list``."""
    from mem_core.mcp.tools import TOOLS

    return {
        "tools": [
            {
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "inputSchema": tool.input_schema,
                "outputSchema": tool.output_schema,
                "annotations": tool.annotations(),
            }
            for tool in TOOLS
        ]
    }


class EarlyStdio:
    """stdin read line by line on a thread, the handshake answered on
    ``stdout`` until :meth:`hand_over`; :meth:`next_line` gives every line
    to the SDK's server, and :meth:`write` is how both write to ``stdout``."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._lines: SimpleQueue[bytes | None] = SimpleQueue()
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._early = True
        self._initialized = False
        #: the ids of the requests answered here, whose SDK answers are dropped
        self._answered: list[Any] = []
        self._thread = threading.Thread(target=self._read, name="mem-mcp-stdin", daemon=True)

    def start(self) -> EarlyStdio:
        self._thread.start()
        return self

    def _read(self) -> None:
        try:
            for line in iter(self._stdin.readline, b""):
                with self._state_lock:
                    if self._early:
                        self._answer(line)
                    self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _answer(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return
        ident = message.get("id")
        if not isinstance(ident, (str, int)) or isinstance(ident, bool):
            return
        method = message.get("method")
        if method == "initialize" and not self._initialized:
            result = initialize_result(message.get("params"))
            self._initialized = result is not None
        elif method == "tools/list" and self._initialized:
            result = tools_list_result()
        else:
            return
        if result is None:
            return
        self._answered.append(ident)
        answer = json.dumps(
            {"jsonrpc": "2.0", "id": ident, "result": result}, ensure_ascii=False, separators=(",", ":")
        )
        self.write(answer.encode("utf-8") + b"\n")

    def hand_over(self) -> None:
        """From now on the SDK's server answers every request."""
        with self._state_lock:
            self._early = False

    def answered_here(self, ident: Any) -> bool:
        """Whether the request ``ident`` was answered here (once: the id may
        be used again afterwards)."""
        with self._state_lock:
            for n, answered in enumerate(self._answered):
                if answered == ident and type(answered) is type(ident):
                    del self._answered[n]
                    return True
        return False

    def next_line(self) -> bytes | None:
        """The next line of stdin (blocking); ``None`` at its end."""
        return self._lines.get()

    def write(self, data: bytes) -> None:
        with self._write_lock:
            self._stdout.write(data)
            self._stdout.flush()


def start(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> EarlyStdio:
    """Start answering on stdio (once per process: later calls return the
    one started)."""
    global _started
    if _started is None:
        _started = EarlyStdio(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer).start()
    return _started
