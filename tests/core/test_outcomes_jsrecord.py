"""JavaScript semantics used to read receipts, runs and observe inputs
(:mod:`mem_core.js.record`). Expected messages are what node v20 prints."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from mem_core.errors import MemError
from mem_core.js.record import (
    UNDEFINED,
    JSTypeError,
    js_sorted,
    json_error_message,
    parse,
    prop,
    reorder,
    same,
    strict_equal,
    stringify,
)

V8_MESSAGES = [
    ("", "Unexpected end of JSON input"),
    (" ", "Unexpected end of JSON input"),
    ("x", "Unexpected token 'x', \"x\" is not valid JSON"),
    ("{", "Expected property name or '}' in JSON at position 1"),
    ('{"a"', "Expected ':' after property name in JSON at position 4"),
    ('{"a":1', "Expected ',' or '}' after property value in JSON at position 6"),
    ('{"a":1,}', "Expected double-quoted property name in JSON at position 7"),
    ('{"a":1,"b" 2}', "Unexpected number in JSON at position 11"),
    ("[1,", "Unexpected end of JSON input"),
    ("[1 2]", "Expected ',' or ']' after array element in JSON at position 3"),
    ('"abc', "Unterminated string in JSON at position 4"),
    ("-", "No number after minus sign in JSON at position 1"),
    ("1e", "Exponent part is missing a number in JSON at position 2"),
    ("1.", "Unterminated fractional number in JSON at position 2"),
    ("01", "Unexpected number in JSON at position 1"),
    ('{"a":1}x', "Unexpected non-whitespace character after JSON at position 7"),
    ("NaN", '"NaN" is not valid JSON'),
    ("undefined", '"undefined" is not valid JSON'),
    ('"\\q"', "Bad escaped character in JSON at position 2"),
    ('"\\u12"', "Bad Unicode escape in JSON at position 5"),
    ('"\x01"', "Bad control character in string literal in JSON at position 1"),
    ("tru", "Unexpected end of JSON input"),
    ("trux", "Unexpected token 'x', \"trux\" is not valid JSON"),
    ("x" * 40, "Unexpected token 'x', \"xxxxxxxxxx\"... is not valid JSON"),
    (
        '{"key": "value", "other": x, "more": 1}',
        'Unexpected token \'x\', ..." "other": x, "more":"... is not valid JSON',
    ),
    ('{"key": "value", "other": 1, "z": x}', 'Unexpected token \'x\', ...": 1, "z": x}" is not valid JSON'),
    ("\ufeff{}", "Unexpected token '\ufeff', \"\ufeff{}\" is not valid JSON"),
    ('["😀", x]', 'Unexpected token \'x\', "["😀", x]" is not valid JSON'),
    ('{"a":1}\n{"b":2}', "Unexpected non-whitespace character after JSON at position 8"),
]


@pytest.mark.parametrize(("text", "message"), V8_MESSAGES)
def test_json_parse_errors_are_v8s(text: str, message: str) -> None:
    assert json_error_message(text) == message
    with pytest.raises(MemError) as info:
        parse(text)
    assert info.value.message == message


def test_valid_json_has_no_error_and_v8_key_order() -> None:
    text = '{"b":1,"10":2,"a":{"2":0,"z":1,"1":2},"01":3,"4294967295":4,"4294967294":5}'
    assert json_error_message(text) is None
    value = parse(text)
    assert list(value) == ["10", "4294967294", "b", "a", "01", "4294967295"]
    assert list(value["a"]) == ["1", "2", "z"]
    assert reorder([{"1": 0, "0": 1}]) == [{"0": 1, "1": 0}]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_json_parse_errors_match_node_on_random_texts() -> None:
    rng = random.Random(4)
    atoms = ['{', '}', '[', ']', ',', ':', '"a"', '"', '\\', '\\u12', '\\q', '1', '-', '0', '01', '1.', '1e+',
             'true', 'tru', 'nul', 'x', ' ', '\n', '\x01', 'é', '😀', 'NaN', '"ab\\n"', '{"k":', '[1,']  # fmt: skip
    texts = []
    for _ in range(1500):
        texts.append("".join(rng.choice(atoms) for _ in range(rng.randint(1, 25))))
    script = (
        "const t=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(t.map(s=>{try{JSON.parse(s);return null}catch(e){return e.message}})))"
    )
    node = subprocess.run(["node", "-e", script], input=json.dumps(texts).encode(), capture_output=True, check=True)
    expected = json.loads(node.stdout)
    assert [json_error_message(t) for t in texts] == expected


def test_property_reads_and_v8_type_errors() -> None:
    assert prop({"a": 1}, "b") is UNDEFINED
    assert prop([1, 2], "length") == 2 and prop("😀", "length") == 2 and prop(5, "x") is UNDEFINED
    with pytest.raises(JSTypeError, match=r"^Cannot read properties of null \(reading 'status'\)$"):
        prop(None, "status")
    with pytest.raises(JSTypeError, match=r"^Cannot read properties of undefined \(reading 'kind'\)$"):
        prop(UNDEFINED, "kind")


def test_strict_equality_and_stringify_equality() -> None:
    assert strict_equal(1.0, 1) and not strict_equal(True, 1) and not strict_equal("1", 1)
    assert not strict_equal({}, {}) and strict_equal(None, None) and not strict_equal(None, UNDEFINED)
    assert same({"a": 1}, {"a": 1.0}) and not same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert same(UNDEFINED, UNDEFINED) and stringify({"a": UNDEFINED, "b": [UNDEFINED]}) == '{"b":[null]}'


def test_sort_is_by_utf16_code_units() -> None:
    assert js_sorted(["ｚ", "😀", "Z", "a"]) == ["Z", "a", "😀", "ｚ"]


def _json_values():
    from hypothesis import strategies as st

    from mem_core.js.record import UNDEFINED

    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(), st.text(max_size=3),
        st.just(UNDEFINED), st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, "0", "1"]),
    )  # fmt: skip
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "1", "0"]), inner, max_size=3)
        ),
        max_leaves=8,
    )


def test_same_is_stringify_equality() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mem_core.js.record import same, stringify

    @settings(max_examples=3000, deadline=None)
    @given(_json_values(), _json_values(), st.booleans())
    def check(a, b, copy) -> None:
        import copy as copying

        if copy:
            b = copying.deepcopy(a)
        assert same(a, b) == (stringify(a) == stringify(b))

    check()
