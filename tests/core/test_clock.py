"""The invocation clock and JavaScript date parsing."""

from __future__ import annotations

import re

import pytest

from mem_core.clock import format_ms, now_iso, parse_ms
from mem_core.errors import MemError


def test_mem_now_pins_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_NOW", "2026-10-18T09:30:00.000Z")
    assert now_iso() == "2026-10-18T09:30:00.000Z"


def test_clock_format_has_milliseconds_and_z() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", now_iso())


@pytest.mark.parametrize(
    "bad",
    [
        "yesterday",
        "2026-10-18",
        "2026-10-18T09:30:00Z",
        "2026-10-18T09:30:00.000Z\n",
        "\u0662\u0660\u0662\u0666-10-18T09:30:00.000Z",
        "2026-13-18T09:30:00.000Z",
    ],
)
def test_an_invalid_mem_now_is_refused(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("MEM_NOW", bad)
    with pytest.raises(MemError, match="MEM_NOW"):
        now_iso()


@pytest.mark.parametrize(
    ("text", "ms"),
    [  # values from node's Date.parse
        ("2026-10-18T09:30:00.000Z", 1792315800000),
        ("2026-02-30", 1772409600000),
        ("2026-10-18T24:00:00Z", 1792368000000),
        ("2026-10-18 09:30:00Z", 1792315800000),
        ("2026-10-18T09:30:00.1234Z", 1792315800123),
        ("+002026-10-18", 1792281600000),
        ("2026-10-18T11:30:00+02:00", 1792315800000),
    ],
)
def test_parse_ms_agrees_with_date_parse(text: str, ms: int) -> None:
    assert parse_ms(text) == ms


@pytest.mark.parametrize("text", ["20261018", "soon", "", "2026-13-01", None, True, [], {}])
def test_unparsable_times_are_none(text: object) -> None:
    assert parse_ms(text) is None


def test_numbers_are_milliseconds() -> None:
    assert parse_ms(1792315800000) == 1792315800000
    assert format_ms(1792315800000) == "2026-10-18T09:30:00.000Z"
