"""The lexical ranker: its top-k shortcut must give exactly what a full
stable sort gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.plugin import Candidate, Query, tokenize
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


# -- the indexed path: candidates kept between recalls, in blocks -----------------

TOKENS = ["cache", "auth", "values", "queue", "x", "zéro", "cache-values"]


def _blocks(specs, layout, tokens):
    """The candidates of ``specs`` as the kernel gives them to a ranker: cut
    into parts by ``layout`` (True: a block with an index, False: a list),
    each block holding only the candidates sharing a token with ``tokens``
    when the source honours match_tokens."""
    from mem_core.plugin import CandidateBlock, Candidates, TermIndex, Terms

    calls: list[int] = []
    parts = []
    start = 0
    for size, indexed in layout:
        chunk = list(enumerate(specs))[start : start + size]
        start += size
        if not chunk:
            continue
        made = []
        for i, (words, weight, lazy) in chunk:
            text = " ".join(words)

            def weigh(w=weight, i=i):
                calls.append(i)
                return w

            made.append(
                Candidate(
                    text, {"kind": "note", "i": i}, weigh if lazy else weight, Terms.of(text) if indexed else None
                )
            )
        if indexed:
            index = TermIndex(c.terms for c in made)
            # a block of candidates that all weigh 1 says so, as the note sources' do
            unit = all(weight == 1.0 and not lazy for _, (_words, weight, lazy) in chunk)
            parts.append(CandidateBlock(index, made.__getitem__, tokens=tokens, unit_weight=unit))
        else:
            parts.append(made)
    return Candidates(parts), calls


block_specs = st.one_of(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(TOKENS), min_size=0, max_size=8),
            st.one_of(st.sampled_from([1.0, 0.5, 0.25, 0.0]), st.floats(0, 1)),
            st.booleans(),
        ),
        max_size=60,
    ),
    # notes: every candidate weighs 1 (the blocks' unit-weight path, with ties)
    st.lists(
        st.tuples(st.lists(st.sampled_from(TOKENS[:4]), min_size=0, max_size=6), st.just(1.0), st.just(False)),
        max_size=80,
    ),
)
layouts = st.lists(st.tuples(st.integers(1, 20), st.booleans()), min_size=1, max_size=6)
query_words = st.lists(st.sampled_from(TOKENS), min_size=0, max_size=5, unique=True)


@settings(max_examples=400, deadline=None)
@given(block_specs, layouts, query_words, st.integers(0, 12), st.booleans())
def test_the_indexed_top_k_equals_a_full_stable_sort(specs, layout, words, limit, honour_match) -> None:
    layout = layout + [(len(specs), False)]  # whatever is left, as a list
    request = Query("/p", " ".join(words), words, limit=limit)
    plain, _ = _build(specs)
    expected = sorted(score_candidates(request, plain), key=lambda c: -c.score)[:limit]
    candidates, _calls = _blocks(specs, layout, words if honour_match else None)
    got = top_candidates(request, candidates, limit)
    assert [(c.fields["i"], c.score) for c in got] == [(c.fields["i"], c.score) for c in expected]

    # as a plain sequence, the same candidates in the same order
    def sharing(cs):
        return [c.fields["i"] for c in cs if set(tokenize(c.scored_text)) & set(words)]

    assert sharing(candidates) == sharing(plain)


def test_the_indexed_path_weighs_only_hopeful_candidates() -> None:
    specs = [(["cache", "auth"], 1.0, True)] * 3 + [(["cache", "x", "x", "x"], 0.5, True)] * 50
    candidates, calls = _blocks(specs, [(53, True)], ["cache", "auth"])
    got = top_candidates(_request(3), candidates, 3)
    assert [c.fields["i"] for c in got] == [0, 1, 2]
    assert calls == [0, 1, 2]


def test_terms_score_is_lexical_score_bit_for_bit() -> None:
    from mem_core.plugin import Terms
    from mem_plugins.rankers.lexical import lexical_score, terms_score

    texts = ["Cache cache CACHE values", "zéro-cache values x", "", "a b c", "cache-values cache values " * 7]
    for text in texts:
        for tokens in (["cache"], ["cache", "values"], ["values", "cache", "zéro-cache"], []):
            assert terms_score(tokens, Terms.of(text)).hex() == lexical_score(tokens, text).hex()
