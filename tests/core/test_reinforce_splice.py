"""``reinforce`` changing one entry of a certified ``pattern-scores.json`` in
place (mem_core.reinforcement.scorefile) writes the very bytes the
whole-file path writes: a differential test over random stores and pattern
sequences, the certificate's checks, and the cases that must take the
whole-file path."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_core.api import reinforce as reinforcement_api
from mem_core.api.reinforce import reinforce
from mem_core.errors import MemError
from mem_core.js import jsonfmt
from mem_core.reinforcement.scorefile import Certificate, find_entry

NOW = "2026-11-30T12:00:00.000Z"
SCORES = Path(".bmad/memory/pattern-scores.json")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

#: pattern ids: plain words, ones JavaScript treats apart, and odd text
patterns = st.one_of(
    st.sampled_from(["Cache", "cache", "Retry", "0", "7", "12", "4294967295", "01", "-1", "1.5"]),
    st.sampled_from(["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8),
    st.sampled_from(['we"ird', "a\nb", "tab\there", "\u2028", "é", "😀", "  spaced  "]),
)
#: what a store may hold besides scores: reinforce keeps other values as they are
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
)
signal = st.sampled_from(
    [{"eval": "0.9"}, {"eval": "0.1"}, {"accept": "yes"}, {"ci": "fail"}, {"eval": "1", "ci": "pass"}]
)


def _project(base: str, name: str, initial: str | None) -> str:
    root = os.path.join(base, name)
    os.makedirs(os.path.join(root, ".bmad", "memory"))
    if initial is not None:
        Path(root, SCORES).write_text(initial, encoding="utf-8")
    return root


def _run(root: str, pattern: str, signals: dict[str, str], cache: str | None) -> str:
    previous = os.environ.get("MEM_CACHE_DIR")
    os.environ["MEM_CACHE_DIR"] = cache or tempfile.mkdtemp()  # a fresh cache: never certified
    try:
        result = reinforce(pattern, directory=root, signals=signals, now=NOW)
        return jsonfmt.dumps(result.to_json())
    except MemError as exc:
        return f"error: {exc}"
    finally:
        if previous is None:
            os.environ.pop("MEM_CACHE_DIR", None)
        else:
            os.environ["MEM_CACHE_DIR"] = previous


@SETTINGS
@given(
    store=st.dictionaries(patterns, st.one_of(values, st.just("score")), max_size=8),
    steps=st.lists(st.tuples(patterns, signal), min_size=1, max_size=8),
)
def test_in_place_updates_write_the_whole_file_paths_bytes(store: dict[str, object], steps: list) -> None:
    scores = {}
    for key, value in store.items():
        scores[key] = (
            {"elo": 1200, "alpha": 2, "beta": 1.5, "mean": 0.5, "updates": 3, "lastTs": NOW}
            if value == "score"
            else value
        )
    initial = jsonfmt.dumps(jsonfmt.reorder(scores), 2) + "\n"
    with tempfile.TemporaryDirectory() as base:
        cache = os.path.join(base, "cache")
        certified = _project(base, "certified", initial)
        plain = _project(base, "plain", initial)
        for pattern, signals in steps:
            assert _run(certified, pattern, signals, cache) == _run(plain, pattern, signals, None)
            assert Path(certified, SCORES).read_bytes() == Path(plain, SCORES).read_bytes()
            promotions = [Path(root, ".bmad/memory/promotions.ndjson") for root in (certified, plain)]
            assert [p.read_bytes() if p.exists() else None for p in promotions][0] == (
                promotions[1].read_bytes() if promotions[1].exists() else None
            )


def _whole_file_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = reinforcement_api._parsed_scores

    def counting(text: str | None) -> dict[str, object]:
        calls.append(text or "")
        return real(text)

    monkeypatch.setattr(reinforcement_api, "_parsed_scores", counting)
    return calls


def _store(root: Path, patterns: int) -> None:
    scores = {
        f"Pattern {i}": {"elo": 1200, "alpha": 1, "beta": 1, "mean": 0.5, "updates": 0, "lastTs": NOW}
        for i in range(patterns)
    }
    (root / ".bmad" / "memory").mkdir(parents=True)
    (root / SCORES).write_text(jsonfmt.dumps(scores, 2) + "\n", encoding="utf-8")


def test_the_second_run_decodes_one_entry_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    _store(tmp_path / "p", 50)
    reads = _whole_file_reads(monkeypatch)
    reinforce("Pattern 3", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    assert len(reads) == 1  # no certificate yet: the whole file, then certified
    reinforce("Pattern 3", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    reinforce("Brand new", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    assert len(reads) == 1
    assert list(jsonfmt.loads((tmp_path / "p" / SCORES).read_text()))[-1] == "Brand new"


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text.replace('"elo": 1200', '"elo":  1200', 1),  # same meaning, other bytes
        lambda text: text.replace("1200", "1201", 1),  # same size, other bytes
        lambda text: text[:-1],  # the final newline gone
        lambda text: text.replace('\n  "Pattern 2": ', '\n  "Pattern 1": 5,\n  "Pattern 2": ', 1),  # a duplicate key
    ],
)
def test_bytes_another_writer_changed_take_the_whole_file_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change
) -> None:
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "cache"))
    _store(tmp_path / "p", 5)
    _store(tmp_path / "q", 5)
    reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    reinforce("Pattern 1", directory=str(tmp_path / "q"), signals={"eval": "1"}, now=NOW)
    for root in ("p", "q"):
        path = tmp_path / root / SCORES
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    reads = _whole_file_reads(monkeypatch)
    reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    assert len(reads) == 1
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "other-cache"))
    reinforce("Pattern 1", directory=str(tmp_path / "q"), signals={"eval": "1"}, now=NOW)
    assert (tmp_path / "p" / SCORES).read_bytes() == (tmp_path / "q" / SCORES).read_bytes()


def test_a_corrupt_or_missing_certificate_costs_only_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MEM_CACHE_DIR", str(cache))
    _store(tmp_path / "p", 5)
    reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    (certificate,) = (cache / "scores").iterdir()
    certificate.write_bytes(b"\x00garbage")
    reads = _whole_file_reads(monkeypatch)
    reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    assert len(reads) == 1
    certificate.unlink()
    reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    assert len(reads) == 2
    (cache / "scores").chmod(0o500)  # unwritable: the whole-file path every time, nothing fails
    try:
        certificate_path = Certificate.for_project(str(tmp_path / "p"), str(cache)).path
        assert certificate_path is not None and os.path.exists(certificate_path)
        reinforce("Pattern 1", directory=str(tmp_path / "p"), signals={"eval": "1"}, now=NOW)
    finally:
        (cache / "scores").chmod(0o700)
    assert jsonfmt.loads((tmp_path / "p" / SCORES).read_text())["Pattern 1"]["updates"] == 4


def test_find_entry_leaves_what_javascript_treats_apart_to_the_whole_file_path() -> None:
    data = (jsonfmt.dumps({"3": 1, "a": {"b": [1, 2]}, "toString": 2, "é": 0}, 2) + "\n").encode()
    apart = frozenset({"toString", "__proto__"})
    assert find_entry(data, "toString", apart) is None  # even when present
    assert find_entry(data, "__proto__", apart) is None
    assert find_entry(data, "9", apart) is None  # an absent index: V8 puts it first
    assert find_entry(data, "3", apart) is not None  # a present one keeps its place
    assert find_entry(b"{}\n", "a", apart) is None  # an empty store: the whole-file path
    entry = find_entry(data, "a", apart)
    assert entry is not None and entry.stored == {"a": {"b": [1, 2]}}
    expected = jsonfmt.dumps({"3": 1, "a": {"c": None}, "toString": 2, "é": 0}, 2) + "\n"
    assert entry.replaced({"c": None}) == expected.encode()
    entry = find_entry(data, "é", apart)
    assert (
        entry is not None
        and entry.replaced(1.5)
        == expected.replace('"c": null', '"b": [\n      1,\n      2\n    ]').replace('"é": 0', '"é": 1.5').encode()
    )
    new = find_entry(data, "ü ✓", apart)
    assert new is not None and new.stored == {}
    assert (
        new.replaced([])
        == expected.replace('"c": null', '"b": [\n      1,\n      2\n    ]')
        .replace('"é": 0', '"é": 0,\n  "ü ✓": []')
        .encode()
    )
