"""The on-disk recall index (mem_core/retrieval/diskindex.py): recall with
the index answers byte for byte what recall without it answers, for random
corpora and queries and across appends, edits, truncations and
replacements of the files between two recalls; a corrupt, truncated,
foreign or stale index is rebuilt, never trusted; deleting it loses
nothing; concurrent processes never corrupt it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_cli import render
from mem_core import recall, remember
from mem_core.errors import MemError
from mem_core.js.jsonfmt import dumps
from mem_core.retrieval import diskindex
from tests.plugins import recall_corpus

NOW = "2026-11-05T12:00:00.000Z"
WORDS = ["cache", "auth", "values", "queue", "retry", "token", "zéro", "ci", "pass", "x", "Cache-Values", "2026", "7",
         "caching", "how"]  # fmt: skip
JOURNAL = ".bmad/memory/journal.ndjson"
NOTE_PATHS = [
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".bmad/memory/patterns.md",
    ".agents/memory/decisions.md",
    ".agents/memory/lessons.md",
    ".agents/memory/patterns.md",
]
REPO = Path(__file__).resolve().parents[2]


def _answer(project: Path, query: str, *, index: bool, **options: object) -> tuple[str, str]:
    """``recall --json`` and the text output (or the error both print)."""
    try:
        result = recall(query, directory=str(project), now=NOW, index=index, **options)  # type: ignore[arg-type]
    except MemError as exc:
        return dumps({"error": exc.message}), exc.message
    text = "\n".join([*render.recall_skipped(result), render.recall(result)])
    return dumps(result.to_json(), 2), text


def _same(project: Path, query: str, **options: object) -> tuple[str, str]:
    off = _answer(project, query, index=False, **options)
    on = _answer(project, query, index=True, **options)
    assert on == off
    return on


def _index_files(cache: Path) -> list[Path]:
    return sorted((cache / diskindex.INDEX_DIR).rglob("*.idx"))


def _event(i: int, words: list[str], ts: object, odd: int) -> str:
    record: dict[str, object] = {
        "ts": ts,
        "agent": ["forge", "scout", ""][i % 3],
        "cli": "claude-code",
        "model": None,
        "task": " ".join(words),
        "outcome": ["success", "failure", None][i % 3],
        "signals": {"ci": "pass"} if i % 2 else {},
        "id": f"{i:012x}",
    }
    if odd == 1:
        record["task"] = [words[0]] if words else []
    elif odd == 2:
        del record["id"]
    elif odd == 3:
        record["model"] = 1e2
    elif odd == 4:
        del record["ts"]
    return json.dumps(record, separators=(",", ":"), ensure_ascii=odd != 4)


TIMES: list[object] = [
    "2026-11-01T10:00:00.000Z",
    "2026-06-01T10:00:00Z",
    "2026-01-01T00:00:00.000Z",
    "2026-10-01T10:00:00",  # local time: parsed when weighed
    "garbage",
    1_780_000_000_000,
    None,
    True,
    "2026-13-45T10:00:00.000Z",
]

lines = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), max_size=6),
        st.sampled_from(TIMES),
        # 0-4: a variant of event, 5: blank, 6: corrupt, 7: an array, 8: normal, 9: null
        st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 9]),
    ),
    max_size=25,
)
sections = recall_corpus.sections(WORDS)
queries = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
        st.sampled_from([0, 1, 3, 8, 50, None]),
        st.sampled_from(["lexical", "lexical", "lexical", "evidence", "bm25", "bm25"]),
        st.sampled_from(["project", "project", "portfolio"]),
    ),
    min_size=1,
    max_size=3,
)


def _journal(specs: list[tuple[list[str], object, int]], start: int = 0) -> str:
    out = []
    for i, (words, ts, kind) in enumerate(specs, start):
        if kind == 5:
            out.append("   ")
        elif kind == 6:
            out.append('{"agent": "broken')
        elif kind == 7:
            out.append('["cache", "values"]')
        elif kind == 9:
            out.append("null")
        else:
            out.append(_event(i, words, ts, kind if kind < 5 else 0))
    return "".join(line + "\n" for line in out)


# what happens to the files between two recalls
changes = st.lists(
    st.one_of(
        st.tuples(st.just("append"), lines, st.booleans()),  # bool: without the last newline
        st.tuples(st.just("truncate"), st.integers(0, 2000), st.just(False)),
        st.tuples(st.just("replace"), lines, st.booleans()),  # a new file renamed over
        st.tuples(st.just("note"), st.tuples(st.integers(0, 5), sections), st.booleans()),
        st.tuples(st.just("delete"), st.integers(0, 6), st.just(False)),
    ),
    max_size=4,
)


def _change(project: Path, change: tuple[str, object, bool], counter: list[int]) -> None:
    kind, value, flag = change
    journal = project / JOURNAL
    counter[0] += 100
    if kind == "append":
        text = _journal(value, counter[0])  # type: ignore[arg-type]
        if flag:
            text = text.rstrip("\n")
        with open(journal, "a", encoding="utf-8") as fh:
            fh.write(text)
    elif kind == "truncate":
        if journal.exists():
            with open(journal, "r+b") as fh:
                fh.truncate(min(int(value), os.path.getsize(journal)))  # type: ignore[call-overload]
    elif kind == "replace":
        text = _journal(value, counter[0])  # type: ignore[arg-type]
        tmp = journal.with_name("new.tmp")
        tmp.write_text(text.rstrip("\n") if flag else text, encoding="utf-8")
        os.replace(tmp, journal)
    elif kind == "note":
        number, specs = value  # type: ignore[misc]
        (project / NOTE_PATHS[number]).write_text(recall_corpus.notes(specs, flag), encoding="utf-8")
    else:
        target = project / (JOURNAL if value == 6 else NOTE_PATHS[value])  # type: ignore[index]
        if target.exists():
            target.unlink()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines,
    st.lists(st.tuples(sections, st.booleans()), max_size=6),
    queries,
    changes,
    st.lists(st.tuples(sections, st.booleans()), max_size=3),  # the portfolio brain's notes
    st.lists(st.tuples(st.sampled_from(WORDS), st.lists(st.sampled_from(WORDS), min_size=1, max_size=5)), max_size=3),
)
def test_recall_with_the_index_answers_as_without_it(
    journal_specs: list, note_specs: list, asked: list, later: list, brain_specs: list, memories: list
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".bmad" / "memory").mkdir(parents=True)
        (project / ".agents" / "memory").mkdir(parents=True)
        os.environ["MEM_CACHE_DIR"] = str(Path(tmp) / "cache")
        corrupt: list[str] = []
        real_init = diskindex.IndexCorrupt.__init__

        def found(self: diskindex.IndexCorrupt, path: str) -> None:
            corrupt.append(path)
            real_init(self, path)

        diskindex.IndexCorrupt.__init__ = found  # type: ignore[method-assign]
        try:
            (project / JOURNAL).write_text(_journal(journal_specs), encoding="utf-8")
            for path, (specs, crlf) in zip(NOTE_PATHS, note_specs, strict=False):
                (project / path).write_text(recall_corpus.notes(specs, crlf), encoding="utf-8")
            brain = Path(tmp) / "brain"
            (brain / "memory").mkdir(parents=True)
            for name, (specs, crlf) in zip(["decisions.md", "lessons.md", "patterns.md"], brain_specs, strict=False):
                (brain / "memory" / name).write_text(recall_corpus.notes(specs, crlf), encoding="utf-8")
            for number, (key, words) in enumerate(memories):  # structured memories: present or absent
                remember(
                    "fact",
                    f"k{number}_" + "".join(c for c in key.lower() if c.isascii() and c.isalnum()),
                    " ".join(words),
                    directory=str(project),
                    now=NOW,
                )
            counter = [0]
            for step in range(len(later) + 1):
                for query, limit, ranking, scope in asked:
                    options: dict[str, object] = {"limit": limit, "ranking": ranking, "scope": scope}
                    if scope == "portfolio":
                        options["portfolio"] = str(brain)
                    if ranking == "evidence":
                        options["context_scope"] = "src"
                    _same(project, query, **options)
                    _same(project, query, **options)  # from the index written by the first
                if step < len(later):
                    _change(project, later[step], counter)
            assert corrupt == []  # the index written was always read back whole
        finally:
            del os.environ["MEM_CACHE_DIR"]
            diskindex.IndexCorrupt.__init__ = real_init  # type: ignore[method-assign]


def _corpus(project: Path, events: int = 40) -> None:
    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / ".agents" / "memory").mkdir(parents=True)
    specs = [(WORDS[i % 7 : i % 7 + 3], TIMES[i % 3], 8) for i in range(events)]
    (project / JOURNAL).write_text(_journal(specs), encoding="utf-8")
    (project / NOTE_PATHS[1]).write_text(
        recall_corpus.notes(
            [(["Cache", "contract"], ["values", "zero"]), (["Retry"], ["queue", "backoff", "cache"])], False
        ),
        encoding="utf-8",
    )


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("MEM_CACHE_DIR", str(where))
    return where


def _settle() -> None:
    time.sleep(diskindex.FINE_RACY_SECONDS + 0.05)


@pytest.mark.parametrize("ranking", ["lexical", "bm25"])
def test_the_index_lives_in_the_cache_and_is_read_only_for_the_query(tmp_path: Path, cache: Path, ranking: str) -> None:
    project = tmp_path / "p"
    _corpus(project)
    listing = sorted(p.name for p in (project / ".bmad" / "memory").iterdir())
    first = _same(project, "cache values", ranking=ranking)
    files = _index_files(cache)
    assert len(files) == 2  # the journal and the one note file
    assert sorted(p.name for p in (project / ".bmad" / "memory").iterdir()) == listing  # nothing in the store
    _settle()
    _same(project, "cache values", ranking=ranking)  # the indexes are rewritten once settled
    _settle()
    stamps = [f.stat().st_mtime_ns for f in files]
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    from mem_core.files.cache import FileCache

    def unindexed(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("read without the index")

    real_load = FileCache.load
    os.open = spy  # type: ignore[assignment]
    FileCache.load = unindexed  # type: ignore[method-assign]
    try:
        assert _answer(project, "cache values", index=True, ranking=ranking) == first
    finally:
        os.open = real_open  # type: ignore[assignment]
        FileCache.load = real_load  # type: ignore[method-assign]
    assert [f.stat().st_mtime_ns for f in files] == stamps  # served, not rewritten
    assert sorted(p for p in opened if p.endswith(".idx")) == sorted(map(str, files))


def test_appended_events_are_indexed_from_the_last_offset(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    _corpus(project, events=30)
    _same(project, "cache")
    built: list[tuple[int, int]] = []
    real = diskindex.Indexer.build
    from mem_plugins.sources import journal as journal_source

    def spy(self, data, base):  # type: ignore[no-untyped-def]
        built.append((base, len(data)))
        return real_build(self, data, base)

    real_build = type(journal_source.JOURNAL_INDEXER).build
    monkeypatch.setattr(type(journal_source.JOURNAL_INDEXER), "build", spy)
    size = (project / JOURNAL).stat().st_size
    with open(project / JOURNAL, "a", encoding="utf-8") as fh:
        fh.write(_journal([(["cache", "appended"], TIMES[0], 8)], 500))
    _answer(project, "cache appended", index=True)
    assert built == [(size, (project / JOURNAL).stat().st_size - size)]
    assert real is not None
    _same(project, "cache appended")
    # an unterminated last line is indexed again once it is complete
    with open(project / JOURNAL, "a", encoding="utf-8") as fh:
        fh.write('{"agent":"half","task":"cache')
    _same(project, "cache half")
    with open(project / JOURNAL, "a", encoding="utf-8") as fh:
        fh.write(' done"}\n')
    _same(project, "cache half done")
    # a changed byte in the indexed prefix: rebuilt from the start
    text = (project / JOURNAL).read_text(encoding="utf-8")
    built.clear()
    (project / JOURNAL).write_text(text.replace("forge", "forgx", 1) + _journal([(["more"], None, 8)], 900))
    _same(project, "forgx more")
    assert built[0][0] == 0


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "version", "foreign", "garbage-header"])
def test_a_damaged_index_is_rebuilt_never_trusted(tmp_path: Path, cache: Path, damage: str) -> None:
    project = tmp_path / "p"
    _corpus(project)
    other = tmp_path / "other"
    _corpus(other, events=12)
    expected = _same(project, "cache values retry")
    _same(other, "cache")
    _settle()
    _same(project, "cache values retry")
    _same(other, "cache")
    _settle()
    files = [f for f in _index_files(cache)]
    mine = {
        f
        for f in files
        if f.parent.name == diskindex.index_path(str(cache), os.path.realpath(project), "x", "y").split(os.sep)[-2]
    }
    assert len(mine) == 2
    for path in sorted(mine):
        data = bytearray(path.read_bytes())
        if damage == "flip":
            for at in range(16, len(data), max(1, len(data) // 50)):  # everywhere, the header and every piece
                data[at] ^= 0x55
        elif damage == "truncate":
            data = data[: len(data) * 2 // 3]
        elif damage == "empty":
            data = bytearray()
        elif damage == "version":
            import marshal

            length = int.from_bytes(data[8:12], "little")
            header = marshal.loads(bytes(data[16 : 16 + length]))
            header["version"] = 999
            raw = marshal.dumps(header)
            import zlib

            data = bytearray(data[:8] + len(raw).to_bytes(4, "little") + zlib.crc32(raw).to_bytes(4, "little"))
            data += raw + bytes(path.read_bytes()[16 + length :])
        elif damage == "foreign":  # another project's index in its place
            data = bytearray(next(f for f in files if f not in mine).read_bytes())
        else:
            data[16:40] = b"\xff" * 24
        path.write_bytes(bytes(data))
    assert _answer(project, "cache values retry", index=True) == expected
    assert _answer(project, "cache values retry", index=True) == expected
    assert _answer(project, "zéro token", index=True) == _answer(project, "zéro token", index=False)


def test_a_piece_found_corrupt_during_the_recall_is_dropped(tmp_path: Path, cache: Path) -> None:
    project = tmp_path / "p"
    _corpus(project)
    expected = _same(project, "cache values")
    _settle()
    _same(project, "cache values")
    _settle()
    # corrupt the postings only (the end of the file is the directory; the middle, postings)
    for path in _index_files(cache):
        data = bytearray(path.read_bytes())
        for at in range(len(data) // 2, len(data) * 3 // 4):
            data[at] ^= 0xFF
        path.write_bytes(bytes(data))
    assert _answer(project, "cache values", index=True) == expected
    assert _answer(project, "cache values", index=True) == expected


def test_deleting_the_index_loses_nothing_and_it_can_be_turned_off(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    _corpus(project)
    expected = _same(project, "cache values")
    import shutil

    shutil.rmtree(cache)
    assert _answer(project, "cache values", index=True) == expected
    assert _index_files(cache)
    shutil.rmtree(cache)
    monkeypatch.setenv("MEM_RECALL_INDEX", "0")
    assert _answer(project, "cache values", index=True) == expected
    assert not cache.exists()
    monkeypatch.delenv("MEM_RECALL_INDEX")
    (project / ".bmad" / "memory" / "mem.toml").write_text("recall_index = false\n", encoding="utf-8")
    assert _answer(project, "cache values", index=True) == expected
    assert not cache.exists()


def test_an_unwritable_cache_still_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "p"
    _corpus(project)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a directory")
    monkeypatch.setenv("MEM_CACHE_DIR", str(blocked))
    _same(project, "cache values")


def test_unsafe_files_are_reported_as_without_the_index(tmp_path: Path, cache: Path) -> None:
    project = tmp_path / "p"
    _corpus(project)
    (project / NOTE_PATHS[0]).symlink_to(project / NOTE_PATHS[1])
    (project / NOTE_PATHS[2]).write_bytes(b"### bad \xff\n")
    json_out, text = _same(project, "cache")
    assert "skipped" in json_out and "skipped" in text


def test_the_cli_uses_the_index_in_a_process(tmp_path: Path, cache: Path) -> None:
    project = tmp_path / "p"
    _corpus(project)
    env = dict(os.environ, MEM_NOW=NOW, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "mem_cli", "recall", "cache", "values", "-d", str(project)]
    off = subprocess.run(cmd, env={**env, "MEM_RECALL_INDEX": "0"}, capture_output=True)
    assert not cache.exists()
    for _ in range(2):
        on = subprocess.run(cmd, env=env, capture_output=True)
        assert (on.returncode, on.stdout, on.stderr) == (off.returncode, off.stdout, off.stderr)
    assert _index_files(cache)


def test_concurrent_processes_never_corrupt_the_index(tmp_path: Path, cache: Path) -> None:
    project = tmp_path / "p"
    _corpus(project, events=200)
    env = dict(os.environ, MEM_NOW=NOW, PYTHONPATH=str(REPO))
    script = (
        "import sys\n"
        "from mem_core import recall\n"
        "for i in range(6):\n"
        "    recall('cache values', directory=sys.argv[1], index=True)\n"
    )
    writer = (
        "import sys, json\n"
        "for i in range(30):\n"
        "    with open(sys.argv[1], 'a') as fh:\n"
        "        fh.write(json.dumps({'agent': 'w', 'task': f'cache values {i}', 'ts': '2026-11-01T00:00:00Z'}) + '\\n')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(project)], env=env) for _ in range(4)]
    procs.append(subprocess.Popen([sys.executable, "-c", writer, str(project / JOURNAL)], env=env))
    assert [p.wait(timeout=120) for p in procs] == [0] * 5
    assert not [p for p in (cache / diskindex.INDEX_DIR).rglob("*.tmp")]
    _same(project, "cache values")
    _settle()
    _same(project, "cache values 29")


def test_the_best_of_a_large_note_file_are_found_without_scoring_all(tmp_path: Path, cache: Path) -> None:
    import random

    from mem_plugins.rankers import lexical

    rng = random.Random(5)
    project = tmp_path / "p"
    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / ".agents" / "memory").mkdir(parents=True)
    specs = [
        ([rng.choice(WORDS) for _ in range(3)], [rng.choice(WORDS) for _ in range(rng.randint(0, 40))])
        for _ in range(400)
    ]
    (project / NOTE_PATHS[1]).write_text(recall_corpus.notes(specs, False), encoding="utf-8")
    (project / NOTE_PATHS[5]).write_text(recall_corpus.notes(specs[:50], True), encoding="utf-8")
    scored: list[int] = []
    real = lexical._best_of_block

    def spy(tokens, block, number, buckets, limit):  # type: ignore[no-untyped-def]
        before = len(buckets)
        real(tokens, block, number, buckets, limit)
        scored.append(len(buckets) - before)

    lexical._best_of_block = spy
    try:
        for query in ("cache values", "auth token retry", "zéro x ci", "2026 7 pass queue", "cache auth"):
            for limit in (1, 2, 3, 8, 20, 500):
                _same(project, query, limit=limit)
    finally:
        lexical._best_of_block = real
    assert min(scored) < 100  # far fewer than the ~300 sections holding a query word


@pytest.mark.parametrize("limit", [0, 1, 3, 8, 100])
@pytest.mark.parametrize(
    "query", ["cache", "cache values zero", "cache auth values queue retry token zéro ci pass", "caching how nothing"]
)
def test_bm25_from_the_index_answers_as_without_it(tmp_path: Path, cache: Path, query: str, limit: int) -> None:
    # few and many query terms (the ranker finds who holds which terms two ways), every limit
    project = tmp_path / "p"
    _corpus(project, events=60)
    _same(project, query, ranking="bm25", limit=limit)
    _settle()
    _same(project, query, ranking="bm25", limit=limit)
