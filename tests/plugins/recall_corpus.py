"""Random journals and note files for the tests that compare two ways of
recalling the same corpus (a warm kernel, the on-disk index)."""

from __future__ import annotations

from hypothesis import strategies as st


def sections(words: list[str]) -> st.SearchStrategy[list[tuple[list[str], list[str]]]]:
    """The ``(heading words, body words)`` of up to six note sections."""
    return st.lists(
        st.tuples(
            st.lists(st.sampled_from(words), min_size=0, max_size=3), st.lists(st.sampled_from(words), max_size=12)
        ),
        max_size=6,
    )


def notes(specs: list[tuple[list[str], list[str]]], crlf: bool) -> str:
    """A note file of ``specs`` sections, each with a ``####`` line that is not a heading."""
    end = "\r\n" if crlf else "\n"
    parts = ["# Notes", "intro cache values"]
    for heading, body in specs:
        parts.append("### " + " ".join(heading))
        parts.append(" ".join(body))
        parts.append("#### not a heading " + " ".join(body[:2]))
    return end.join(parts) + end
