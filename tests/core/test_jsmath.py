"""mem_core.js.jsmath must reproduce node's Math.log / Math.pow bit for bit.

The golden vectors were produced by node v20 with
tests/core/data/make_jsmath_vectors.js; node is not needed to run these tests.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest

from mem_core.js.jsmath import js_log, js_pow

_VECTORS = json.loads((Path(__file__).parent / "data" / "jsmath_vectors.json").read_text(encoding="utf-8"))


def _d(h: str) -> float:
    return struct.unpack(">d", bytes.fromhex(h))[0]


def _h(d: float) -> str:
    return struct.pack(">d", d).hex()


def _same(got: float, want_hex: str) -> bool:
    want = _d(want_hex)
    if math.isnan(want):
        return math.isnan(got)  # JS has a single observable NaN
    return _h(got) == want_hex  # bitwise: distinguishes -0.0 from 0.0


def _mismatches(rows, fn):
    bad = []
    for row in rows:
        args = [_d(h) for h in row[:-1]]
        got = fn(*args)
        if not _same(got, row[-1]):
            bad.append((args, _d(row[-1]), got))
    return bad


def test_vectors_are_complete():
    assert len(_VECTORS["log"]) >= 7000
    assert len(_VECTORS["pow"]) >= 6000


def test_log_matches_node():
    bad = _mismatches(_VECTORS["log"], js_log)
    assert not bad, f"{len(bad)} mismatches, first: {bad[:5]}"


def test_pow_matches_node():
    bad = _mismatches(_VECTORS["pow"], js_pow)
    assert not bad, f"{len(bad)} mismatches, first: {bad[:5]}"


@pytest.mark.parametrize(
    "x, want",
    [
        (3.0, 1.0986122886681096),  # glibc says ...098
        (1.0, 0.0),
        (0.0, -math.inf),
        (-0.0, -math.inf),
        (math.inf, math.inf),
    ],
)
def test_log_known_values(x, want):
    assert _h(js_log(x)) == _h(want)


def test_log_nan_cases():
    assert math.isnan(js_log(-1.0))
    assert math.isnan(js_log(-math.inf))
    assert math.isnan(js_log(math.nan))


def test_pow_signs_and_specials():
    assert _h(js_pow(-0.0, 3.0)) == _h(-0.0)
    assert _h(js_pow(-0.0, -3.0)) == _h(-math.inf)
    assert _h(js_pow(-2.0, 3.0)) == _h(-8.0)
    assert js_pow(math.nan, 0.0) == 1.0
    assert math.isnan(js_pow(1.0, math.inf))
    assert math.isnan(js_pow(1.0, math.nan))
    assert math.isnan(js_pow(-8.0, 1 / 3))


def test_accepts_ints():
    assert js_log(3) == js_log(3.0)
    assert js_pow(10, 2) == 100.0


def test_pow_matches_node_with_changing_base():
    # js_pow remembers log2 of the last base; interleave another base so that
    # every vector is also computed from scratch.
    def fresh(x, y):
        js_pow(7.0, 0.3)
        return js_pow(x, y)

    bad = _mismatches(_VECTORS["pow"], fresh)
    assert not bad, f"{len(bad)} mismatches, first: {bad[:5]}"
