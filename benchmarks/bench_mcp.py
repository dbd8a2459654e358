"""Benchmark of ``mem mcp``: ``recall`` through a warm server on the corpus of
``benchmarks/run.py`` (a journal of just under 2 MiB and 600 note sections).

* in-process: the server's tool call (``MemServer.call``: schema check, the
  API call on the server's kernel, the JSON answer), and the same through an
  in-memory MCP client session (the SDK's request handling, no transport);
* over stdio: ``mem mcp`` as a real process, asked by a plain JSON-RPC
  client (newline-delimited messages on its pipes, as the assistants' own
  clients speak to it) and by the Python SDK's client, which also checks
  each result against the tool's output schema (with ``jsonschema``, which
  re-checks the schema itself first: about 10 ms of the client's time on
  each call, whatever the server does).

The server's kernel keeps what it read (``mem_core.files.cache``); the
corpus is written just before, so the first calls re-check the files'
bytes until they are 0.1 s old, as a file just written always is.

Targets (issue 9): median ≤ 5 ms in-process, ≤ 15 ms over stdio.

Usage: ``python benchmarks/bench_mcp.py [--runs N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import make_corpus  # noqa: E402

QUERIES = ["auth token retry", "cache values", "queue backoff deploy", "postgres migration index", "login rate limit"]


def _ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_direct(project: Path, runs: int) -> float:
    from mem_core.mcp.server import MemServer

    server = MemServer(str(project))
    server.call("recall", {"query": "warm up"})
    times = []
    for i in range(runs):
        started = time.perf_counter()
        server.call("recall", {"query": QUERIES[i % len(QUERIES)]})
        times.append(time.perf_counter() - started)
    return _ms(times)


async def _session_times(session: Any, runs: int) -> list[float]:
    await session.call_tool("recall", {"query": "warm up"})
    times = []
    for i in range(runs):
        started = time.perf_counter()
        result = await session.call_tool("recall", {"query": QUERIES[i % len(QUERIES)]})
        times.append(time.perf_counter() - started)
        if result.isError:
            raise SystemExit(f"recall failed: {result.content[0].text}")
    return times


def bench_memory_session(project: Path, runs: int) -> float:
    import anyio
    from mcp.shared.memory import create_connected_server_and_client_session

    from mem_core.mcp.server import MemServer

    async def main() -> list[float]:
        server = MemServer(str(project)).build()
        async with create_connected_server_and_client_session(server) as session:
            return await _session_times(session, runs)

    return _ms(anyio.run(main))


def bench_stdio(project: Path, runs: int) -> float:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mem_cli", "mcp", "-d", str(project)], env=dict(os.environ)
    )

    async def main() -> list[float]:
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()  # the client checks results against the output schemas
                return await _session_times(session, runs)

    return _ms(anyio.run(main))


def bench_stdio_raw(project: Path, runs: int) -> float:
    """Round trips of ``tools/call recall`` to ``mem mcp`` over its pipes,
    with no client library: the server's time plus the transport."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "mem_cli", "mcp", "-d", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    assert proc.stdin is not None and proc.stdout is not None
    ids = iter(range(1, 1_000_000))

    def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
        number = next(ids)
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode() + b"\n"
        )  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        while True:
            message = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            if message.get("id") == number:
                if "error" in message or message["result"].get("isError"):
                    raise SystemExit(f"{method} failed: {message}")
                return message  # type: ignore[no-any-return]

    try:
        ask(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        ask("tools/call", {"name": "recall", "arguments": {"query": "warm up"}})
        times = []
        for i in range(runs):
            started = time.perf_counter()
            ask("tools/call", {"name": "recall", "arguments": {"query": QUERIES[i % len(QUERIES)]}})
            times.append(time.perf_counter() - started)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return _ms(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "corpus"
        project.mkdir()
        make_corpus(project)
        journal = project / ".bmad" / "memory" / "journal.ndjson"
        report = {
            "journal_bytes": journal.stat().st_size,
            "runs": args.runs,
            "in_process_call_ms": bench_direct(project, args.runs),
            "in_memory_session_ms": bench_memory_session(project, args.runs),
            "stdio_ms": bench_stdio_raw(project, args.runs),
            "stdio_sdk_client_ms": bench_stdio(project, args.runs),
        }
    print(
        f"mem mcp: recall through a warm server, {report['journal_bytes']} B journal + 600 sections, median of {args.runs}"
    )
    for key, label, target in (
        ("in_process_call_ms", "in-process tool call", 5),
        ("in_memory_session_ms", "in-process MCP session", 5),
        ("stdio_ms", "over stdio", 15),
        ("stdio_sdk_client_ms", "stdio, SDK client", 15),
    ):
        value = report[key]
        print(f"  {label:<24} {value:8.2f} ms   (target <= {target} ms: {'ok' if value <= target else 'OVER'})")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
