"""The ``bm25`` ranker and the text analysis behind it (issue 13 item 7):
accents folded, CJK by bigrams, English stems, question words dropped;
``--ranking bm25`` and the ``recall_ranking`` setting; the ``lexical``
ranker left as the reference has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mem_core.api.recall import recall
from mem_core.errors import MemError
from mem_core.retrieval.analysis import fold, query_terms, search_words, stem, terms, words
from mem_plugins.rankers.bm25 import bm25_scores

NOW = "2026-11-05T12:00:00.000Z"

LESSONS = """\
### München office
Der Zug fährt um neun vom Hauptbahnhof.
### 缓存修复
修复了缓存问题，现在可以了。
### Caching layer
We cache the rendered pages for ten minutes.
### Queue retries
Jobs are retried three times with backoff.
### Résumé parser
The parser reads PDF files.
"""


@pytest.fixture
def notes(project: Path) -> Path:
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "lessons.md").write_text(LESSONS, encoding="utf-8")
    return project


def refs(query: str, project: Path, ranking: str | None = "bm25", **options) -> list[str]:
    result = recall(query, directory=str(project), ranking=ranking, now=NOW, **options)
    return [hit.fields["ref"] for hit in result.results]


# -- the analysis ----------------------------------------------------------------


def test_folding_removes_case_and_accents_and_keeps_hangul_whole() -> None:
    assert fold("München ÉTÉ Straße") == "munchen ete strasse"
    assert fold("ﬁle") == "file"
    assert fold("한국어") == "한국어"  # NFKD splits Hangul into jamo; NFC puts them back


def test_words_split_on_everything_but_letters_and_digits_and_cjk_goes_by_bigrams() -> None:
    assert words("read_text(path), v1.5") == ["read", "text", "path", "v1", "5"]
    assert words("修复缓存") == ["修复", "复缓", "缓存"]
    assert words("redis缓存 的") == ["redis", "缓存", "的"]
    assert words("キャッシュ") == ["キャ", "ャッ", "ッシ", "シュ"]


@pytest.mark.parametrize(
    "forms",
    [
        ("cache", "caches", "caching", "cached"),
        ("run", "runs", "running"),
        ("copy", "copies", "copied"),
        ("install", "installs", "installing", "installed", "installation"),
        ("configure", "configured", "configuration", "configurations"),
        ("dependency", "dependencies"),
        ("use", "uses", "used", "using"),
        ("global", "globally"),
        ("need", "needs", "needed"),
        ("migration", "migrations", "migrating", "migrated"),
        ("revoke", "revoked", "revocable", "revocation"),
        ("invoke", "invoking", "invocation"),
    ],
)
def test_the_forms_of_a_word_have_one_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(form) for form in forms}) == 1, {form: stem(form) for form in forms}


def test_stems_keep_what_they_should() -> None:
    assert stem("status") == "status" and stem("process") == "process" and stem("bus") == "bus"
    assert stem("is") == "is" and stem("v2") == "v2" and stem("缓存") == "缓存"
    assert stem("cache") != stem("catch")


def test_a_query_drops_question_words_unless_nothing_else_is_left() -> None:
    assert query_terms("How do I configure the registry?") == [stem("configure"), stem("registry")]
    assert query_terms("how is it") == ["how", "is", "it"]
    assert query_terms("cache CACHE caching") == [stem("cache")]
    assert terms("Caching the pages") == [stem("cache"), stem("the"), stem("pages")]  # texts keep them


def test_search_words_are_words_or_phrases_without_question_words() -> None:
    assert search_words(["How", "to", "cache-values", "München"]) == [("cache", "values"), ("munchen",)]
    assert search_words(["the", "and"]) == [("the",), ("and",)]
    assert search_words(["--", "!"]) == []


def test_bm25_prefers_rare_terms_whole_matches_and_short_texts() -> None:
    rare, common = "zebra", "cach"
    docs = [
        ({common: 1.0}, 10.0),
        ({common: 1.0, rare: 1.0}, 10.0),
        ({rare: 1.0}, 10.0),
        ({rare: 1.0}, 40.0),
        ({"other": 1.0}, 10.0),
    ] + [({common: 1.0}, 10.0)] * 5
    scores = bm25_scores([rare, common], docs)
    assert scores[1] > scores[2] > scores[0] > 0  # both terms > the rare one > the common one
    assert scores[2] > scores[3]  # the shorter text
    assert scores[4] == 0.0


# -- the ranker through recall ---------------------------------------------------


def test_accents_do_not_matter(notes: Path) -> None:
    assert refs("munchen", notes) == ["München office"]
    assert refs("MÜNCHEN", notes) == ["München office"]
    assert refs("resume", notes) == ["Résumé parser"]
    assert refs("munchen", notes, ranking="lexical") == []  # the reference's tokenizer, unchanged


def test_chinese_is_found_by_bigrams(notes: Path) -> None:
    assert refs("修复缓存", notes) == ["缓存修复"]
    assert refs("缓存", notes) == ["缓存修复"]
    assert refs("修复缓存", notes, ranking="lexical") == []


def test_stems_match_and_question_words_do_not(notes: Path) -> None:
    assert refs("how do we handle caching?", notes) == ["Caching layer"]
    assert refs("retrying jobs", notes) == ["Queue retries"]
    # only question words: they are the query
    assert set(refs("what is the", notes)) == {"Caching layer", "Résumé parser"}


def test_other_forms_of_a_word_find_a_decision(project: Path, mem) -> None:
    """The issue's examples: the home-made stemmer had ``migration`` →
    ``migr`` but ``migrating`` → ``migrat``, and ``revoke`` apart from
    ``revocable``."""
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text(
        "### Schema changes\nMigrations must be backwards compatible.\n"
        "### Tokens\nAPI tokens are revocable by their owner.\n"
        "### Logging format\nJSON lines on stderr.\n",
        encoding="utf-8",
    )
    assert refs("migrating", project) == ["Schema changes"]
    assert refs("revoke", project) == ["Tokens"]
    run = mem("recall", "migrating", "--ranking", "bm25", "-d", str(project))
    assert run.code == 0, run.err
    assert "Migrations must be backwards compatible" in run.out
    assert "revocable" in mem("recall", "revoke", "--ranking", "bm25", "-d", str(project)).out
    assert refs("migrating", project, ranking="lexical") == []  # the reference's tokens, no stems


def test_the_output_keeps_recalls_format(notes: Path, mem, now: str) -> None:
    run = mem("recall", "caching", "--ranking", "bm25", "-d", str(notes))
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[0] == 'mem recall: 1 match(es) for "caching" (scope: project)'
    assert lines[1].startswith("  1. [") and lines[1].endswith("] note lessons.md § Caching layer")
    assert lines[2] == "     Caching layer We cache the rendered pages for ten minutes."
    data = json.loads(mem("recall", "caching", "--ranking", "bm25", "--json", "-d", str(notes)).out)
    assert data["ranking"] == "bm25" and data["count"] == 1
    assert list(data["results"][0]) == ["score", "kind", "source", "sourceFile", "ref", "text"]
    assert data["results"][0]["score"] > 0


def test_journal_decay_weighs_bm25_scores(project: Path) -> None:
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    old = {"ts": "2026-08-01T00:00:00.000Z", "agent": "forge", "task": "Fix the cache warmer", "id": "old"}
    new = {"ts": "2026-11-05T00:00:00.000Z", "agent": "forge", "task": "Fix the cache warmer", "id": "new"}
    journal.write_text(json.dumps(old) + "\n" + json.dumps(new) + "\n", encoding="utf-8")
    result = recall("cache warmer", directory=str(project), ranking="bm25", now=NOW)
    assert [hit.fields["ref"] for hit in result.results] == ["new", "old"]
    assert result.results[1].score < result.results[0].score / 8  # three months: decayed below 1/8


def test_ties_keep_the_sources_order_and_the_limit_holds(project: Path) -> None:
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "lessons.md").write_text("".join(f"### Note {n}\nsame deploy text\n" for n in range(5)))
    assert refs("deploy", project, limit=3) == ["Note 0", "Note 1", "Note 2"]


def test_structured_memories_are_ranked_too(project: Path, mem, now: str) -> None:
    assert mem("remember", "fact", "office_city", "Das Büro ist in München", "-d", str(project)).code == 0
    assert refs("munchen buro", project) == ["fact/office_city"]


# -- choosing the ranking ----------------------------------------------------------


def write_config(project: Path, text: str) -> None:
    config = project / ".bmad" / "memory" / "mem.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


def test_the_project_config_sets_the_default_ranking_and_an_option_wins(notes: Path, mem, now: str) -> None:
    assert refs("munchen", notes, ranking=None) == []  # lexical by default
    write_config(notes, 'recall_ranking = "bm25"\n')
    assert refs("munchen", notes, ranking=None) == ["München office"]
    data = json.loads(mem("recall", "munchen", "--json", "-d", str(notes)).out)
    assert data["ranking"] == "bm25" and data["count"] == 1
    run = mem("recall", "munchen", "--ranking", "lexical", "-d", str(notes))
    assert run.out == 'mem recall: no matches for "munchen" (scope: project)\n'


def test_the_environment_sets_it_too(notes: Path, mem, now: str) -> None:
    run = mem("recall", "munchen", "--json", "-d", str(notes), env={"MEM_RECALL_RANKING": "bm25"})
    assert json.loads(run.out)["ranking"] == "bm25"


def test_an_unknown_configured_ranking_is_a_one_line_error_naming_the_file(notes: Path, mem, now: str) -> None:
    write_config(notes, 'recall_ranking = "bm26"\n')
    with pytest.raises(MemError) as caught:
        recall("munchen", directory=str(notes), now=NOW)
    config = notes / ".bmad" / "memory" / "mem.toml"
    from mem_core.kernel import Kernel

    names = Kernel().rankers.names()  # every registered ranker, bm25 too (the reference's message is for --ranking)
    assert "bm25" in names
    assert caught.value.message == (
        f"recall: ranking must be {', '.join(names[:-1])} or {names[-1]} (got 'bm26' from recall_ranking in {config})"
    )
    run = mem("recall", "munchen", "-d", str(notes))
    assert run.code == 1 and run.err.count("\n") == 1 and "bm26" in run.err


def test_the_reference_message_for_an_unknown_option_is_unchanged(notes: Path, mem, now: str) -> None:
    run = mem("recall", "x", "--ranking", "semantic", "-d", str(notes))
    assert (run.code, run.err) == (1, "mem recall: recall: ranking must be lexical or evidence\n")


def test_the_prompt_hook_ranks_with_the_configured_ranking(notes: Path) -> None:
    """``recall_ranking = "bm25"`` reaches the prompt hook too (issue 19)."""
    from mem_core.api.recall import recall
    from mem_core.hooks.prompt import prompt_context
    from mem_core.kernel import resolve

    def scores(ranking: str | None) -> list[float]:
        kernel, _ = resolve(str(notes), None)
        if ranking is None:
            context = prompt_context("munchen office", project=str(notes), floor=0.0, budget=600, kernel=kernel)
            return [hit.score for hit in context.results]
        return [hit.score for hit in recall("munchen office", directory=str(notes), ranking=ranking).results]

    assert scores(None) == scores("lexical") != scores("bm25")
    write_config(notes, 'recall_ranking = "bm25"\n')
    assert scores(None) == scores("bm25") and len(scores("bm25")) == 1
