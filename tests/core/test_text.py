"""Text analysis of docs/contract.md §1."""

from __future__ import annotations

import math
import re

from hypothesis import given
from hypothesis import strategies as st

from mem_core.files.markdown import split_sections
from mem_core.js.strings import js_trim
from mem_core.text import one_line, query_tokens, tokenize
from mem_plugins.rankers.lexical import lexical_score


def test_tokenizer_keeps_hyphen_underscore_and_french_letters() -> None:
    assert tokenize("CACHE-values, a b_c Préférence; x") == ["cache-values", "b_c", "préférence"]


def test_tokenizer_does_not_fold_dotless_i_or_long_s_like_python_ignorecase() -> None:
    # JavaScript's /i does not map ı or ſ onto ASCII; they split words
    assert tokenize("aıb aſb") == []


def test_query_tokens_are_unique_in_first_seen_order() -> None:
    assert query_tokens("Cache values cache VALUES auth") == ["cache", "values", "auth"]


def test_lexical_score_formula() -> None:
    tokens = ["cache", "values", "missing"]
    text = "cache cache values other words here"
    hits = (1 + math.log(2)) + 1
    expected = hits * (2 / 3) / math.sqrt(6)
    assert math.isclose(lexical_score(tokens, text), expected, rel_tol=1e-15)
    assert lexical_score(tokens, "nothing here") == 0
    assert lexical_score([], "cache") == 0
    assert lexical_score(tokens, "") == 0


def test_sections_split_at_level_three_headings_only() -> None:
    md = "intro ignored\n### First \nline 1\n#### not a heading\n###\r\n### Last\nend"
    assert split_sections(md) == [("First", "line 1\n#### not a heading\n"), ("", ""), ("Last", "end\n")]


def test_crlf_files_keep_carriage_returns_in_text() -> None:
    assert split_sections("### A\r\nbody\r\n") == [("A", "body\r\n\n")]


def test_one_line_collapses_white_space_and_cuts_at_120_characters() -> None:
    assert one_line("  a\n\t b  ") == "a b"
    long = "x" * 130
    assert one_line(long) == "x" * 119 + "…"
    assert one_line("y" * 120) == "y" * 120


def test_trim_is_javascript_trim() -> None:
    assert js_trim("\ufeff\u00a0 a \u2028") == "a"
    assert js_trim("\x1c a") == "\x1c a"  # not white space in JavaScript


_SPACEY = st.text(alphabet=st.sampled_from("ab \t\n\v\f\r\x1c\x1d\x1e\x1f\x85\xa0\u2028\ufeff\u3000é"), max_size=40)


@given(_SPACEY, st.integers(min_value=2, max_value=30))
def test_one_line_collapses_what_javascript_calls_white_space(text: str, limit: int) -> None:
    """The ASCII shortcut (``str.split``) and the pattern agree: only
    JavaScript's white space is collapsed, never ``\\x1c``-``\\x1f`` or
    ``\\x85``, which Python's ``str.split`` would take too."""
    from mem_core.js.strings import JS_SPACE, utf16_len, utf16_prefix

    flat = js_trim(re.sub(f"[{JS_SPACE}]+", " ", text))
    expected = flat if utf16_len(flat) <= limit else utf16_prefix(flat, limit - 1) + "…"
    assert one_line(text, limit) == expected
