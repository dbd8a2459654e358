"""Fitting text into a budget (mem_core/brief/budget.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.brief.budget import Section, fit, more_line, parse_budget
from mem_core.brief.tokens import estimate_tokens
from mem_core.errors import MemError

WORDS = st.lists(st.sampled_from("cache auth token queue retry 42 ünïcode x=1; (a) getUserById".split()), max_size=30)
ITEM = WORDS.map(lambda words: "- " + " ".join(words))


@st.composite
def sections(draw: st.DrawFn) -> list[Section]:
    count = draw(st.integers(0, 5))
    return [
        Section(
            f"s{i}",
            draw(st.sampled_from(["", f"## Section {i}"])),
            draw(st.lists(ITEM, max_size=25)),
            hint=draw(st.sampled_from(["mem recall <topic>", "mem memories"])),
            rank=draw(st.integers(0, 2)),
        )
        for i in range(count)
    ]


@settings(max_examples=300, deadline=None)
@given(sections(), st.lists(ITEM, max_size=3), st.integers(0, 600))
def test_never_over_budget_and_every_cut_item_is_counted(parts: list[Section], head: list[str], budget: int) -> None:
    fitted = fit(head, parts, budget)
    assert estimate_tokens(fitted.text) == fitted.tokens <= budget
    for section in parts:
        assert fitted.kept[section.name] + fitted.omitted[section.name] == len(section.items)
        for item in section.items[: fitted.kept[section.name]]:
            assert item in fitted.text
    cut = fitted.omitted_total
    if fitted.text and cut:
        assert fitted.text.splitlines()[-1] == more_line(cut, fitted.hints)
    if not cut:
        assert "…" not in fitted.text


def test_everything_fits_without_a_last_line() -> None:
    fitted = fit(["# Head"], [Section("a", "## A", ["- one", "- two"], hint="mem recall <topic>")], 100)
    assert fitted.text == "# Head\n\n## A\n- one\n- two"
    assert fitted.omitted_total == 0


def test_one_long_section_does_not_crowd_out_the_others() -> None:
    long = Section("long", "## Decisions", [f"- decision number {i}" for i in range(200)], hint="mem recall <topic>")
    short = Section("short", "## Failures", ["- the deploy failed"], hint="mem recall <topic>")
    fitted = fit(["# Head"], [long, short], 80)
    assert "- the deploy failed" in fitted.text
    assert fitted.text.splitlines()[-1] == f"… {fitted.omitted['long']} more: mem recall <topic>"
    assert fitted.omitted["long"] > 150


def test_a_lower_rank_is_served_first() -> None:
    first = Section("first", "## Critical", [f"- critical fact {i}" for i in range(10)], hint="mem memories", rank=0)
    later = Section("later", "## Notes", [f"- note {i}" for i in range(10)], hint="mem recall <topic>", rank=1)
    fitted = fit([], [first, later], 60)
    assert fitted.kept["first"] > fitted.kept["later"]
    assert fitted.hints == ["mem memories", "mem recall <topic>"]


def test_a_budget_too_small_for_anything_is_empty() -> None:
    fitted = fit(["# A long head line that costs tokens"], [Section("a", "## A", ["- x"], hint="h")], 3)
    assert (fitted.text, fitted.tokens, fitted.omitted_total) == ("", 0, 1)


@pytest.mark.parametrize("value", ["-1", "1.5", "many", "", True, -3])
def test_a_bad_budget_is_one_line(value: object) -> None:
    with pytest.raises(MemError, match="^--budget must be a whole number of tokens >= 0$"):
        parse_budget(value)


def test_budgets_parse() -> None:
    assert (parse_budget("800"), parse_budget(" 12 "), parse_budget(0)) == (800, 12, 0)
