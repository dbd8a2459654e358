"""Recall on one long-lived kernel (``mem mcp``): the file cache, the
sources' cached candidates and the lexical ranker's index give byte for
byte what a fresh kernel (a one-shot ``mem recall``) gives, and a file
changed between two recalls is seen."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_core import recall, write
from mem_core.errors import MemError
from mem_core.files.cache import FileCache
from mem_core.js.jsonfmt import dumps
from mem_core.kernel import Kernel
from mem_core.settings import load_settings
from tests.conftest import readers_beside_a_writer
from tests.plugins import recall_corpus

NOW = "2026-11-05T12:00:00.000Z"
WORDS = ["cache", "auth", "values", "queue", "retry", "token", "zéro", "ci", "pass", "x", "Cache-Values", "2026"]


def _kernel(project: Path, cache: FileCache | None = None) -> Kernel:
    return Kernel(settings=load_settings(str(project)), cache=cache)


def _json(project: Path, query: str, kernel: Kernel | None = None, **options: object) -> str:
    """``recall --json`` as the CLI prints it (or the error it prints)."""
    try:
        result = recall(query, directory=str(project), now=NOW, kernel=kernel, **options)  # type: ignore[arg-type]
    except MemError as exc:
        return dumps({"error": exc.message})
    return dumps(result.to_json(), 2)


def _event(i: int, words: list[str], *, ts: str, odd: int) -> str:
    record: dict[str, object] = {
        "ts": ts,
        "agent": ["forge", "scout", ""][i % 3],
        "cli": "claude-code",
        "model": None,
        "task": " ".join(words),
        "outcome": ["success", "failure", None][i % 3],
        "signals": {"ci": "pass"} if i % 2 else {},
        "artifactHashes": [],
        "id": f"{i:012x}",
    }
    if odd == 1:
        record["task"] = [words[0]] if words else []  # a non-string field
    elif odd == 2:
        del record["id"]  # ref from ts
    elif odd == 3:
        record["model"] = 1e2
    return json.dumps(record, separators=(",", ":"), ensure_ascii=odd != 4)


events = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), max_size=6),
        st.integers(0, 400),  # age in days
        st.integers(0, 8),  # 0-4: a variant of event, 5: blank, 6: corrupt, 7: an array, 8: normal
    ),
    max_size=30,
)
sections = recall_corpus.sections(WORDS)
queries = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
        st.integers(0, 12),
        st.sampled_from(["lexical", "lexical", "lexical", "evidence"]),
    ),
    min_size=1,
    max_size=4,
)


def _journal(specs: list[tuple[list[str], int, int]]) -> str:
    lines = []
    for i, (words, age, kind) in enumerate(specs):
        day = 5 - age % 28 if age < 300 else 1
        month = 11 - age // 28 if age < 300 else 1
        ts = f"2026-{max(month, 1):02d}-{max(day, 1):02d}T{age % 24:02d}:00:00.000Z" if age != 7 else "garbage"
        if kind == 5:
            lines.append("   ")
        elif kind == 6:
            lines.append('{"agent": "broken')
        elif kind == 7:
            lines.append('["cache", "values"]')
        else:
            lines.append(_event(i, words, ts=ts, odd=kind if kind < 5 else 0))
    return "\n".join(lines) + ("\n" if lines else "")


def _make(project: Path, journal: str, notes: list[str]) -> None:
    (project / ".bmad" / "memory").mkdir(parents=True, exist_ok=True)
    (project / ".agents" / "memory").mkdir(parents=True, exist_ok=True)
    (project / ".bmad" / "memory" / "journal.ndjson").write_text(journal, encoding="utf-8")
    for i, text in enumerate(notes):
        directory = ".bmad/memory" if i < 3 else ".agents/memory"
        (project / directory / ["decisions.md", "lessons.md", "patterns.md"][i % 3]).write_text(text, encoding="utf-8")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    events,
    st.lists(st.tuples(sections, st.booleans()), max_size=6),
    queries,
    events,
)
def test_a_warm_kernel_answers_as_a_fresh_one(journal_specs, note_specs, asked, later_specs) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        _make(project, _journal(journal_specs), [recall_corpus.notes(s, crlf) for s, crlf in note_specs])
        warm = _kernel(project)
        for round_ in range(2):
            for query, limit, ranking in asked:
                options = {"limit": limit, "ranking": ranking}
                if ranking == "evidence":
                    options["context_scope"] = "src"
                for _ in range(2):  # the first use of a file is plain, later ones indexed
                    cold = Kernel(warm.pm, settings=warm.settings)  # a one-shot recall's: nothing cached
                    assert _json(project, query, warm, **options) == _json(project, query, cold, **options)
            if round_ == 0:  # the journal changes under the warm kernel
                (project / ".bmad" / "memory" / "journal.ndjson").write_text(
                    _journal(journal_specs + later_specs), encoding="utf-8"
                )


def test_the_index_is_used_from_the_second_recall_on(tmp_path: Path) -> None:
    _make(
        tmp_path, _journal([(["cache", "values"], 1, 8)] * 5), [recall_corpus.notes([(["Cache"], ["values"])], False)]
    )
    warm = _kernel(tmp_path)
    import mem_plugins.rankers.lexical as lexical

    blocks: list[int] = []
    real, real_best = lexical._block_buckets, lexical._best_of_block

    def spy(*args):  # type: ignore[no-untyped-def]
        blocks.append(1)
        return real(*args)

    def spy_best(*args):  # type: ignore[no-untyped-def]
        blocks.append(2)
        return real_best(*args)

    lexical._block_buckets = spy
    lexical._best_of_block = spy_best
    try:
        first = _json(tmp_path, "cache values", warm)
        assert blocks == []  # plain: read as a one-shot recall reads
        assert _json(tmp_path, "cache values", warm) == first
        assert sorted(blocks) == [1, 2]  # the journal and the notes file, from their index
    finally:
        lexical._block_buckets = real
        lexical._best_of_block = real_best


def _rewrite_same_size_and_mtime(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(old) == len(new) and old in text
    before = os.stat(path)
    time.sleep(0.03)  # past the file system's clock tick
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size


@pytest.mark.parametrize("file", [".bmad/memory/journal.ndjson", ".bmad/memory/lessons.md"])
def test_a_file_changed_between_two_recalls_is_seen(tmp_path: Path, file: str) -> None:
    _make(
        tmp_path,
        _journal([(["alpha", "cache"], 1, 8), (["other"], 2, 8)]),
        [recall_corpus.notes([], False), recall_corpus.notes([(["Cache"], ["alpha"])], False)],
    )
    warm = _kernel(tmp_path, FileCache(racy_seconds=0, fine_racy_seconds=0))  # identities trusted at once
    for _ in range(3):
        before = _json(tmp_path, "alpha omega", warm)
    _rewrite_same_size_and_mtime(tmp_path / file, "alpha", "omega")
    after = _json(tmp_path, "alpha omega", warm)
    assert after != before
    assert after == _json(tmp_path, "alpha omega")
    assert _json(tmp_path, "omega", warm) == _json(tmp_path, "omega")
    # replaced by a new file of the same size and mtime
    path = tmp_path / file
    before = os.stat(path)
    time.sleep(0.03)
    other = path.with_name("new")
    other.write_text(path.read_text(encoding="utf-8").replace("omega", "gamma"), encoding="utf-8")
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)
    assert _json(tmp_path, "gamma", warm) == _json(tmp_path, "gamma")
    assert '"gamma' in _json(tmp_path, "gamma", warm)


def test_a_file_made_unsafe_is_skipped_at_once(tmp_path: Path) -> None:
    _make(tmp_path, _journal([(["cache"], 1, 8)]), [recall_corpus.notes([(["Cache"], ["values"])], False)])
    warm = _kernel(tmp_path, FileCache(racy_seconds=0, fine_racy_seconds=0))
    for _ in range(3):
        assert '"skipped"' not in _json(tmp_path, "cache", warm)
    journal = tmp_path / ".bmad" / "memory" / "journal.ndjson"
    journal.write_bytes(journal.read_bytes() + b"\xff\n")
    assert _json(tmp_path, "cache", warm) == _json(tmp_path, "cache")
    assert '"reason": "Memory source must contain valid UTF-8."' in _json(tmp_path, "cache", warm)


def test_results_are_the_callers_own(tmp_path: Path) -> None:
    _make(tmp_path, _journal([(["cache"], 1, 8)]), [recall_corpus.notes([(["Cache"], ["values"])], False)])
    warm = _kernel(tmp_path)
    for _ in range(3):
        result = recall("cache", directory=str(tmp_path), now=NOW, kernel=warm)
        event = next(r for r in result.results if r.fields["kind"] == "event")
        assert event.fields["event"]["task"] == "cache"
        event.fields["event"]["task"] = "changed by the caller"  # type: ignore[index]
        event.fields["text"] = "changed"  # type: ignore[index]


def test_eight_threads_recall_while_one_writes(tmp_path: Path) -> None:
    """Every answer is a whole journal (the events of one version, in
    order), and once the writer stops, every thread sees all it wrote."""
    _make(tmp_path, _journal([(["cache"], 1, 8)] * 50), [recall_corpus.notes([(["Cache"], ["values"])], False)])
    warm = _kernel(tmp_path)
    errors: list[str] = []
    done = threading.Event()
    written = 20

    def writer() -> None:
        try:
            for i in range(written):
                write(agent="forge", directory=str(tmp_path), task=f"zzmark cache {i}", now=NOW, kernel=warm)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))
        finally:
            done.set()

    def reader() -> None:
        seen = -1
        while True:
            finished = done.is_set()
            try:
                result = recall("zzmark", directory=str(tmp_path), now=NOW, limit=100, kernel=warm)
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(repr(exc))
                return
            marks = sorted(int(r.fields["event"]["task"].split()[-1]) for r in result.results)
            if marks != list(range(len(marks))):
                errors.append(f"not a whole journal: {marks}")
                return
            if len(marks) < seen:
                errors.append(f"went back from {seen} to {len(marks)} events")
                return
            seen = len(marks)
            time.sleep(0.002)  # let the writer have the GIL now and then
            if finished:
                if seen != written:
                    errors.append(f"stale: {seen} of {written} events")
                return

    readers_beside_a_writer(reader, writer)
    assert errors == []
    assert _json(tmp_path, "zzmark cache", warm, limit=100) == _json(tmp_path, "zzmark cache", limit=100)


def test_memory_stays_bounded_over_many_projects(tmp_path: Path) -> None:
    cache = FileCache(max_bytes=64 * 1024)
    kernel = Kernel(settings=load_settings(str(tmp_path)), cache=cache)
    for i in range(30):
        project = tmp_path / f"p{i}"
        _make(
            project,
            _journal([(["cache", "x" * 20], 1, 8)] * 40),
            [recall_corpus.notes([(["Cache"], ["values"] * 50)], False)],
        )
        for _ in range(2):
            recall("cache", directory=str(project), now=NOW, kernel=kernel)
        assert cache.size <= 64 * 1024
    assert 0 < len(cache) < 30
