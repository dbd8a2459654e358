"""Faults under load: a replica killed with SIGKILL loses no acknowledged
write and the other keeps serving; PostgreSQL restarted under load gives
503s with one line during the outage, and the replicas recover without a
restart."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.kit import Team

pytestmark = pytest.mark.slow


def writer(urls: list[str], token: str, prefix: str, count: int, acknowledged: dict[str, str],
           failures: list[str], lock: threading.Lock) -> None:  # fmt: skip
    """Store ``count`` memories, each on the next replica that answers;
    record each one the server acknowledged."""
    with httpx.Client(timeout=30) as client:
        for number in range(count):
            key = f"{prefix}_{number}"
            for attempt in range(len(urls) * 3):
                url = urls[(number + attempt) % len(urls)]
                try:
                    answer = client.post(f"{url}/v1/memory", json={"category": "fact", "key": key, "content": key},
                                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
                except httpx.TransportError:
                    continue  # the replica is gone: not acknowledged, try the next one
                if answer.status_code in (200, 201):
                    with lock:
                        acknowledged[key] = answer.json()["memory"]["id"]
                    break
                if answer.status_code != 503:
                    with lock:
                        failures.append(f"{key}: {answer.status_code} {answer.text}")
                    break


def test_a_replica_killed_under_load_loses_no_acknowledged_write(team: Team) -> None:
    from mem_server.audit import verify

    one, two = team.start(2)
    token = team.agent_key("alpha", rate_per_minute=1_000_000)
    acknowledged: dict[str, str] = {}
    failures: list[str] = []
    lock = threading.Lock()
    threads = [
        threading.Thread(target=writer, args=([one.url, two.url], token, f"w{n}", 40, acknowledged, failures, lock))
        for n in range(8)
    ]
    for thread in threads:
        thread.start()
    while len(acknowledged) < 60:
        time.sleep(0.01)
    one.stop(signal.SIGKILL)
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(acknowledged) == 8 * 40  # every write went through, on the survivor after the kill
    with httpx.Client(timeout=30) as client:
        listed = client.get(f"{two.url}/v1/memory", params={"limit": "1000"},
                            headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
    stored = {m["key"]: m["id"] for m in listed["memories"]}
    assert stored == acknowledged  # none lost, none duplicated
    assert verify(team.db, team.db.signer).ok


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[object]:
    """A PostgreSQL cluster of this test's own, to stop and start."""
    from tests.plugins.postgres_server import PostgresServer, find_bin_dir

    pytest.importorskip("psycopg")
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL's initdb/pg_ctl are not installed")
    server = PostgresServer(bin_dir)
    try:
        server.start()
    except Exception as exc:  # the binaries exist but no server runs here
        server.stop()
        pytest.skip(f"the throwaway PostgreSQL server did not start: {exc}")
    yield server
    server.stop()


def _pg_ctl(server: object, *args: str) -> None:
    from tests.plugins.postgres_server import PORT

    root = server.root  # type: ignore[attr-defined]
    if args[0] == "start":
        options = f"-c listen_addresses='' -k {root} -p {PORT} -c fsync=off -c max_connections=60"
        args = ("start", "-l", server.log, "-o", options, "-w", "-t", "60")  # type: ignore[attr-defined]
    server._run("pg_ctl", "-D", server.data, *args)  # type: ignore[attr-defined]


def test_postgres_restarted_under_load_gives_503_then_recovers(tmp_path: Path, now: str, own_postgres: object) -> None:
    team = Team(tmp_path, "postgres", own_postgres.dsn)  # type: ignore[attr-defined]
    try:
        one, two = team.start(2)
        token = team.agent_key("alpha", rate_per_minute=1_000_000)
        headers = {"Authorization": f"Bearer {token}"}
        stop = threading.Event()
        seen: dict[int, int] = {}
        bad: list[str] = []

        def load() -> None:
            with httpx.Client(timeout=30) as client:
                number = 0
                while not stop.is_set():
                    number += 1
                    url = (one if number % 2 else two).url
                    answer = client.post(f"{url}/v1/memory", headers=headers,
                                         json={"category": "fact", "key": f"k{threading.get_ident()}_{number}",
                                               "content": "v"})  # fmt: skip
                    seen[answer.status_code] = seen.get(answer.status_code, 0) + 1
                    error = answer.json().get("error", "")
                    if answer.status_code not in (201, 503) or "\n" in error or "Traceback" in error:
                        bad.append(f"{answer.status_code} {answer.text}")

        threads = [threading.Thread(target=load) for _ in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(1)
        _pg_ctl(own_postgres, "stop", "-m", "fast", "-w")
        outage = {r.url: httpx.post(f"{r.url}/v1/memory", headers=headers,
                                    json={"category": "fact", "key": "during", "content": "v"}) for r in (one, two)}  # fmt: skip
        ready = [httpx.get(f"{r.url}/readyz").status_code for r in (one, two)]
        health = [httpx.get(f"{r.url}/healthz").status_code for r in (one, two)]
        time.sleep(1)
        _pg_ctl(own_postgres, "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(
            httpx.get(f"{r.url}/readyz").status_code == 200 for r in (one, two)
        ):
            time.sleep(0.2)
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join()
        for answer in outage.values():
            assert answer.status_code == 503
            assert answer.json() == {"error": "the database is unreachable; try again (nothing was changed)"}
        assert ready == [503, 503] and health == [200, 200]
        assert bad == []
        assert seen.get(503, 0) > 0 and seen.get(201, 0) > 0
        for replica in (one, two):  # recovered, never restarted
            assert replica.process.poll() is None
            after = httpx.post(f"{replica.url}/v1/memory", headers=headers,
                               json={"category": "fact", "key": f"after_{replica.port}", "content": "v"})  # fmt: skip
            assert after.status_code == 201, after.text
            assert "Traceback" not in replica.logged()
    finally:
        team.close()
