"""``mem memories --search`` finds what people type (issue 13 item 7), on
both backends: memories holding some of the words, best first; accents,
inflections and prefixes; a word that matches nothing hides nothing. And
recall's hint when notes are written under ``##`` headings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mem_plugins.stores.postgres import DSN_ENV
from tests.conftest import tree_bytes
from tests.plugins.postgres_server import postgres_server_fixture  # noqa: F401

MEMORIES = [
    ("fact", "cache_policy", "Cache the rendered pages for ten minutes; invalidate the cache after a deploy"),
    ("fact", "deploy_day", "Deploys happen on Tuesdays after the standup"),
    ("fact", "office_city", "Das Büro ist in München"),
    ("note", "config_file", "The configuration lives in settings.toml"),
    ("note", "unrelated", "Lunch is at noon"),
]


@pytest.fixture(params=["sqlite", "postgres"])
def backend_env(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "sqlite":
        return {}
    dsn = request.getfixturevalue("postgres_server")  # skips without PostgreSQL
    return {"MEM_STORE": "postgres", DSN_ENV: dsn}


@pytest.fixture
def stored(mem, project: Path, now: str, backend_env: dict[str, str]) -> Path:
    for category, key, content in MEMORIES:
        run = mem("remember", category, key, content, "-d", str(project), env=backend_env)
        assert run.code == 0, run.err
    return project


def keys(mem, project: Path, env: dict[str, str], *words: str) -> list[str]:
    run = mem("memories", "--search", " ".join(words), "--json", "-d", str(project), env=env)
    assert run.code == 0, run.err
    return [memory["key"] for memory in json.loads(run.out)["memories"]]


def test_some_of_the_words_is_enough_and_more_words_rank_first(mem, stored: Path, backend_env: dict[str, str]) -> None:
    found = keys(mem, stored, backend_env, "invalidate", "cache", "deploy", "kubernetes")
    assert found[0] == "cache_policy" and set(found) == {"cache_policy", "deploy_day"}
    assert keys(mem, stored, backend_env, "kubernetes", "helm") == []


def test_question_words_are_ignored(mem, stored: Path, backend_env: dict[str, str]) -> None:
    found = keys(mem, stored, backend_env, "when", "do", "we", "deploy?")
    assert found[0] == "deploy_day" and set(found) == {"deploy_day", "cache_policy"}
    assert "unrelated" not in keys(mem, stored, backend_env, "what", "is", "the", "deploy", "day")


def test_accents_inflections_and_prefixes(mem, stored: Path, backend_env: dict[str, str]) -> None:
    assert keys(mem, stored, backend_env, "munchen") == ["office_city"]
    assert keys(mem, stored, backend_env, "caching") == ["cache_policy"]
    assert keys(mem, stored, backend_env, "config") == ["config_file"]
    assert keys(mem, stored, backend_env, "configured") == ["config_file"]
    assert keys(mem, stored, backend_env, "Deploying")[0] == "deploy_day"


def test_the_text_output_and_the_help(mem, stored: Path, backend_env: dict[str, str]) -> None:
    run = mem("memories", "--search", "lunch absent", "-d", str(stored), env=backend_env)
    assert run.code == 0 and run.out.splitlines()[0].startswith('mem memories: 1 match(es) for "lunch absent"')
    help_text = mem("memories", "--help").out
    assert "some of the words" in " ".join(help_text.split())


# -- recall's hint for ## headings -------------------------------------------------


def test_recall_says_when_notes_have_only_level_two_headings(mem, project: Path, now: str) -> None:
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "lessons.md").write_text("## Deploy checklist\nRun the migrations first.\n", encoding="utf-8")
    before = tree_bytes(project)
    run = mem("recall", "migrations", "-d", str(project))
    assert run.code == 0
    assert run.out == 'mem recall: no matches for "migrations" (scope: project)\n'  # the reference's line
    assert run.err == (
        "mem recall: hint: .agents/memory/lessons.md has ## headings but no ### sections; "
        "recall reads only ### sections (make each note a ### heading)\n"
    )
    data = json.loads(mem("recall", "migrations", "--json", "-d", str(project)).out)
    assert data["count"] == 0 and data["hints"] == [run.err.removeprefix("mem recall: hint: ").rstrip("\n")]
    assert tree_bytes(project) == before


def test_no_hint_when_there_are_sections_or_matches(mem, project: Path, now: str) -> None:
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "lessons.md").write_text("## Deploys\n### Checklist\nRun the migrations first.\n", encoding="utf-8")
    (memory / "patterns.md").write_text("An intro\n## Only a level two heading\nwith text\n", encoding="utf-8")
    assert mem("recall", "migrations", "-d", str(project)).err == ""  # a match: nothing more is read
    run = mem("recall", "nothing", "-d", str(project))
    assert run.err.count("\n") == 1 and "patterns.md" in run.err and "lessons.md" not in run.err
    (memory / "patterns.md").write_text("#### deeper\n# top\ntext\n", encoding="utf-8")
    assert mem("recall", "nothing", "-d", str(project)).err == ""
    assert "hints" not in json.loads(mem("recall", "nothing", "--json", "-d", str(project)).out)
