"""A team server for tests: a project, a throwaway PostgreSQL database (or
the project's SQLite file), the server's key and its first human (``ada``),
and ``mem serve`` replicas as real processes on 127.0.0.1, driven over real
HTTP (httpx)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from mem_core.humans.keys import HumanKey
from mem_core.memories.trust import sign
from tests.conftest import NOW

__all__ = ["Team", "Replica", "free_port", "snapshot", "NOW"]

START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Replica:
    """One ``mem serve`` process."""

    def __init__(self, team: Team) -> None:
        self.team = team
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = team.root / f"replica-{self.port}.log"
        argv = [sys.executable, "-m", "mem_cli", "serve", "--store", team.store, "-d", str(team.project),
                "--port", str(self.port)]  # fmt: skip
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(argv, env=team.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)  # fmt: skip
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"mem serve did not start: {self.log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def logged(self) -> str:
        return self.log.read_text(errors="replace")


class Team:
    """A server's project, database, key and first human; replicas on demand."""

    def __init__(self, root: Path, store: str, dsn: str | None) -> None:
        from mem_server.manage import init_server, server_config

        self.root = root
        self.store = store
        self.dsn = dsn
        self.project = root / "server-project"
        (self.project / ".bmad" / "memory").mkdir(parents=True)
        self.key_file = str(root / "server-key" / "server.key")
        self.env = {**os.environ, "MEM_NOW": NOW, "MEM_SERVER_KEY_FILE": self.key_file,
                    "MEM_USER_CONFIG": str(root / "server-config" / "config.toml")}  # fmt: skip
        self.env.pop("MEM_STORE", None)
        if dsn is not None:
            self.env["MEM_POSTGRES_DSN"] = dsn
        saved = {name: os.environ.get(name) for name in ("MEM_POSTGRES_DSN", "MEM_STORE")}
        if dsn is not None:
            os.environ["MEM_POSTGRES_DSN"] = dsn
        try:
            self.config = server_config(str(self.project), store, self.key_file)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        self.ada = HumanKey.generate("ada")
        init_server(self.config, "ada", self.ada.public_key("user").line())
        self.replicas: list[Replica] = []
        self._db: Any = None

    @property
    def db(self) -> Any:
        if self._db is None:
            from mem_server.manage import open_server_db

            self._db, _key = open_server_db(self.config)
        return self._db

    def start(self, count: int = 1) -> list[Replica]:
        started = [Replica(self) for _ in range(count)]
        self.replicas += started
        return started

    def close(self) -> None:
        for replica in self.replicas:
            replica.stop(signal.SIGKILL)
        if self._db is not None:
            self._db.close()

    # -- credentials ------------------------------------------------------------

    def agent_key(self, mind: str = "alpha", **options: Any) -> str:
        from mem_server.credentials import create_key

        _key, secret = create_key(self.db, mind, now=options.pop("now", NOW), **options)
        return secret

    def login(self, url: str, key: HumanKey | None = None) -> str:
        from mem_server.client import human_login

        return human_login(url, key or self.ada)

    # -- the database -------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return snapshot(self)


def snapshot(team: Team) -> dict[str, Any]:
    """Every row of every table (the rate counters aside: a request counts
    whether or not it is served) and every file of the server's project."""
    found: dict[str, Any] = {}
    if team.store == "postgres":
        import psycopg

        with psycopg.connect(team.dsn or "", autocommit=True) as conn:
            names = [row[0] for row in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")]  # fmt: skip
            for name in names:
                if name != "mem_srv_rate":
                    found[name] = sorted(repr(row) for row in conn.execute(f"SELECT * FROM {name}"))
    else:
        import sqlite3

        for path in sorted((team.project / ".bmad" / "memory").glob("*.sqlite3")):
            conn = sqlite3.connect(path)
            try:
                names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                for name in names:
                    if name != "mem_srv_rate":
                        found[f"{path.name}:{name}"] = sorted(repr(r) for r in conn.execute(f"SELECT * FROM {name}"))
            finally:
                conn.close()
    for path in sorted(team.project.rglob("*")):
        if path.is_file() and not path.name.endswith((".sqlite3", "-wal", "-shm")) and "cache" not in path.parts:
            found[str(path.relative_to(team.project))] = path.read_bytes()
    return found


def signature_over(memory: dict[str, Any], key: HumanKey, at: str = NOW) -> str:
    """What a human's client sends to verify ``memory`` (a memory's JSON)."""
    return sign(memory, key, at)["signature"]
