"""``recall(..., leave_out_via=…)``: journal events written by the named
writers are no candidates at all — the recall equals one over a journal
without them, on every path the journal source reads (the on-disk index,
a long-lived kernel's parsed journal, the plain parse beside an archive),
for the rankings with corpus statistics (``bm25``) and without (``lexical``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mem_core.api.recall import recall
from mem_core.api.write import write
from mem_core.kernel import resolve

NOW = "2026-11-05T12:00:00.000Z"
DECISIONS = """\
### Rate limits
Use Redis for login rate limiting, keyed by account.
### Sessions
Sessions live in Redis for fourteen days.
### Logging
JSON lines on stderr.
"""
TASKS = [
    ("agent-a", "tune the redis rate limiting of the login endpoint", None),
    ("claude-code", "why does login rate limiting use redis", "session-end"),
    ("agent-b", "move sessions to redis cluster", None),
    ("claude-code", "redis login rate limiting again", "session-end"),
    ("agent-c", "log rate limit rejections as json lines", None),
]
QUERIES = ["redis login rate limiting", "sessions redis", "json logging", "nothing matches this"]


def _project(root: Path, with_echoes: bool) -> Path:
    memory = root / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text(DECISIONS, encoding="utf-8")
    (root / ".bmad" / "memory").mkdir(parents=True)
    for agent, task, via in TASKS:
        if via is None or with_echoes:
            write(agent=agent, cli=agent, task=task, directory=str(root), via=via, now=NOW)
    return root


def _answers(project: Path, query: str, ranking: str, path: str, **options: object) -> list[tuple[str, str, float]]:
    kernel = None
    if path == "kernel":  # a long-lived kernel: the journal parsed once, in memory
        kernel, _ = resolve(str(project), None)
        recall("warm", directory=str(project), ranking=ranking, now=NOW, kernel=kernel)
    result = recall(
        query,
        directory=str(project),
        ranking=ranking,
        now=NOW,
        limit=20,
        kernel=kernel,
        index=path == "index",
        **options,  # type: ignore[arg-type]
    )
    return [(hit.fields["kind"], hit.fields["text"], round(hit.score, 9)) for hit in result.results]


@pytest.mark.parametrize("ranking", ["lexical", "bm25"])
@pytest.mark.parametrize("path", ["index", "kernel", "plain", "archive"])
def test_left_out_events_are_as_if_never_written(
    tmp_path: Path, ranking: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    echoed = _project(tmp_path / "echoed", with_echoes=True)
    clean = _project(tmp_path / "clean", with_echoes=False)
    if path == "archive":  # with an archive the journal is read as it is, not through the index
        for root in (echoed, clean):
            (root / ".bmad" / "memory" / "archive").mkdir()
    mode = "index" if path in ("index", "archive") else path
    some_left_out = False
    for query in QUERIES:
        left_out = _answers(echoed, query, ranking, mode, leave_out_via=("session-end",))
        assert left_out == _answers(clean, query, ranking, mode)
        some_left_out |= left_out != _answers(echoed, query, ranking, mode)
    assert some_left_out  # the echoes do rank when not left out: the test can fail


def test_a_via_inside_a_task_text_is_not_a_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    project = _project(tmp_path / "p", with_echoes=True)
    write(agent="agent-d", cli="x", task='redis note: "via": "session-end"', directory=str(project), now=NOW)
    found = _answers(project, "redis session end", "bm25", "index", leave_out_via=("session-end",))
    assert any("agent-d" in text for _kind, text, _score in found)
    assert not any(text.startswith("claude-code") for _kind, text, _score in found)


def test_the_journal_is_unchanged_and_a_plain_recall_still_finds_echoes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    project = _project(tmp_path / "p", with_echoes=True)
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    before = journal.read_bytes()
    _answers(project, "redis login rate limiting", "bm25", "index", leave_out_via=("session-end",))
    assert journal.read_bytes() == before
    vias = [json.loads(line).get("via") for line in before.decode().splitlines()]
    assert vias.count("session-end") == 2
    found = _answers(project, "redis login rate limiting", "bm25", "index")
    assert any(text.startswith("claude-code") for _kind, text, _score in found)
    shutil.rmtree(tmp_path / "cache")
