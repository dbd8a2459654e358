"""textsafe.escape's shortcut for printable text changes no answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mem_core import textsafe


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])))
@settings(max_examples=2000, deadline=None)
def test_escape_is_the_patterns_answer(text: str) -> None:
    assert textsafe.escape(text) == textsafe._pattern("line").sub(textsafe._code, text)
    assert textsafe.escape_inline(text) == textsafe._pattern("INVISIBLE").sub(textsafe._code, text)


def test_every_character_the_patterns_match_is_unprintable() -> None:
    for name in ("line", "INVISIBLE"):
        pattern = textsafe._pattern(name)
        assert all(not chr(point).isprintable() for point in range(0x110000) if pattern.match(chr(point)))
