"""analysis.words' ASCII shortcut finds the words the full pattern finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core.retrieval import analysis

FULL = re.compile(f"[{analysis._CJK_RANGES}]+|[^\\W_{analysis._CJK_RANGES}]+")


@given(st.text(alphabet=st.characters(max_codepoint=127)))
@settings(max_examples=2000, deadline=None)
def test_ascii_text_gives_the_full_patterns_words(text: str) -> None:
    assert analysis.words(text) == FULL.findall(analysis.fold(text))


def test_text_beyond_ascii_still_takes_the_full_pattern() -> None:
    assert analysis.words("Cache-Werte: München 修复了缓存") == [
        "cache",
        "werte",
        "munchen",
        "修复",
        "复了",
        "了缓",
        "缓存",
    ]
