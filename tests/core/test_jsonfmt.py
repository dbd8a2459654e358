"""JSON and numbers exactly as JavaScript writes them (docs/contract.md §9).
Golden values were produced by node (tests/core/data/js_numbers.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.js.jsonfmt import JSONError, dumps, js_number, loads, to_fixed

GOLDEN = json.loads((Path(__file__).parent / "data" / "js_numbers.json").read_text("utf-8"))


@pytest.mark.parametrize(("value", "expected"), GOLDEN["numbers"])
def test_number_formats_as_javascript_string(value: float, expected: str) -> None:
    assert js_number(float(value)) == expected


@pytest.mark.parametrize(("value", "digits", "expected"), GOLDEN["fixed"])
def test_to_fixed_rounds_the_exact_binary_value_half_up(value: float, digits: int, expected: str) -> None:
    assert to_fixed(value, digits) == expected


def test_to_fixed_differs_from_python_format_where_javascript_does() -> None:
    assert format(0.0625, ".3f") == "0.062"
    assert to_fixed(0.0625, 3) == "0.063"


def test_non_finite_numbers_are_null_in_json() -> None:
    assert dumps([math.nan, math.inf, -math.inf]) == "[null,null,null]"


def test_indented_and_compact_output_match_json_stringify() -> None:
    value = {"a": [1.0, {}], "b": 'é\u2028\ud800\u0001"\\', "c": [], "d": {"x": None, "y": True}}
    assert dumps(value, 2) == GOLDEN["stringify"][0]
    value = {"a": [1.0, {}], "b": "é\u2028\ud800\u0001", "c": [], "d": {"x": None, "y": True}}
    assert dumps(value) == GOLDEN["stringify"][1]


def test_integral_floats_have_no_fraction() -> None:
    assert dumps({"elo": 1216.0, "beta": 1.0}) == '{"elo":1216,"beta":1}'


def test_loads_is_json_parse() -> None:
    assert loads(' {"x": 1, "y": [0.60, 1e2, -0]} \n') == {"x": 1.0, "y": [0.6, 100.0, -0.0]}
    assert dumps(loads('{"b":1,"a":2,"b":3}')) == '{"b":3,"a":2}'  # last value wins, first position kept
    assert dumps(loads("[12345678901234567890, 1.50, -0]")) == "[12345678901234567000,1.5,0]"  # doubles


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "-Infinity", "{'a':1}", "[1,]", "1 2", "", "tru"])
def test_loads_rejects_what_json_parse_rejects(text: str) -> None:
    with pytest.raises(JSONError):
        loads(text)


def test_array_index_keys_come_first_as_in_a_javascript_object() -> None:
    # node: JSON.stringify(JSON.parse(text))
    text = '{"b":1,"10":2,"2":3,"01":4,"-1":5,"4294967295":6,"4294967294":7}'
    assert dumps(loads(text)) == '{"2":3,"10":2,"4294967294":7,"b":1,"01":4,"-1":5,"4294967295":6}'
    assert dumps({"x": {"1": True, "a": None}}, 2) == '{\n  "x": {\n    "1": true,\n    "a": null\n  }\n}'


@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        st.floats(min_value=-1e17, max_value=1e17),
        st.floats(min_value=1e-7, max_value=1e-3),
        st.integers(min_value=-(10**17), max_value=10**17).map(float),
    ).filter(lambda x: x != 0)
)
@settings(max_examples=3000, deadline=None)
def test_the_positional_shortcut_writes_what_the_digits_do(x: float) -> None:
    from mem_core.js.numtext import _number_from_digits

    assert js_number(x) == _number_from_digits(repr(x))
