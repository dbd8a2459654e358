"""The lexical ranker: its top-k shortcut must give exactly what a full
stable sort gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.plugin import Candidate, Query
from mem_plugins.rankers.lexical import score_candidates, top_candidates

WORDS = ["cache", "auth", "values", "queue", "x"]


def _request(limit: int) -> Query:
    return Query("/p", "cache auth", ["cache", "auth"], limit=limit)


candidate_specs = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=0, max_size=6),
        st.one_of(st.sampled_from([1.0, 0.5, 0.25, 0.0]), st.floats(0, 1)),
        st.booleans(),  # lazy weight?
    ),
    max_size=40,
)


def _build(specs):
    calls: list[int] = []
    out = []
    for i, (words, weight, lazy) in enumerate(specs):
        if lazy:

            def weigh(w=weight, i=i):
                calls.append(i)
                return w

            out.append(Candidate(" ".join(words), {"kind": "note", "i": i}, weigh))
        else:
            out.append(Candidate(" ".join(words), {"kind": "note", "i": i}, weight))
    return out, calls


@settings(max_examples=300, deadline=None)
@given(candidate_specs, st.integers(0, 10))
def test_top_k_equals_a_full_stable_sort(specs, limit: int) -> None:
    full, _ = _build(specs)
    expected = sorted(score_candidates(_request(limit), full), key=lambda c: -c.score)[:limit]
    fast, _ = _build(specs)
    got = top_candidates(_request(limit), fast, limit)
    assert [(c.fields["i"], c.score) for c in got] == [(c.fields["i"], c.score) for c in expected]


def test_lazy_weights_of_hopeless_candidates_are_never_computed() -> None:
    specs = [(["cache", "auth"], 1.0, True)] * 3 + [(["cache", "x", "x", "x"], 0.5, True)] * 50
    candidates, calls = _build(specs)
    got = top_candidates(_request(3), candidates, 3)
    assert [c.fields["i"] for c in got] == [0, 1, 2]
    assert calls == [0, 1, 2]
