"""Benchmark of ``mem mcp``: ``recall`` through a warm server on the corpus of
``benchmarks/run.py`` (a journal of just under 2 MiB and 600 note sections).

* in-process: the server's tool call (``MemServer.call``: schema check, the
  API call on the server's kernel, the JSON answer), and the same through an
  in-memory MCP client session (the SDK's request handling, no transport);
* over stdio: the SDK's client talking to ``mem mcp`` as a real process.

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
            "stdio_ms": bench_stdio(project, args.runs),
        }
    print(
        f"mem mcp: recall through a warm server, {report['journal_bytes']} B journal + 600 sections, median of {args.runs}"
    )
    for key, label, target in (
        ("in_process_call_ms", "in-process tool call", 5),
        ("in_memory_session_ms", "in-process MCP session", 5),
        ("stdio_ms", "over stdio", 15),
    ):
        value = report[key]
        print(f"  {label:<24} {value:8.2f} ms   (target <= {target} ms: {'ok' if value <= target else 'OVER'})")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
