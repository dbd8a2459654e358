"""Recall's tokenization (docs/contract.md §1) and the one-line text form of results.

The reference is JavaScript, so "white space" here is ECMAScript's
``WhiteSpace`` + ``LineTerminator`` set (what ``\\s`` and ``String.trim`` use),
not Python's ``str.isspace``, and lengths are UTF-16 code units: both come from
:mod:`mem_core.js.strings`.
"""

from __future__ import annotations

import re

from mem_core.js.strings import JS_SPACE, js_trim, utf16_len, utf16_prefix
from mem_core.lazyre import lazy

__all__ = [
    "tokenize",
    "query_tokens",
    "one_line",
    "Terms",
]

_SPACE_RUN = lazy(f"[{JS_SPACE}]+")
#: the ASCII characters Python's ``str.split`` takes for white space and JavaScript's ``\s`` does not
_NOT_JS_SPACE = ("\x1c", "\x1d", "\x1e", "\x1f")
# The reference uses /[^a-z0-9àâäéèêëïîôöùûüç_-]+/i; both cases are listed
# explicitly because Python's IGNORECASE also folds ı, ſ and K, JavaScript's does not.
# Splitting on runs of other characters and dropping tokens shorter than two
# characters is finding the maximal runs of two or more word characters.
_TOKENS = re.compile("[a-zA-Z0-9àâäéèêëïîôöùûüçÀÂÄÉÈÊËÏÎÔÖÙÛÜÇ_\\-]{2,}")


def tokenize(text: str, *, lowered: bool = False) -> list[str]:
    """Lower-case, split on anything that is not a word character of §1, and
    drop tokens shorter than two characters (``lowered``: the text is
    lower-case already)."""
    return _TOKENS.findall(text if lowered else text.lower())


def query_tokens(query: str) -> list[str]:
    """The unique tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokenize(query)))


class Terms:
    """The tokens of a text (docs/contract.md §1) as a ranker counts them: ``length``
    tokens in all, ``counts`` each distinct token's number of occurrences
    (a dict nobody changes: read-only by contract).

    A source that keeps its candidates between recalls (in the kernel's file
    cache) tokenizes each text once and hands the result over with the
    candidate (:attr:`Candidate.terms`); the lexical ranker then scores
    without tokenizing. Build one with :meth:`of`, so that it always equals
    :func:`tokenize` of the text.
    """

    __slots__ = ("counts", "length")

    counts: dict[str, int]
    length: int

    def __init__(self, counts: dict[str, int], length: int) -> None:
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "length", length)

    @classmethod
    def of(cls, text: str) -> Terms:
        """The terms of ``text``."""
        doc = tokenize(text)
        counts: dict[str, int] = {}
        for token in doc:
            counts[token] = counts.get(token, 0) + 1
        return cls(counts, len(doc))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Terms is read-only")

    def __repr__(self) -> str:
        return f"Terms({self.counts!r}, length={self.length})"


def one_line(text: str, limit: int = 120) -> str:
    """Collapse white space runs, trim, and cut to ``limit`` UTF-16 units
    (``limit - 1`` and ``…``), as ``bmad-plus mem`` does."""
    if text.isascii() and not any(c in text for c in _NOT_JS_SPACE):
        flat = " ".join(text.split())  # the same, for these texts, without the pattern
    else:
        flat = js_trim(_SPACE_RUN.sub(" ", text))
    if utf16_len(flat) > limit:
        return utf16_prefix(flat, limit - 1) + "…"
    return flat
