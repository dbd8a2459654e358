"""A third-party plugin installed as a distribution (tests/plugin_pkg, installed
into the test environment by tox) and found through the ``mem.plugins``
entry-point group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def with_test_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "")
    try:
        import mem_test_ranker  # noqa: F401
    except ImportError:  # pragma: no cover - outside tox
        pytest.skip("tests/plugin_pkg is not installed (run the suite with tox)")


def _notes(project: Path) -> None:
    notes = project / ".agents/memory"
    notes.mkdir(parents=True)
    # lexical prefers the first (4 hits in 4 words), shortest the second (fewer characters)
    (notes / "lessons.md").write_text("### Cache cache\ncache cache\n### S\ncache ab cd ef gh\n")


def test_recall_ranks_with_the_entry_point_ranker(mem, project: Path, now: str, with_test_plugin) -> None:
    _notes(project)
    lexical = json.loads(mem("recall", "cache", "--json", "-d", str(project)).out)
    shortest = json.loads(mem("recall", "cache", "--ranking", "shortest", "--json", "-d", str(project)).out)
    assert shortest["ranking"] == "shortest"
    assert [r["ref"] for r in shortest["results"]] == ["S", "Cache cache"]
    assert [r["ref"] for r in lexical["results"]] == ["Cache cache", "S"]
    assert shortest["results"][0]["score"] == 1 / len(
        "S\ncache ab cd ef gh\n\n"
    )  # the final newline opens an empty line


def test_the_plugin_is_listed_with_its_distribution_version(mem, with_test_plugin) -> None:
    rows = {row["name"]: row for row in json.loads(mem("plugins", "--json").out)["plugins"]}
    assert rows["testranker"] == {
        "name": "testranker",
        "provider": "mem_test_ranker",
        "version": "1.2.3",
        "origin": "entry-point",
        "provides": [{"kind": "ranker", "name": "shortest"}],
        "error": None,
    }


def test_disabling_it_by_name_removes_the_ranking(mem, project: Path, now: str) -> None:
    # the autouse fixture keeps MEM_DISABLE_PLUGINS=testranker
    run = mem("recall", "cache", "--ranking", "shortest", "-d", str(project))
    assert run.code == 1
    assert run.err.startswith("mem recall: recall: ranking must be lexical")
