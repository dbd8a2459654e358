"""``Date.parse`` as V8 implements it (ISO, then the legacy forms), checked
against node's answers for ~2,500 strings (tests/core/data/js_dates.json,
made with TZ=UTC: forms without a zone are local time)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from mem_core.clock import parse_ms
from mem_core.js.jsdate import date_parse

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
