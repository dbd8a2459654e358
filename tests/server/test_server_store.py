"""The ``server`` memory store (:mod:`mem_plugins.stores.server`) against a
real ``mem serve`` over real HTTP: the shipped store contract suite, the
command line and the MCP tools answering as they do over a local store of
the same memories, what an agent key may not do, and a server that is down."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mem_core.plugin import MEMORY_FIELDS, MemError, MemoryStore
from mem_core.testing import MemoryStoreContract
from mem_plugins.stores.server import ServerStore
from tests.server.kit import NOW, Team, free_port, signature_over
from tests.server.test_fuzz import WRONG
from tests.server.test_same_answers import MEMORIES, cli_args, normalized

# -- the contract suite ------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    """One SQLite-backed server for the module (each contract test empties its store)."""
    made = Team(tmp_path_factory.mktemp("served"), "sqlite", None)
    made.start(1)
    yield made
    made.close()


@pytest.fixture(scope="module")
def human_token(served: Team) -> str:
    return served.login(served.replicas[0].url)


def _empty(team: Team) -> None:
    """The served store, emptied (between tests, while no request runs)."""
    directory = team.project / ".bmad" / "memory"
    for name in ("memories.sqlite3", "memories.sqlite3-wal", "memories.sqlite3-shm"):
        (directory / name).unlink(missing_ok=True)


class TestServerStoreContract(MemoryStoreContract):
    """The shipped contract, as a human session (the suite writes every mind,
    signatures and imports, which an agent key may not)."""

    @pytest.fixture
    def mem_store_class(self, served: Team, human_token: str) -> type[MemoryStore]:
        _empty(served)
        return ServerStore.bind(served.replicas[0].url, human_token)


@pytest.fixture(scope="module")
def served_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    """One PostgreSQL-backed server for the module."""
    from tests.plugins.postgres_server import new_database_dsn

    made = Team(tmp_path_factory.mktemp("served-pg"), "postgres", new_database_dsn())
    made.start(1)
    yield made
    made.close()


class TestServerStoreContractOnPostgres(MemoryStoreContract):
    """The contract again with the server on PostgreSQL: each test's store
    is a new namespace of the server's database (its project's marker
    rewritten between tests, while no request runs)."""

    @pytest.fixture
    def mem_store_class(self, served_postgres: Team) -> type[MemoryStore]:
        from mem_plugins.stores.postgres import MARKER, _write_marker

        directory = served_postgres.project / ".bmad" / "memory"
        (directory / MARKER).unlink()
        _write_marker(str(directory), str(directory / MARKER), f"contract-{os.urandom(6).hex()}")
        token = served_postgres.login(served_postgres.replicas[0].url)
        return ServerStore.bind(served_postgres.replicas[0].url, token)


# -- a project whose store is the server -----------------------------------------------


def _client(tmp_path: Path, url: str, key: str, name: str = "client") -> tuple[Path, dict[str, str]]:
    project = tmp_path / name
    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / ".bmad" / "memory" / "mem.toml").write_text(f'store = "server"\nserver_url = "{url}"\n')
    env = {"MEM_SERVER_KEY": key, "MEM_USER_CONFIG": str(tmp_path / f"{name}-config" / "config.toml")}
    return project, env


def _run(mem: Any, project: Path, env: dict[str, str], *args: str) -> Any:
    return mem(*args, "-d", str(project), env=env)


def test_the_cli_on_the_server_answers_as_on_a_local_store(team: Team, mem: Any, tmp_path: Path) -> None:
    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    local = tmp_path / "local"
    (local / ".bmad" / "memory").mkdir(parents=True)

    def both(*args: str) -> tuple[Any, Any]:
        served = _run(mem, project, env, *args)
        here = mem(*args, "-d", str(local))
        assert served.code == here.code == 0, (served.err, here.err)
        return served, here

    for memory in MEMORIES:
        served, here = both(*cli_args(memory))
        assert normalized(json.loads(served.out)) == normalized(json.loads(here.out))
    for args in (
        ["memories", "--mind", "alpha", "--json"],
        ["memories", "--mind", "alpha", "--search", "postgresql cache", "--json"],
        ["memories", "--mind", "alpha", "--tag", "db", "--json"],
        ["memories", "--mind", "alpha", "--expiring", "1d", "--json"],
        ["memories", "history", "fact/db_engine", "--mind", "alpha", "--json"],
        ["recall", "postgresql deployed", "--json"],
        ["remember", "fact", "db_engine", "PostgreSQL 17", "--mind", "alpha", "--json"],
        ["forget", "mistake/cache_zero", "--mind", "alpha", "--json"],
        ["memories", "--mind", "alpha", "--json"],
    ):
        served, here = both(*args)
        assert normalized(json.loads(served.out)) == normalized(json.loads(here.out)), args
    served, here = both("context", "--mind", "alpha")
    assert served.out == here.out and "PostgreSQL 17" in served.out
    # what the CLI stored, the API serves (one store), with its audit entries
    listed = httpx.get(f"{one.url}/v1/memory", params={"mind": "alpha"},
                       headers={"Authorization": f"Bearer {team.login(one.url)}"}).json()  # fmt: skip
    assert sorted(m["key"] for m in listed["memories"]) == ["db_engine", "meeting_topic", "synapse_status"]
    assert not (project / ".bmad" / "memory" / "memories.sqlite3").exists()
    assert (project / ".bmad" / "memory" / "memories.server.json").exists()
    doctor = _run(mem, project, env, "doctor", "--json")
    assert f"{one.url} answers; the key reads 1 mind(s)" in doctor.out, doctor.out


def _audit(team: Team, url: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{url}/v1/audit", params={"limit": "1000"},
                       headers={"Authorization": f"Bearer {team.login(url)}"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return list(answer.json()["entries"])


def test_store_writes_are_audited_and_kept_to_the_key_s_mind(team: Team, mem: Any, tmp_path: Path) -> None:
    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    assert _run(mem, project, env, "remember", "fact", "k", "v1", "--mind", "alpha").code == 0
    entries = [e for e in _audit(team, one.url) if e["action"].startswith("memory.")]
    assert [(e["action"], e["actor"].split(":")[0], e["detail"]["key"]) for e in entries] == [
        ("memory.create", "key", "k")
    ]
    before = team.snapshot()
    other = _run(mem, project, env, "remember", "fact", "k", "v2", "--mind", "beta")
    assert other.code == 1 and "for the mind alpha only" in other.err and len(other.err.strip().splitlines()) == 1
    assert team.snapshot() == before
    read_only, ro_env = _client(tmp_path, one.url, team.agent_key("alpha", read_only=True), "ro")
    before = team.snapshot()  # the new key's row
    refused = _run(mem, read_only, ro_env, "remember", "fact", "k", "v3", "--mind", "alpha")
    assert refused.code == 1 and "read-only" in refused.err
    assert team.snapshot() == before
    listed = _run(mem, read_only, ro_env, "memories", "--mind", "alpha", "--json")
    assert listed.code == 0 and [m["content"] for m in json.loads(listed.out)["memories"]] == ["v1"]


def test_an_agent_key_cannot_verify_through_the_store_the_api_or_mcp(team: Team, tmp_path: Path) -> None:
    (one,) = team.start(1)
    key = team.agent_key("alpha")
    store_class = ServerStore.bind(one.url, key)
    directory = str(tmp_path / "store")
    with store_class.open(directory, create=True) as store:
        with store.transaction():
            memory = {"id": "mem_00000000000000a1", "category": "fact", "key": "sky", "content": "blue", "tags": [],
                      "priority": "normal", "source": "agent", "verified": False, "confidence": 0.7,
                      "expires_at": None, "mind_id": "alpha", "created_at": NOW, "updated_at": NOW}  # fmt: skip
            store.insert(memory, at=NOW)
        before = team.snapshot()
        from mem_core.memories.trust import sign

        signed = sign(memory, team.ada, NOW)
        attempts = [
            lambda: (
                store.update({**memory, "verified": True}, action="verify", at=NOW),
                store.add_signature({**signed, "memory_id": memory["id"]}),
            ),  # fmt: skip
            lambda: store.add_signature({**signed, "memory_id": memory["id"]}),
            lambda: store.insert({**memory, "id": "mem_00000000000000a2", "key": "u", "source": "user"}, at=NOW),
            lambda: store.import_memory(
                {**memory, "id": "mem_00000000000000a3", "key": "i"},
                [{"action": "create", "at": NOW, "memory": memory}],
                forgotten=False,
            ),  # fmt: skip
            lambda: store.drop_signatures(memory["id"]),
        ]
        for attempt in attempts:
            with pytest.raises(MemError) as refused, store.transaction():
                attempt()
            message = str(refused.value)
            assert getattr(refused.value, "status", None) == 403 and "\n" not in message, message
            assert "agent key cannot" in message
        with pytest.raises(MemError, match="only a human may export"):
            store.known_ids()
    assert team.snapshot() == before
    # the API's verify route: a human's only
    answer = httpx.post(f"{one.url}/v1/memory/{memory['id']}/verify", json={"signedAt": NOW,
                        "signature": signature_over(memory, team.ada)}, headers={"Authorization": f"Bearer {key}"})  # fmt: skip
    assert answer.status_code == 403 and "only a human" in answer.json()["error"]
    assert team.snapshot() == before


def test_mcp_memory_tools_on_a_server_store_have_no_verify(team: Team, tmp_path: Path) -> None:
    """``mem mcp`` (a real process, the SDK's client) in a project whose
    store is the server: its memory tools read and write the server's store;
    none verifies or stores as the user."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    (project / ".bmad" / "memory" / "mem.toml").write_text(
        f'store = "server"\nserver_url = "{one.url}"\ndefault_mind = "alpha"\n'
    )
    params = StdioServerParameters(command=sys.executable, args=["-m", "mem_cli", "mcp", "-d", str(project)],
                                   env={**os.environ, **env, "MEM_NOW": NOW})  # fmt: skip

    async def session() -> tuple[Any, Any, Any]:
        with open(tmp_path / "mcp.log", "a", encoding="utf-8") as log:
            async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                tools = await client.list_tools()
                stored = await client.call_tool("remember", {"category": "fact", "key": "via_mcp",
                                                             "content": "stored through mem mcp"})  # fmt: skip
                listed = await client.call_tool("memories", {})
                return tools, stored, listed

    tools, stored, listed = anyio.run(session)
    names = {tool.name for tool in tools.tools}
    assert "remember" in names and not any("verify" in name for name in names)
    remember = next(t for t in tools.tools if t.name == "remember")
    assert not {"as_user", "asUser", "verified", "signature"} & set(remember.inputSchema["properties"])
    assert not stored.isError, stored
    assert "stored through mem mcp" in json.dumps(listed.structuredContent)
    found = httpx.get(f"{one.url}/v1/memory/search", params={"q": "mcp", "mind": "alpha"},
                      headers={"Authorization": f"Bearer {team.login(one.url)}"}).json()  # fmt: skip
    assert [m["key"] for m in found["memories"]] == ["via_mcp"]


def test_a_server_that_is_down_is_one_line_and_changes_nothing(team: Team, mem: Any, tmp_path: Path) -> None:
    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    assert _run(mem, project, env, "remember", "fact", "k", "v1", "--mind", "alpha").code == 0
    one.stop(signal.SIGKILL)
    files = sorted(p.name for p in (project / ".bmad" / "memory").iterdir())
    for args in (["remember", "fact", "k", "v2", "--mind", "alpha"], ["memories", "--mind", "alpha"],
                 ["forget", "fact/k", "--mind", "alpha"], ["context"]):  # fmt: skip
        run = _run(mem, project, env, *args)
        assert run.code == 1, (args, run.out)
        assert run.err.startswith("mem") and len(run.err.strip().splitlines()) == 1, run.err
        assert f"cannot reach the server {one.url}" in run.err and "nothing was changed" in run.err
    doctor = _run(mem, project, env, "doctor", "--json")
    assert doctor.code == 1 and f"cannot reach the server {one.url}" in doctor.out, doctor.out
    # recall goes on without the memories it cannot read, and says so in one line (as for any source)
    recalled = _run(mem, project, env, "recall", "database")
    assert recalled.code == 0 and recalled.err.count("\n") == 1 and "cannot reach the server" in recalled.err
    assert sorted(p.name for p in (project / ".bmad" / "memory").iterdir()) == files
    # the hooks fail open: the assistant's prompt goes on without memories
    for event in ("session-start", "prompt-submit"):
        hook = subprocess.run(
            [sys.executable, "-m", "mem_cli", "hook", event, "--assistant", "claude-code"],
            input=json.dumps({"session_id": "s", "cwd": str(project), "prompt": "which database do we use?"}),
            capture_output=True, text=True, cwd=project, env={**os.environ, **env, "MEM_NOW": NOW}, timeout=120,
        )  # fmt: skip
        assert hook.returncode == 0, hook.stderr
    # a project that never reached its server gets no marker
    fresh, fresh_env = _client(tmp_path, f"http://127.0.0.1:{free_port()}", "mem_ak_x", "fresh")
    run = _run(mem, fresh, fresh_env, "remember", "fact", "k", "v")
    assert run.code == 1 and "cannot reach the server" in run.err
    assert not (fresh / ".bmad" / "memory" / "memories.server.json").exists()


def test_no_key_and_a_bad_url_are_one_line_errors(mem: Any, tmp_path: Path) -> None:
    project, env = _client(tmp_path, "http://127.0.0.1:9", "")
    run = _run(mem, project, env, "remember", "fact", "k", "v")
    assert run.code == 1 and "$MEM_SERVER_KEY" in run.err and len(run.err.strip().splitlines()) == 1
    (project / ".bmad" / "memory" / "mem.toml").write_text('store = "server"\nserver_url = "http://u:pw@host"\n')
    run = _run(mem, project, {"MEM_SERVER_KEY": "mem_ak_x"}, "memories")
    assert run.code == 1 and "server_url looks like a secret" in run.err
    (project / ".bmad" / "memory" / "mem.toml").write_text('store = "server"\nserver_url = "ftp://host"\n')
    run = _run(mem, project, {"MEM_SERVER_KEY": "mem_ak_x"}, "memories")
    assert run.code == 1 and "server_url must be an http:// or https:// URL without user or password" in run.err


def _broken_step(rng: Any, memory: dict[str, Any]) -> Any:

    record = {**memory, rng.choice(list(memory)): rng.choice(WRONG)}
    return rng.choice([
        {"op": "insert", "args": {"record": record, "at": NOW}},
        {"op": "insert", "args": {"record": memory, "at": rng.choice(WRONG)}},
        {"op": "update", "args": {"record": memory, "at": NOW, "action": rng.choice(["create", "delete", 1, None])}},
        {"op": "delete", "args": {"memory_id": rng.choice(WRONG), "at": NOW}},
        {"op": "add_signature", "args": {"signature": rng.choice(WRONG)}},
        {"op": "import_memory", "args": {"record": memory, "history": rng.choice(WRONG), "forgotten": False}},
        {"op": "get", "args": {"memory_id": "mem_00"}, "digest": "not the digest"},
        {"op": rng.choice(WRONG), "args": {}},
        {"op": "query", "args": {"where": rng.choice(WRONG)}, "digest": "x"},
        rng.choice(WRONG),
    ])  # fmt: skip


def test_fuzzed_store_requests_get_one_line_errors_and_change_nothing(team: Team) -> None:
    import random

    (one,) = team.start(1)
    agent = team.agent_key("alpha", rate_per_minute=1_000_000)
    human = team.login(one.url)
    memory = {"id": "mem_00000000000000b1", "category": "fact", "key": "k", "content": "v", "tags": [],
              "priority": "normal", "source": "agent", "verified": False, "confidence": 0.7, "expires_at": None,
              "mind_id": "alpha", "created_at": NOW, "updated_at": NOW}  # fmt: skip
    lease = httpx.post(f"{one.url}/v1/store/lock", json={}, headers={"Authorization": f"Bearer {human}"}).json()
    rng = random.Random(20261202)
    before = team.snapshot()
    with httpx.Client(timeout=60) as client:
        for number in range(300):
            steps = [_broken_step(rng, memory) for _ in range(rng.randrange(1, 4))]
            body = rng.choice([
                {"steps": steps, "lease": lease["lease"]},
                {"steps": steps, "read": {"op": "minds", "args": {}}},
                {"read": rng.choice([{"op": "get"}, {"op": "get", "args": {"memory_id": 5}}, {"op": "nope", "args": {}},
                                     {"op": "query", "args": {"where": {"now": NOW, "limit": -1}}}, []])},
                {"steps": rng.choice(WRONG_STEPS), "lease": rng.choice(["lease_nope", 5, None])},
            ])  # fmt: skip
            path = "/v1/store/commit" if "lease" in body else "/v1/store/read"
            token = human if number % 2 else agent
            answer = client.post(f"{one.url}{path}", content=json.dumps(body).encode("utf-8", "surrogatepass"),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})  # fmt: skip
            assert 400 <= answer.status_code < 500, (path, body, answer.text)
            error = answer.json()["error"]
            assert error and "\n" not in error and "Traceback" not in error
    assert team.snapshot() == before
    assert "Traceback" not in one.logged()


WRONG_STEPS: list[Any] = [None, 0, "x", {}, [[]], [{"op": "insert"}], [None] * 5000]


def test_verify_goes_through_the_human_login(team: Team, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``verify`` on a server store: the human's signature (made here, with
    the human key) is sent with the session ``mem human login`` kept; without
    one it goes with the agent key and the server refuses it, changing nothing."""
    from mem_core.api import memories as service
    from mem_core.humans.keys import write_public_key
    from mem_server.client import _session_path

    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MEM_NOW", NOW)
    write_public_key(team.ada.public_key("project"), str(project))
    stored = service.remember("fact", "sky", "the sky is blue", mind="alpha", directory=str(project)).memory
    assert not stored.verified
    before = team.snapshot()
    with pytest.raises(MemError) as refused:
        service.verify("fact/sky", mind="alpha", signer=team.ada, interactive=False, directory=str(project))
    assert getattr(refused.value, "status", None) == 403 and "an agent key cannot" in str(refused.value)
    assert team.snapshot() == before
    session = Path(_session_path(one.url))
    session.parent.mkdir(parents=True)
    session.write_text(json.dumps({"url": one.url, "human": "ada", "token": team.login(one.url)}))
    done = service.verify("fact/sky", mind="alpha", signer=team.ada, interactive=False, directory=str(project))
    assert done.changed and done.memory.verified  # computed here, from ada's signature and this project's trust
    served = httpx.get(f"{one.url}/v1/memory/{stored.id}", headers={"Authorization": f"Bearer {env['MEM_SERVER_KEY']}"})
    assert served.json()["memory"]["verified"] is True  # and there, from the server's trust list
    assert [e["actor"] for e in _audit(team, one.url) if e["action"] == "memory.sign"] == ["human:ada"]
    # an agent may not forget what a human confirmed: the forget needs a human too
    session.unlink()
    with pytest.raises(MemError, match="confirmed by a human"):
        service.forget(f"{stored.id}", mind="alpha", signer=team.ada, interactive=False, directory=str(project))


def test_migrate_moves_a_local_store_to_the_server(team: Team, mem: Any, tmp_path: Path) -> None:
    (one,) = team.start(1)
    project = tmp_path / "moving"
    (project / ".bmad" / "memory").mkdir(parents=True)
    for memory in MEMORIES:
        assert mem(*cli_args(memory), "-d", str(project)).code == 0
    assert mem("forget", "fact/db_engine", "--mind", "alpha", "-d", str(project)).code == 0
    before = mem("memories", "--mind", "alpha", "--json", "-d", str(project))
    (project / ".bmad" / "memory" / "mem.toml").write_text(f'server_url = "{one.url}"\n')
    agent = {"MEM_SERVER_KEY": team.agent_key("alpha")}
    refused = mem("memories", "migrate", "--to", "server", "-d", str(project), env=agent)
    assert refused.code == 1 and "only a human may export" in refused.err
    assert (project / ".bmad" / "memory" / "memories.sqlite3").exists()
    assert not (project / ".bmad" / "memory" / "memories.server.json").exists()
    human = {"MEM_SERVER_KEY": team.login(one.url)}
    moved = mem("memories", "migrate", "--to", "server", "--json", "-d", str(project), env=human)
    assert moved.code == 0, moved.err
    assert json.loads(moved.out)["memories"] == 3 and json.loads(moved.out)["forgotten"] == 1
    assert 'store = "server"' in (project / ".bmad" / "memory" / "mem.toml").read_text()
    after = mem("memories", "--mind", "alpha", "--json", "-d", str(project), env=agent)
    assert after.code == 0, after.err
    assert json.loads(after.out) == json.loads(before.out)


def test_an_agent_key_cannot_bring_back_another_mind_s_memory(team: Team, tmp_path: Path) -> None:
    (one,) = team.start(1)
    human = {"Authorization": f"Bearer {team.login(one.url)}"}
    stored = httpx.post(f"{one.url}/v1/memory", json={"category": "fact", "key": "secret", "content": "beta's",
                                                      "mind": "beta"}, headers=human).json()["memory"]  # fmt: skip
    assert httpx.delete(f"{one.url}/v1/memory/{stored['id']}", headers=human).status_code == 200
    with ServerStore.bind(one.url, team.agent_key("alpha")).open(str(tmp_path / "s"), create=True) as store:
        with store.transaction():
            pass  # the lease's row, which every transaction takes and gives back
        before = team.snapshot()
        assert store.history(stored["id"]) == [] and store.get(stored["id"]) is None  # not disclosed
        with pytest.raises(MemError, match="for the mind alpha only"), store.transaction():
            record = {name: stored[name] for name in MEMORY_FIELDS}
            store.insert({**record, "mind_id": "alpha", "verified": False}, at=NOW, action="restore")
    assert team.snapshot() == before


def test_mem_verify_with_an_agent_key_is_refused_by_the_server(team: Team, mem: Any, tmp_path: Path) -> None:
    """``mem verify`` at a terminal (a pseudo-terminal, ``yes`` typed) in a
    project whose store is the server, with an agent key and no human login:
    the server refuses it with the CLI's one line, and nothing changes."""
    from tests.server.test_serve_cli import at_a_terminal

    (one,) = team.start(1)
    project, env = _client(tmp_path, one.url, team.agent_key("alpha"))
    assert _run(mem, project, env, "remember", "fact", "sky", "the sky is blue", "--mind", "alpha").code == 0
    before = team.snapshot()
    code, shown = at_a_terminal(["verify", "fact/sky", "--mind", "alpha", "-d", str(project)], "yes",
                                {**env, "MEM_NOW": NOW})  # fmt: skip
    assert code == 1, shown
    last = shown.strip().splitlines()[-1]
    assert last == (f"mem verify: the server {one.url} refused: an agent key cannot verify a memory: only a human "
                    "can (log in with mem human login URL)"), shown  # fmt: skip
    assert team.snapshot() == before
    listed = _run(mem, project, env, "memories", "--mind", "alpha", "--json")
    assert json.loads(listed.out)["memories"][0]["verified"] is False


def test_transactions_through_two_replicas_lose_no_update(team: Team, tmp_path: Path) -> None:
    """Four clients, each on its own connection to one of two replicas over
    one PostgreSQL database, increment one counter memory five times each in
    read-then-write transactions, while the API writes other memories
    beside them: the counter ends at 20."""
    import threading

    replicas = team.start(2)
    key = team.agent_key("alpha", rate_per_minute=1_000_000)
    counter = {"id": "mem_00000000000000c1", "category": "fact", "key": "counter", "content": "0", "tags": [],
               "priority": "normal", "source": "agent", "verified": False, "confidence": 0.7, "expires_at": None,
               "mind_id": "alpha", "created_at": NOW, "updated_at": NOW}  # fmt: skip
    with ServerStore.bind(replicas[0].url, key).open(str(tmp_path / "c0"), create=True) as store:
        with store.transaction():
            store.insert(counter, at=NOW)
    errors: list[str] = []

    def client(number: int) -> None:
        try:
            directory = str(tmp_path / f"c{number}")
            with ServerStore.bind(replicas[number % 2].url, key).open(directory, create=True) as store:
                for _ in range(5):
                    with store.transaction():
                        current = store.get(counter["id"])
                        assert current is not None
                        store.update({**current, "content": str(int(current["content"]) + 1)}, action="update",
                                     at=NOW)  # fmt: skip
        except Exception as exc:  # reported below
            errors.append(f"{type(exc).__name__}: {exc}")

    def api_writer() -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {key}"}) as http:
            for n in range(10):
                answer = http.post(f"{replicas[n % 2].url}/v1/memory",
                                   json={"category": "note", "key": f"beside_{n}", "content": "x"})  # fmt: skip
                if answer.status_code != 201:
                    errors.append(answer.text)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)] + [threading.Thread(target=api_writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert errors == []
    with ServerStore.bind(replicas[1].url, key).open(str(tmp_path / "final"), create=True) as store:
        final = store.get(counter["id"])
        assert final is not None and final["content"] == "20"
        assert [e["content"] for e in [h["memory"] for h in store.history(counter["id"])]] == [
            str(n) for n in range(21)
        ]


def test_a_transaction_reads_its_own_writes(served: Team, human_token: str, tmp_path: Path) -> None:
    """Reads inside a transaction see its writes, whichever steps a read is
    sent with (by id, by key, everything), and nothing stays when it fails."""
    from mem_core.memories.records import MemoryFilter
    from mem_core.testing.store_contract import record

    _empty(served)
    with ServerStore.bind(served.replicas[0].url, human_token).open(str(tmp_path / "own"), create=True) as store:
        a, b = record(key="a"), record(key="b")
        with pytest.raises(RuntimeError), store.transaction():
            store.insert(a, at=NOW)
            store.insert(b, at=NOW)
            assert store.get(a["id"]) == a and store.id_known(b["id"])
            assert store.get_by_key("default", "fact", "b") == b
            store.update({**a, "content": "changed"}, action="update", at=NOW)
            assert [e["action"] for e in store.history(a["id"])] == ["create", "update"]
            store.delete(b["id"], at=NOW)
            assert store.get_by_key("default", "fact", "b") is None and store.get(b["id"]) is None
            assert [r["content"] for r in store.query(MemoryFilter(now=NOW))] == ["changed"]
            store.add_signature({"memory_id": a["id"], "by": "ada", "fingerprint": "SHA256:x", "verified_at": NOW,
                                 "signature": "c2ln"})  # fmt: skip
            assert store.signatures_of([a["id"], b["id"]]) == {a["id"]: [store.signatures(a["id"])[0]]}
            raise RuntimeError("rolled back")
        assert store.query(MemoryFilter(now=NOW, include_expired=True)) == [] and not store.id_known(a["id"])
