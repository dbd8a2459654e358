"""The team server under load: 32 clients × 200 mixed requests over two
``mem serve`` replicas on one PostgreSQL (a throwaway cluster, as the tests
start one).

Each client has its own agent key (its own mind) and sends, in a fixed
random order, remember (POST /v1/memory), search, /v1/recall, journal
events and MCP tool calls (``memories`` over /mcp), to the replicas in
turn. Reported: requests per second, p50/p90/p99 latency overall and per
kind, errors (any status other than the expected one), and the check that
every acknowledged write is read back from the other replica, once.

Usage: ``python benchmarks/bench_server.py [--clients 32] [--requests 200] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

KINDS = ("remember", "search", "recall", "journal", "mcp")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def client(number: int, urls: list[str], token: str, requests: int, results: list[tuple[str, float, bool]],
           written: dict[str, tuple[str, int]], lock: threading.Lock) -> None:  # fmt: skip
    import httpx

    rng = random.Random(number)
    headers = {"Authorization": f"Bearer {token}"}
    mcp_headers = {**headers, "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=60) as http:
        for step in range(requests):
            kind = rng.choice(KINDS)
            replica = step % len(urls)
            url = urls[replica]
            started = time.perf_counter()
            if kind == "remember":
                key = f"c{number}_{step}"
                answer = http.post(f"{url}/v1/memory", headers=headers,
                                   json={"category": "fact", "key": key, "content": f"fact {step} of {number}"})  # fmt: skip
                ok = answer.status_code == 201
                if ok:
                    with lock:
                        written[key] = (answer.json()["memory"]["id"], replica)
            elif kind == "search":
                answer = http.get(f"{url}/v1/memory/search", headers=headers, params={"q": "fact"})
                ok = answer.status_code in (200, 404)  # 404: the mind holds nothing yet
            elif kind == "recall":
                answer = http.get(f"{url}/v1/recall", headers=headers, params={"q": "fact deploy"})
                ok = answer.status_code == 200
            elif kind == "journal":
                answer = http.post(f"{url}/v1/journal", headers=headers, json={"task": f"step {step}",
                                                                                "outcome": "success"})  # fmt: skip
                ok = answer.status_code == 201
            else:
                body = {"jsonrpc": "2.0", "id": step, "method": "tools/call",
                        "params": {"name": "context", "arguments": {}}}  # fmt: skip
                answer = http.post(f"{url}/mcp", headers=mcp_headers, json=body)
                ok = answer.status_code == 200 and "result" in answer.json()
            elapsed = time.perf_counter() - started
            with lock:
                results.append((kind, elapsed, ok))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--json", help="write the report as JSON to this file")
    options = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="mem-bench-server-"))
    os.environ["MEM_USER_CONFIG"] = str(root / "user-config" / "config.toml")
    os.environ["MEM_NOW"] = "2026-11-05T12:00:00.000Z"

    from tests.plugins.postgres_server import PostgresServer, find_bin_dir
    from tests.server.kit import Team

    bin_dir = find_bin_dir()
    if bin_dir is None:
        print("bench_server: PostgreSQL's initdb/pg_ctl are not installed; skipped")
        return 0
    database = PostgresServer(bin_dir)
    database.start()
    team = Team(root, "postgres", database.dsn)
    try:
        replicas = team.start(2)
        urls = [r.url for r in replicas]
        tokens = [team.agent_key(f"mind{n}", rate_per_minute=1_000_000) for n in range(options.clients)]
        results: list[tuple[str, float, bool]] = []
        written: dict[str, tuple[str, int]] = {}
        lock = threading.Lock()
        threads = [
            threading.Thread(target=client, args=(n, urls, tokens[n], options.requests, results, written, lock))
            for n in range(options.clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started

        import httpx

        lost = 0
        with httpx.Client(timeout=60) as http:
            for key, (memory_id, replica) in written.items():
                other = urls[(replica + 1) % len(urls)]
                mind = int(key[1:].split("_")[0])
                answer = http.get(f"{other}/v1/memory/{memory_id}", headers={"Authorization": f"Bearer {tokens[mind]}"})
                lost += answer.status_code != 200 or answer.json()["memory"]["key"] != key
        latencies = [elapsed for _, elapsed, _ in results]
        report = {
            "clients": options.clients,
            "requests": len(results),
            "seconds": round(wall, 2),
            "requests_per_second": round(len(results) / wall, 1),
            "errors": sum(1 for _, _, ok in results if not ok),
            "acknowledged_writes": len(written),
            "lost_or_wrong_writes": lost,
            "p50_ms": round(1000 * statistics.median(latencies), 1),
            "p90_ms": round(1000 * percentile(latencies, 0.9), 1),
            "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
            "by_kind": {
                kind: {
                    "count": len(values),
                    "p50_ms": round(1000 * statistics.median(values), 1),
                    "p99_ms": round(1000 * percentile(values, 0.99), 1),
                }
                for kind in KINDS
                if (values := [e for k, e, _ in results if k == kind])
            },
        }
    finally:
        team.close()
        database.stop()
    print(
        f"bench_server: {report['clients']} clients x {options.requests} requests over 2 replicas: "
        f"{report['requests_per_second']} req/s, p50 {report['p50_ms']} ms, p90 {report['p90_ms']} ms, "
        f"p99 {report['p99_ms']} ms; {report['errors']} errors, {report['acknowledged_writes']} writes, "
        f"{report['lost_or_wrong_writes']} lost"
    )
    for kind, row in report["by_kind"].items():
        print(f"  {kind:9} {row['count']:5}  p50 {row['p50_ms']:7} ms  p99 {row['p99_ms']:7} ms")
    if options.json:
        Path(options.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if report["errors"] == 0 and report["lost_or_wrong_writes"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
