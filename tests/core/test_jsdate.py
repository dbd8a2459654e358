"""``Date.parse`` as V8 implements it (ISO, then the legacy forms), checked
against node's answers for ~2,500 strings (tests/core/data/js_dates.json,
made with TZ=UTC: forms without a zone are local time)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mem_core.clock import parse_ms
from mem_core.js.isodate import canonical_ms
from mem_core.js.jsdate import date_parse, general_parse

CASES = json.loads((Path(__file__).parent / "data" / "js_dates.json").read_text("utf-8"))["cases"]


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_every_string_parses_as_node_parses_it() -> None:
    wrong = [(text, expected, date_parse(text)) for text, expected in CASES if date_parse(text) != expected]
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("Sun, 18 Oct 2026 09:30:00 GMT", 1792315800000),
        ("18 Oct 2026 09:30 UTC", 1792315800000),
        ("2026-10-18t09:30:00.000z", 1792315800000),
        ("Oct 18 2026 10:30:00 GMT+0100", 1792315800000),
    ],
)
def test_forms_other_tools_write(text: str, ms: int) -> None:
    assert parse_ms(text) == ms


def test_non_strings_are_converted_as_javascript_converts_them() -> None:
    assert parse_ms(["2026-10-18"]) == parse_ms("2026-10-18")
    assert parse_ms({"a": 1}) is None
    assert parse_ms(None) is None


@pytest.mark.parametrize(
    "text",
    [  # node 20: NaN for each (V8 reads ASCII digits only)
        "\u0662\u0660\u0662\u0666-01-01T00:00:00.000Z",  # Arabic-Indic
        "2026-1\u0661-01T00:00:00.000Z",
        "\uff12\uff10\uff12\uff16-01-01T00:00:00.000Z",  # fullwidth
        "2026-01-01T00:00:00.\u0966\u0966\u0966Z",  # Devanagari
    ],
)
def test_only_ascii_digits_are_digits(text: str) -> None:
    assert date_parse(text) is None and parse_ms(text) is None and canonical_ms(text) is None


_DIGIT = st.sampled_from("0123456789\u0661\uff11")


@given(st.lists(_DIGIT, min_size=17, max_size=17), st.sampled_from("-T:.Zx"))
def test_the_fast_path_agrees_with_the_parser(digits: list[str], odd: str) -> None:
    """mem's own format read without the general parser: the same answer
    wherever the fast path answers, and no answer the parser would give
    left out (so ``MEM_NOW``, checked by the fast path alone, refuses only
    what ``Date.parse`` refuses)."""
    d = "".join(digits)
    for text in (
        f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}.{d[14:17]}Z",
        f"2026-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}.000Z",
        f"2026-0{d[5]}-1{d[7]}T2{d[9]}:0{d[11]}:5{d[13]}.{d[14:17]}{odd}",
    ):
        fast = canonical_ms(text)
        if fast is not None:
            assert fast == general_parse(text), text
        elif text.isascii() and len(text) == 24 and text[23] == "Z" and text[10] == "T":
            assert general_parse(text) is None, text
