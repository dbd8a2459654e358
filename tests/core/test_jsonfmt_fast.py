"""The fast JSON writer (issue 12): :func:`jsonfmt.dumps` writes through
Python's C encoder, and must give byte for byte what the pure-Python writer
(:func:`jsonfmt.pure_dumps`, the oracle) gives, for every value."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.js import jsonfmt
from mem_core.js.jsonfmt import dumps, pure_dumps
from mem_core.js.record import stringify
from mem_core.js.values import UNDEFINED

SPECIAL_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 5.0, 1216.0, 0.5, 0.1, 1e-4, -1e-4, 9.999999999999999e-05, 1e-5, 5e-5, 1e-6, 1e-7,
    1.5e-7, 123e-20, 2.0**52, 2.0**52 + 0.5, 2.0**53, -(2.0**53), 2.0**53 + 2, 2.0**60, 1e16, 1e20, 1e21 - 65536,
    1e21, 1.5e21, -1.5e21, 1e300, 5e-324, math.nan, math.inf, -math.inf, 0.30000000000000004, 1188.1735294747245,
]  # fmt: skip
SPECIAL_INTS = [0, 1, -1, 2**53 - 1, -(2**53) + 1, 2**53, -(2**53), 2**53 + 1, 2**60, 10**21, 10**22, -(10**30)]
KEYS = ["0", "1", "10", "2", "4294967294", "4294967295", "07", "-1", "", "a", "__proto__", "\ud800", "é"]


class _JSONable:
    def __init__(self, value: Any) -> None:
        self.value = value

    def to_json(self) -> Any:
        return self.value


texts = st.text(alphabet=st.characters(blacklist_categories=()), max_size=12)
numbers = st.one_of(
    st.floats(),
    st.sampled_from(SPECIAL_FLOATS),
    st.integers(),
    st.sampled_from(SPECIAL_INTS),
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.floats(min_value=1e15, max_value=1e22),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
keys = st.one_of(st.sampled_from(KEYS), texts)


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(keys, children, max_size=6),
        st.lists(children, max_size=4).map(tuple),
        children.map(_JSONable),
    )


values = st.recursive(scalars, containers, max_leaves=40)
safe_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        texts,
        st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
        st.floats().filter(lambda x: not math.isfinite(x) or (abs(x) < 1e21 if x.is_integer() else abs(x) >= 1e-4)),
    ),
    lambda children: st.one_of(st.lists(children, max_size=6), st.dictionaries(keys, children, max_size=6)),
    max_leaves=40,
)


@settings(max_examples=1500, deadline=None)
@given(values, st.sampled_from([0, 2, 4]))
def test_fast_writer_writes_what_the_pure_writer_writes(value: Any, indent: int) -> None:
    assert dumps(value, indent) == pure_dumps(value, indent)


@settings(max_examples=300, deadline=None)
@given(value=safe_values, indent=st.sampled_from([0, 2]))
def test_safe_values_never_reach_the_pure_writer(value: Any, indent: int) -> None:
    expected = pure_dumps(value, indent)

    def refuse(*args: Any) -> str:
        raise AssertionError("the pure writer was used")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonfmt, "pure_dumps", refuse)
        assert dumps(value, indent) == expected


def _with_undefined(value: Any, draw: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _with_undefined(v, draw) for k, v in value.items()}
        if draw(st.booleans()):
            out[draw(keys)] = UNDEFINED
        return out
    if isinstance(value, list):
        return [UNDEFINED if draw(st.booleans()) else _with_undefined(v, draw) for v in value]
    return value


def _drop_undefined(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_undefined(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [None if v is UNDEFINED else _drop_undefined(v) for v in value]
    return value


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_stringify_leaves_undefined_out_as_json_stringify(data: st.DataObject) -> None:
    value = _with_undefined(data.draw(values), data.draw)
    assert stringify(value) == pure_dumps(_drop_undefined(value))


@settings(max_examples=500, deadline=None)
@given(st.data(), st.sampled_from([2, 4]))
def test_indented_with_undefined_left_out_is_the_pure_writers(data: st.DataObject, indent: int) -> None:
    value = _with_undefined(data.draw(values), data.draw)
    assert dumps(value, indent, omit=UNDEFINED) == pure_dumps(_drop_undefined(value), indent)


@pytest.mark.parametrize("indent", [0, 2])
def test_a_pattern_score_store_is_written_exactly(indent: int) -> None:
    scores = {
        f"Pattern {i}": {"elo": 1200.0 + i / 3, "alpha": 1.98, "beta": 1.0, "mean": 2 / 3, "updates": i, "lastTs": "x"}
        for i in range(50)
    }
    scores["10"] = {"elo": 1216.0, "alpha": 1e-5}
    scores["2"] = {}
    assert dumps(scores, indent) == pure_dumps(scores, indent)
    assert list(jsonfmt.loads(dumps(scores)))[:2] == ["2", "10"]


def test_unserializable_values_are_refused_alike() -> None:
    for value in ({"a": object()}, [1, {2, 3}], {1: "int key"}):
        with pytest.raises((TypeError, AttributeError)) as fast:
            dumps(value)
        with pytest.raises((TypeError, AttributeError)) as pure:
            pure_dumps(value)
        assert type(fast.value) is type(pure.value)


def _escaped_json(value: Any, draw: Any) -> str:
    """JSON text of ``value`` with some key characters written as ``\\uXXXX``."""
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            chars = "".join(f"\\u{ord(c):04x}" if draw(st.booleans()) else json.dumps(c)[1:-1] for c in key)
            space = draw(st.sampled_from(["", " ", "\n "]))
            items.append(f'"{chars}"{space}:{_escaped_json(item, draw)}')
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_escaped_json(v, draw) for v in value) + "]"
    return json.dumps(value)


json_values = st.recursive(
    st.one_of(st.none(), st.integers(), texts.filter(lambda t: t.isprintable())),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=800, deadline=None)
@given(st.data())
def test_parsed_order_is_reorder(data: st.DataObject) -> None:
    text = _escaped_json(data.draw(json_values), data.draw)
    value = jsonfmt.loads(text)
    expected = jsonfmt.reorder(jsonfmt.loads(text))
    assert json.dumps(jsonfmt.parsed_order(value, text)) == json.dumps(expected)  # the same keys in the same order


score_stores = st.dictionaries(keys, st.dictionaries(keys, scalars, min_size=1, max_size=7), min_size=1, max_size=8)


@settings(max_examples=1000, deadline=None)
@given(score_stores, st.sampled_from([2, 4]))
def test_objects_of_flat_objects_are_written_exactly(value: Any, indent: int) -> None:
    # the shape of pattern-scores.json, written by one call of the C encoder
    assert dumps(value, indent) == pure_dumps(value, indent)


def test_the_score_store_shape_takes_the_one_call_path() -> None:
    scores = {f"p{i}": {"elo": 1216.0, "mean": 2 / 3, "updates": i, "lastTs": None, "ok": True} for i in range(3)}
    assert jsonfmt._nested_flat_text(scores, 2) is not None
    assert dumps(scores, 2) == pure_dumps(scores, 2)
    for odd in ({"p": {}}, {"p": {"x": [1]}}, {"7": {"x": 1}}, {"p": {"x": 2**60}}):
        assert dumps(odd, 2) == pure_dumps(odd, 2)
