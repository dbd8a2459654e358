"""Recall's tokenization (mem-cli.md §1) and the one-line text form of results.

The reference is JavaScript, so "white space" here is ECMAScript's
``WhiteSpace`` + ``LineTerminator`` set (what ``\\s`` and ``String.trim`` use),
not Python's ``str.isspace``.
"""

from __future__ import annotations

import re

__all__ = [
    "JS_SPACE",
    "js_trim",
    "tokenize",
    "query_tokens",
    "one_line",
    "utf16_len",
]

#: ECMAScript white space and line terminators (``\s`` in a JS RegExp).
JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SPACE_RUN = re.compile(f"[{JS_SPACE}]+")
# The reference uses /[^a-z0-9àâäéèêëïîôöùûüç_-]+/i; both cases are listed
# explicitly because Python's IGNORECASE also folds ı, ſ and K, JavaScript's does not.
# Splitting on runs of other characters and dropping tokens shorter than two
# characters is finding the maximal runs of two or more word characters.
_TOKENS = re.compile("[a-zA-Z0-9àâäéèêëïîôöùûüçÀÂÄÉÈÊËÏÎÔÖÙÛÜÇ_\\-]{2,}")


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_SPACE)


def tokenize(text: str, *, lowered: bool = False) -> list[str]:
    """Lower-case, split on anything that is not a word character of §1, and
    drop tokens shorter than two characters (``lowered``: the text is
    lower-case already)."""
    return _TOKENS.findall(text if lowered else text.lower())


def query_tokens(query: str) -> list[str]:
    """The unique tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokenize(query)))


def utf16_len(text: str) -> int:
    """``string.length`` in JavaScript: UTF-16 code units (an emoji counts 2).
    Every length bound of the contract (the 120-character cut, the 300, 1000
    and 2000 bounds) is measured this way, as the reference measures it."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _utf16_prefix(text: str, units: int) -> str:
    """``text.slice(0, units)``: may end in half of a surrogate pair (the
    lone high surrogate is printed as U+FFFD, as Node prints it)."""
    if text.isascii():
        return text[:units]
    out: list[str] = []
    used = 0
    for ch in text:
        if used >= units:
            break
        code = ord(ch)
        if code > 0xFFFF:
            if used + 2 > units:
                out.append(chr(0xD800 + ((code - 0x10000) >> 10)))
                break
            used += 2
        else:
            used += 1
        out.append(ch)
    return "".join(out)


def one_line(text: str, limit: int = 120) -> str:
    """Collapse white space runs, trim, and cut to ``limit`` UTF-16 units
    (``limit - 1`` and ``…``), as ``bmad-plus mem`` does."""
    flat = js_trim(_SPACE_RUN.sub(" ", text))
    if utf16_len(flat) > limit:
        return _utf16_prefix(flat, limit - 1) + "…"
    return flat
