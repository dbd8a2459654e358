"""Project discovery and settings end to end: real ``mem`` processes run from
a subdirectory use the root's memory; ``mem init``, ``mem config`` and
``mem config set``; a PostgreSQL-backed project is used from a shell without
``MEM_STORE``, and never gets a second store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mem_core.settings import PROJECT_CONFIG
from mem_plugins.stores.postgres import MARKER
from tests.conftest import NOW, tree_bytes
from tests.plugins.postgres_server import PASSWORD, postgres_server_fixture  # noqa: F401


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a project memory at its root and a deep subdirectory."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".bmad" / "memory").mkdir(parents=True)
    (root / "src" / "auth").mkdir(parents=True)
    return root


def test_from_a_subdirectory_every_command_uses_the_root_memory(mem_process, repo: Path) -> None:
    sub = repo / "src" / "auth"
    env = {"MEM_NOW": NOW}
    written = mem_process("write", "--agent", "forge", "--task", "Fix token refresh", cwd=sub, env=env)
    assert (written.code, written.err) == (0, "")
    assert (repo / ".bmad" / "memory" / "journal.ndjson").is_file()
    stored = mem_process("remember", "fact", "auth_flow", "tokens refresh on 401", cwd=sub, env=env)
    assert (stored.code, stored.err) == (0, "")
    assert (repo / ".bmad" / "memory" / "memories.sqlite3").is_file()
    assert not (sub / ".bmad").exists() and not (repo / "src" / ".bmad").exists()
    recalled = json.loads(mem_process("recall", "token", "refresh", "--json", cwd=sub, env=env).out)
    assert sorted(r["kind"] for r in recalled["results"]) == ["event", "memory"]
    listed = json.loads(mem_process("memories", "--json", cwd=sub, env=env).out)
    assert [m["key"] for m in listed["memories"]] == ["auth_flow"]
    reinforced = mem_process("reinforce", "--pattern", "p1", "--eval", "1", cwd=sub, env=env)
    assert reinforced.code == 0 and (repo / ".bmad" / "memory" / "pattern-scores.json").is_file()


def test_init_creates_the_config_once_and_says_what_it_did(mem, repo: Path) -> None:
    (repo / ".bmad" / "memory").rmdir()
    (repo / ".bmad").rmdir()
    first = mem("init", cwd=repo / "src" / "auth")  # a new project is its repository
    assert (first.code, first.err) == (0, "")
    assert first.out.startswith(f"mem init: created .bmad/memory/, {PROJECT_CONFIG}, .agents/memory/, ")
    assert first.out.splitlines()[0].endswith(f" in {repo}")
    text = (repo / PROJECT_CONFIG).read_text()
    assert text.startswith("# mem: this project's settings.") and '# store = "sqlite"' in text
    again = json.loads(mem("init", "--json", "-d", str(repo)).out)
    assert (again["project"], again["config"], again["created"]) == (str(repo), str(repo / PROJECT_CONFIG), [])
    assert (repo / PROJECT_CONFIG).read_text() == text
    assert mem("init", cwd=repo).out.startswith(f"mem init: {repo} has its memory files already; nothing changed\n")


def test_config_shows_every_setting_and_its_source(mem, repo: Path) -> None:
    (repo / PROJECT_CONFIG).write_text("context_budget = 800\n")
    shown = mem("config", "--json", cwd=repo / "src")
    assert shown.code == 0, shown.err
    report = json.loads(shown.out)
    assert report["project"] == str(repo)
    assert report["settings"]["context_budget"] == {
        "value": 800,
        "from": "project",
        "source": str(repo / PROJECT_CONFIG),
    }
    assert report["settings"]["disable_plugins"] == {
        "value": ["testranker"],
        "from": "env",
        "source": "MEM_DISABLE_PLUGINS",
    }
    assert report["settings"]["store"] == {"value": "sqlite", "from": "default", "source": "default"}
    text = mem("config", "-d", str(repo)).out.splitlines()
    assert text[0] == f"mem config: project {repo}"
    assert f"  context_budget = 800  ({repo / PROJECT_CONFIG})" in text
    assert '  store = "sqlite"  (default)' in text


def test_config_set_keeps_comments_and_checks_the_value(mem, repo: Path) -> None:
    path = repo / PROJECT_CONFIG
    path.write_text("# the team's choice\ncontext_budget = 800  # tokens\n")
    done = mem("config", "set", "store", "postgres", "-d", str(repo))
    assert (done.code, done.err) == (0, "")
    assert done.out == f'mem config: set store = "postgres" in {path}\n'
    assert path.read_text() == '# the team\'s choice\ncontext_budget = 800  # tokens\nstore = "postgres"\n'
    before = path.read_bytes()
    for argv, message in [
        (["context_budget", "many"], "context_budget must be a whole number >= 0 (got 'many')"),
        (["colour", "red"], "unknown key 'colour'; known keys: store, postgres_dsn_env, server_url, server_key_env, plugins, "
         "disable_plugins, strict_plugins, portfolio, default_mind, context_budget, prompt_budget, "
         "hook_relevance, hook_timeout, journal_sessions, recall_ranking, recall_hybrid_weight, "
         "recall_trust_weight, recall_model, recall_index"),
        (["debug", "true"], "unknown key 'debug' (a user setting: use --user); known keys: store, postgres_dsn_env, "
         "server_url, server_key_env, plugins, disable_plugins, strict_plugins, portfolio, default_mind, "
         "context_budget, prompt_budget, hook_relevance, hook_timeout, journal_sessions, recall_ranking, "
         "recall_hybrid_weight, recall_trust_weight, recall_model, recall_index"),
        (["postgres_dsn_env", f"postgresql://mem:{PASSWORD}@db/x"], "postgres_dsn_env looks like a secret (a "
         "connection string with a password); config files hold no secrets: keep it in an environment variable "
         "and name that variable in postgres_dsn_env"),
    ]:  # fmt: skip
        refused = mem("config", "set", *argv, "-d", str(repo), "--json")
        assert (refused.code, json.loads(refused.out)) == (1, {"error": message})
        assert mem("config", "set", *argv, "-d", str(repo)).err == f"mem config: {message}\n"
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ["mem.toml"]  # no temporary file left behind

    user = mem("config", "set", "debug", "true", "--user", "--json", cwd=repo)
    assert json.loads(user.out) == {"key": "debug", "value": True, "file": os.environ["MEM_USER_CONFIG"]}
    assert json.loads(mem("config", "--json", cwd=repo).out)["settings"]["debug"]["from"] == "user"


def test_a_malformed_config_is_one_line_and_the_actions_never_write_it(mem, repo: Path, now: str) -> None:
    path = repo / PROJECT_CONFIG
    path.write_text("store = [\n")
    for argv in (["recall", "x"], ["write", "--agent", "a"], ["memories"], ["config"]):
        run = mem(*argv, cwd=repo)
        assert run.code == 1 and run.out == ""
        assert run.err == f"mem {argv[0]}: {path}: invalid TOML: " + run.err.split("invalid TOML: ", 1)[1]
        assert run.err.count("\n") == 1
    path.write_text("context_budget = 800\n")
    before = tree_bytes(repo)
    for argv in (["write", "--agent", "a"], ["recall", "a"], ["reinforce", "--pattern", "p", "--eval", "1"]):
        assert mem(*argv, cwd=repo / "src").code == 0
    after = tree_bytes(repo)
    assert after[PROJECT_CONFIG] == before[PROJECT_CONFIG]


# -- the store a project chose ----------------------------------------------


@pytest.fixture
def dsn(postgres_server: str) -> str:
    return postgres_server


def test_a_postgres_project_is_used_from_a_shell_without_mem_store(mem_process, repo: Path, dsn: str) -> None:
    sub = repo / "src" / "auth"
    (repo / PROJECT_CONFIG).write_text('store = "postgres"\npostgres_dsn_env = "TEAM_PG"\n')
    stored = mem_process("remember", "fact", "db", "shared in postgres", "--json", cwd=sub, env={"TEAM_PG": dsn})
    assert (stored.code, stored.err) == (0, "")
    memory_dir = repo / ".bmad" / "memory"
    assert sorted(os.listdir(memory_dir)) == sorted([MARKER, "mem.toml"])

    # the marker alone is enough (a clone without the config line), in every shell
    (repo / PROJECT_CONFIG).write_text('postgres_dsn_env = "TEAM_PG"\n')
    listed = mem_process("memories", "--json", cwd=sub, env={"TEAM_PG": dsn})
    assert [m["key"] for m in json.loads(listed.out)["memories"]] == ["db"]
    recalled = mem_process("recall", "shared", "--json", cwd=repo, env={"TEAM_PG": dsn})
    assert [r["ref"] for r in json.loads(recalled.out)["results"]] == ["fact/db"]

    before = tree_bytes(repo)
    missing = mem_process("remember", "fact", "other", "x", cwd=sub)
    assert (missing.code, missing.out) == (1, "")
    assert missing.err == (
        "mem remember: The postgres memory store needs TEAM_PG: a libpq connection string or URL of its database.\n"
    )
    wrong = mem_process("remember", "fact", "other", "x", cwd=sub, env={"MEM_STORE": "sqlite", "TEAM_PG": dsn})
    assert wrong.code == 1
    assert wrong.err == (
        f"mem remember: the memory store in {memory_dir} is postgres, but MEM_STORE selects sqlite: select postgres "
        "(or move that store away); mem does not start a second store beside it\n"
    )
    assert tree_bytes(repo) == before  # nothing changed, no second store


def test_two_stores_in_one_directory_are_refused_without_a_choice(mem, repo: Path, now: str) -> None:
    assert mem("remember", "fact", "k", "v", "-d", str(repo)).code == 0
    (repo / ".bmad" / "memory" / MARKER).write_text('{"namespace": "x"}')
    refused = mem("memories", "-d", str(repo))
    assert refused.code == 1
    assert refused.err == (
        f"mem memories: {repo / '.bmad' / 'memory'} holds stores of sqlite and postgres: choose one with "
        "`mem config set store NAME` (or MEM_STORE)\n"
    )
    assert mem("memories", "-d", str(repo), env={"MEM_STORE": "sqlite"}).code == 0


# -- settings that are checked ------------------------------------------------


def test_config_set_refuses_a_value_no_plugin_registers_and_doctor_reports_one(mem, repo: Path) -> None:
    from mem_core.kernel import Kernel

    rankers = Kernel().rankers.names()
    assert mem("init", "-d", str(repo)).code == 0
    path = repo / PROJECT_CONFIG
    before = tree_bytes(repo)
    refused = mem("config", "set", "recall_ranking", "nonsense", "-d", str(repo))
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == f"mem config: recall_ranking must be one of {', '.join(rankers)} (got 'nonsense')\n"
    assert "bm25" in refused.err and tree_bytes(repo) == before  # nothing written
    assert mem("config", "set", "store", "mongo", "-d", str(repo)).err.startswith(
        "mem config: store must be one of sqlite, postgres"
    )

    # set in place of the line mem init wrote (the best ranking installed); unset takes it away
    template = path.read_text()
    (chosen,) = [line for line in template.splitlines() if line.startswith("recall_ranking = ")]
    assert chosen in ('recall_ranking = "hybrid"', 'recall_ranking = "bm25"')
    assert mem("config", "set", "recall_ranking", "lexical", "-d", str(repo)).code == 0
    assert path.read_text() == template.replace(chosen, 'recall_ranking = "lexical"')
    unset = mem("config", "unset", "recall_ranking", "-d", str(repo))
    assert unset.out == f"mem config: unset recall_ranking in {path}\n"
    template = template.replace(chosen + "\n", "")
    assert path.read_text() == template
    again = mem("config", "unset", "recall_ranking", "-d", str(repo))
    assert again.out == f"mem config: recall_ranking is not set in {path}; nothing changed\n"
    assert mem("config", "unset", "colour", "-d", str(repo)).err.startswith("mem config: unknown key 'colour'")
    user = mem("config", "unset", "debug", "--user", "--json", cwd=repo)
    assert json.loads(user.out) == {"key": "debug", "file": os.environ["MEM_USER_CONFIG"], "changed": False}

    # a value written by another tool (or an older mem): every recall fails, and doctor says so
    path.write_text(template + 'recall_ranking = "nonsense"\n')
    recall = mem("recall", "x", "-d", str(repo))
    assert recall.code == 1 and "bm25" in recall.err
    doctor = mem("doctor", "-d", str(repo))
    assert doctor.code == 1
    assert (
        f"error settings: recall_ranking must be one of {', '.join(rankers)} (got 'nonsense'), from {path}: "
        "commands that use it fail; `mem config unset recall_ranking`\n"
    ) in doctor.out
    assert mem("config", "unset", "recall_ranking", "-d", str(repo)).code == 0
    assert "ok    settings: every value usable\n" in mem("doctor", "-d", str(repo)).out
