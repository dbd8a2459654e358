"""The review queue's first render, server side: 1 000 unverified memories
(two minds), 20 proposed promotions and a journal, over the project's SQLite
store — what ``GET /review`` builds for a human, timed in process (reading
the store and the audit log, judging signatures, Jinja2 rendering). The
templates are compiled when the server starts (reported apart), as
``mem serve`` does, so the first request does not pay for it.

Target: the first render at most 200 ms (issue 22).

Usage: ``python benchmarks/bench_review.py [--memories 1000] [--repeat 10] [--json PATH]``
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

TARGET_MS = 200.0
NOW = "2026-11-05T12:00:00.000Z"


def build(root: Path, memories: int) -> tuple[object, object]:
    """A server's project with ``memories`` unverified memories; the server
    state of one replica and a human session."""
    from mem_core.api.memories import remember
    from mem_core.api.reinforce import reinforce
    from mem_core.humans.keys import HumanKey
    from mem_server.credentials import HumanSession
    from mem_server.manage import init_server, server_config
    from mem_server.replica import Server

    project = root / "project"
    (project / ".bmad" / "memory").mkdir(parents=True)
    config = server_config(str(project), "sqlite", str(root / "server.key"))
    ada = HumanKey.generate("ada")
    init_server(config, "ada", ada.public_key("user").line())
    for number in range(memories):
        remember("fact", f"k{number}", f"fact {number}: the build needs node {number % 30} <and> a cache",
                 tags=["build", f"t{number % 7}"], mind="alpha" if number % 2 else "beta", confidence=0.6,
                 interactive=False, directory=str(project))  # fmt: skip
    for number in range(20):
        for _ in range(3):
            reinforce(f"pattern {number}", signals={"accept": "true", "ci": "pass"}, evidence="e1",
                      directory=str(project))  # fmt: skip
    server = Server(config)
    who = HumanSession("s1", "ada", ada.fingerprint, "csrf-token", "2026-11-06T00:00:00.000Z")
    return server, who


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mem-bench-review-") as tmp:
        os.environ["MEM_USER_CONFIG"] = str(Path(tmp) / "config" / "config.toml")
        os.environ["MEM_NOW"] = NOW
        started = time.perf_counter()
        server, who = build(Path(tmp), args.memories)
        setup = time.perf_counter() - started
        started = time.perf_counter()
        from mem_server.review import queue_data, render_queue, warm

        warm()  # what the server does when it starts (review_routes): Jinja2 compiles the templates
        startup = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        page = render_queue(server, who, NOW)  # type: ignore[arg-type]
        first = (time.perf_counter() - started) * 1000
        shown = queue_data(server, NOW)["memory_count"]  # type: ignore[arg-type]
        assert shown == args.memories, shown
        assert page.body.count(b'class="memory"') == args.memories
        again = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            render_queue(server, who, NOW)  # type: ignore[arg-type]
            again.append((time.perf_counter() - started) * 1000)
        server.db.close()  # type: ignore[attr-defined]
    report = {
        "memories": args.memories,
        "startupMs": round(startup, 1),
        "firstRenderMs": round(first, 1),
        "medianRenderMs": round(statistics.median(again), 1),
        "pageBytes": len(page.body),
        "targetMs": TARGET_MS,
        "met": first <= TARGET_MS,
        "setupSeconds": round(setup, 1),
    }
    print(
        f"review queue of {args.memories} memories + 20 promotions, server side ({len(page.body) // 1024} KiB of HTML)"
    )
    print(f"  first render   {report['firstRenderMs']:8.1f} ms   (target <= {TARGET_MS:.0f} ms: "
          f"{'met' if report['met'] else 'NOT met'})")  # fmt: skip
    print(f"  (at start-up: importing and compiling the templates {report['startupMs']:.1f} ms, once per replica)")
    print(f"  median of {args.repeat:<3} {report['medianRenderMs']:8.1f} ms")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
