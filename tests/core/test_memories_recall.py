"""Structured memories in ``mem recall``: one more note source, scored by the
same ranker, expired ones left out, unverified ones marked — and nothing
changes, not one byte, where there are no structured memories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.api.context import KernelSourceContext
from mem_core.errors import MemError
from mem_core.kernel import Kernel
from mem_core.memories.records import recall_text
from mem_core.plugin import Query
from mem_core.text import query_tokens
from mem_plugins.rankers.lexical import LexicalRanker, lexical_score
from mem_plugins.sources.memories import StructuredMemories
from tests.conftest import NOW, TEST_PLUGINS
from tests.humans import signer_for

WITHOUT = {"MEM_DISABLE_PLUGINS": f"{TEST_PLUGINS},memories_source,sqlite_store"}
QUERIES = ["cache", "rate limit auth", "queue", "zero values cache-values", "nothing-matches-this"]


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_without_structured_memories_recall_is_byte_identical(
    mem, bmad_project: Path, now: str, json_flag: list[str]
) -> None:
    for query in QUERIES:
        before = mem("recall", *query.split(), "-d", str(bmad_project), *json_flag, env=WITHOUT)
        after = mem("recall", *query.split(), "-d", str(bmad_project), *json_flag)
        assert before.code == after.code == 0
        assert (after.out_bytes, after.err_bytes) == (before.out_bytes, before.err_bytes)


def test_an_empty_store_changes_nothing_either(mem, bmad_project: Path, now: str) -> None:
    service.remember("fact", "k", "cache", directory=str(bmad_project))
    service.forget("fact/k", directory=str(bmad_project))
    service.remember("fact", "k", "cache expired", expires="2026-01-01", directory=str(bmad_project))
    for query in QUERIES:
        before = mem("recall", *query.split(), "-d", str(bmad_project), "--json", env=WITHOUT)
        after = mem("recall", *query.split(), "-d", str(bmad_project), "--json")
        assert after.out_bytes == before.out_bytes


def _recall_in_a_process(project: Path, query: str) -> subprocess.CompletedProcess[str]:
    """``mem recall QUERY`` in a fresh interpreter without ``MEM_USER_DIR``;
    its last stderr line lists the database drivers it imported."""
    code = (
        "import sys\n"
        "from mem_cli.main import main\n"
        f"main(['recall', {query!r}, '-d', {str(project)!r}])\n"
        "print(sorted(m for m in ('sqlite3', 'pydantic') if m in sys.modules), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MEM_USER_DIR"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)


def test_recall_without_a_store_imports_no_database_driver(project: Path) -> None:
    proc = _recall_in_a_process(project, "anything")
    assert proc.stderr.splitlines()[-1] == "[]"


def test_a_memory_is_a_result_with_its_documented_keys(mem, project: Path, now: str) -> None:
    memory = service.remember("project", "synapse_status", "v1.5.0 deployed on vps1", tags=["synapse", "deployment"],
                          priority="high", directory=str(project)).memory  # fmt: skip
    run = mem("recall", "synapse", "deployed", "-d", str(project), "--json")
    results = json.loads(run.out)["results"]
    record = memory.to_json()
    score = lexical_score(query_tokens("synapse deployed"), recall_text(record))
    assert results == [
        {
            "score": score,
            "kind": "memory",
            "source": "memories",
            "ref": "project/synapse_status",
            "text": "[unverified] v1.5.0 deployed on vps1",
            "verified": False,
            "memory": record,
        }
    ]
    text = mem("recall", "synapse", "deployed", "-d", str(project))
    assert text.out == (
        'mem recall: 1 match(es) for "synapse deployed" (scope: project)\n'
        f"  1. [{score:.3f}] memory memories § project/synapse_status\n"
        "     [unverified] v1.5.0 deployed on vps1\n"
    )


def test_a_verified_memory_is_not_marked(mem, project: Path, now: str) -> None:
    service.remember(
        "preference", "style", "concise answers", as_user=True, signer=signer_for(project), directory=str(project)
    )
    result = json.loads(mem("recall", "concise", "-d", str(project), "--json").out)["results"][0]
    assert (result["text"], result["verified"]) == ("concise answers", True)


def test_memories_and_notes_share_one_ranking_and_notes_win_ties(mem, project: Path, now: str) -> None:
    notes = project / ".bmad" / "memory"
    notes.mkdir(parents=True)
    (notes / "lessons.md").write_text("### cache\nzeta\n\n### long\ncache " + "word " * 30 + "\n")
    service.remember("fact", "cache", "zeta", directory=str(project))  # scored on "cache\nzeta": the note's tokens
    service.remember("note", "c", "cache", directory=str(project))  # one token: the best score
    results = json.loads(mem("recall", "cache", "-d", str(project), "--json").out)["results"]
    assert [(r["kind"], r["ref"]) for r in results] == [
        ("memory", "note/c"),
        ("note", "cache"),
        ("memory", "fact/cache"),
        ("note", "long"),
    ]
    assert results[1]["score"] == results[2]["score"]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_expired_memories_are_not_recalled(mem, project: Path) -> None:
    service.remember("context", "meeting_topic", "Discussing Q3 roadmap", expires="2026-11-05T12:00:00Z",
                 directory=str(project), now="2026-11-01T00:00:00.000Z")  # fmt: skip
    before = mem("recall", "roadmap", "-d", str(project), "--json", env={"MEM_NOW": "2026-11-05T11:59:59.999Z"})
    assert json.loads(before.out)["count"] == 1
    after = mem("recall", "roadmap", "-d", str(project), "--json", env={"MEM_NOW": NOW})
    assert json.loads(after.out)["count"] == 0
    listed = service.list_memories(include_expired=True, directory=str(project), now=NOW)
    assert [m.key for m in listed.memories] == ["meeting_topic"]


def test_recall_reads_the_project_store_only(mem, project: Path, now: str) -> None:
    """The user-level store reaches agents through ``mem context --user``,
    not through recall."""
    service.remember("preference", "editor", "Uses helix as editor", user=True)
    service.remember("fact", "editor_config", "The editor config lives in dotfiles", directory=str(project))
    results = json.loads(mem("recall", "editor", "-d", str(project), "--json").out)["results"]
    assert [r["ref"] for r in results] == ["fact/editor_config"]


def test_recall_opens_no_user_store_even_without_mem_user_dir(project: Path, now: str) -> None:
    service.remember("fact", "k", "some words", directory=str(project))
    proc = _recall_in_a_process(project, "words")
    assert "fact/k" in proc.stdout
    assert proc.stderr.splitlines()[-1] == "['sqlite3']"


@pytest.mark.parametrize("preselect", [True, False])
def test_preselection_by_recall_terms_changes_no_result(
    mem, project: Path, now: str, monkeypatch: pytest.MonkeyPatch, preselect: bool
) -> None:
    """The store may leave out memories that cannot score (when the ranker
    says it needs a query match); with the preselection on or off, recall is
    the same."""
    contents = [
        ("fact", "cache_values", "CACHE-values are zero", ["cache"]),
        ("note", "naive_cafe", "naïve café crème, déjà vu", ["français"]),
        ("skill", "python_level", "Advanced Python_3 for 10+ years", ["python"]),
        ("mistake", "mistake_npm_version", "NPM version not bumped; CI failed", ["npm", "ci"]),
        ("context", "mixed", "日本xcafé and tokyo-based", []),
        ("note", "dashes", "-- double dash and x-ray", []),
    ]
    for category, key, content, tags in contents:
        service.remember(category, key, content, tags=tags, directory=str(project))
    queries = ["cache", "cache-values", "values", "naïve", "CAFÉ", "xcafé", "python_3", "python", "level", "npm ci",
               "x-ray", "tokyo-based", "mistake", "version bumped", "zzz"]  # fmt: skip
    expected = {q: mem("recall", q, "-d", str(project), "--json").out for q in queries}
    monkeypatch.setattr(LexicalRanker, "needs_query_match", preselect)
    assert {q: mem("recall", q, "-d", str(project), "--json").out for q in queries} == expected
    assert sum(json.loads(out)["count"] for out in expected.values()) >= 14


def test_a_damaged_store_is_skipped_and_reported_in_lexical_recall(mem, project: Path, now: str) -> None:
    store = project / ".bmad" / "memory"
    store.mkdir(parents=True)
    (store / "memories.sqlite3").write_bytes(b"this is not a database" * 50)
    (store / "lessons.md").write_text("### cache\nkeep it\n")
    run = mem("recall", "cache", "-d", str(project))
    assert run.code == 0
    message = (
        f"Memory store {store / 'memories.sqlite3'} is not a SQLite database or is damaged; inspect it before using it."
    )
    assert run.err == f"mem recall: skipped .bmad/memory: {message}\n"
    assert "note lessons.md § cache" in run.out
    data = json.loads(mem("recall", "cache", "-d", str(project), "--json").out)
    assert data["skipped"] == [{"path": ".bmad/memory", "reason": message}]
    query = Query(str(project), "cache", ["cache"], strict=True, now=NOW)
    with pytest.raises(MemError) as caught:
        list(StructuredMemories().candidates(query, KernelSourceContext(Kernel(), query)))
    assert caught.value.message == message
