"""``mem mcp`` answers the handshake before the SDK is loaded
(:mod:`mem_core.mcp.early`): its answers are the SDK's, and a real process
gives them while importing the SDK is held back."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from mem_core.mcp import early
from mem_core.mcp.server import MemServer
from tests.mcp.conftest import MEM

#: delays ``import mcp`` until the file named by MEM_TEST_SDK_GATE exists
GATE = """
import os, sys, time


class Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp":
            while not os.path.exists(os.environ["MEM_TEST_SDK_GATE"]):
                time.sleep(0.01)
        return None


sys.meta_path.insert(0, Gate())
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def test_the_answers_are_the_sdks(tmp_path: Path) -> None:
    from mcp import types
    from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

    assert early.SUPPORTED_PROTOCOL_VERSIONS == tuple(SUPPORTED_PROTOCOL_VERSIONS)
    assert early.LATEST_PROTOCOL_VERSION == types.LATEST_PROTOCOL_VERSION
    mem = MemServer(str(tmp_path))
    options = mem.build().create_initialization_options()
    for version in ("2025-06-18", "2024-11-05", "1999-01-01"):
        expected = types.InitializeResult(
            protocolVersion=version if version in SUPPORTED_PROTOCOL_VERSIONS else types.LATEST_PROTOCOL_VERSION,
            capabilities=options.capabilities,
            serverInfo=types.Implementation(name=options.server_name, version=options.server_version),
            instructions=options.instructions,
        ).model_dump(by_alias=True, exclude_none=True, mode="json")
        params = {**INITIALIZE["params"], "protocolVersion": version}
        assert early.initialize_result(params) == expected
    listed = types.ListToolsResult(tools=mem.mcp_tools()).model_dump(by_alias=True, exclude_none=True, mode="json")
    assert early.tools_list_result() == listed
    assert early.initialize_result({"protocolVersion": 1}) is None  # left to the SDK to refuse


class Lines:
    """A process's stdout, line by line, with a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def next(self, seconds: float = 60) -> dict[str, Any]:
        found: list[bytes] = []
        reader = threading.Thread(target=lambda: found.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(seconds)
        assert found and found[0], "no answer"
        return json.loads(found[0])


def test_the_handshake_is_answered_before_the_sdk_loads(tmp_path: Path) -> None:
    gate_dir = tmp_path / "gate"
    gate_dir.mkdir()
    (gate_dir / "sitecustomize.py").write_text(GATE)
    gate = tmp_path / "open"
    project = tmp_path / "p"
    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / ".bmad" / "memory" / "decisions.md").write_text("### Use Redis for rate limits\nPer IP.\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(gate_dir), os.environ.get("PYTHONPATH", "")]))
    env["MEM_TEST_SDK_GATE"] = str(gate)
    proc = subprocess.Popen(
        [*MEM, "mcp", "-d", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    lines = Lines(proc)

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    try:
        send(INITIALIZE)
        answer = lines.next()
        assert answer["id"] == 0 and answer["result"] == early.initialize_result(INITIALIZE["params"])
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        listed = lines.next()
        assert listed["id"] == 1 and "brief" in [tool["name"] for tool in listed["result"]["tools"]]
        assert proc.poll() is None and not gate.exists()  # all of it with the SDK held back
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "brief", "arguments": {}}})
        gate.write_text("")
        called = lines.next()
        # the SDK's own answers to the handshake were dropped: the next line answers the call
        assert called["id"] == 2 and not called["result"]["isError"]
        assert "Use Redis for rate limits" in called["result"]["structuredContent"]["text"]
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert lines.next()["result"] == listed["result"]  # from the SDK now
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(60)
        err = proc.stderr.read().decode()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        proc.stdout.close()  # type: ignore[union-attr]
    assert proc.returncode == 0, err
