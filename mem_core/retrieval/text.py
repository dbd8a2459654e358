"""Text analysis shared by recall and evidence (mem-cli.md §1).

The reference is JavaScript, so "white space" here is ECMAScript's
``WhiteSpace`` + ``LineTerminator`` set (what ``\\s`` and ``String.trim`` use),
not Python's ``str.isspace``, and lengths are UTF-16 code units: both come from
:mod:`mem_core.js.strings`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from mem_core.js.strings import JS_SPACE, js_trim, utf16_len, utf16_prefix

__all__ = [
    "tokenize",
    "query_tokens",
    "lexical_score",
    "split_sections",
    "section_sha256",
    "one_line",
]

_SPACE_RUN = re.compile(f"[{JS_SPACE}]+")
# The reference uses /[^a-z0-9àâäéèêëïîôöùûüç_-]+/i; both cases are listed
# explicitly because Python's IGNORECASE also folds ı, ſ and K, JavaScript's does not.
# Splitting on runs of other characters and dropping tokens shorter than two
# characters is finding the maximal runs of two or more word characters.
_TOKENS = re.compile("[a-zA-Z0-9àâäéèêëïîôöùûüçÀÂÄÉÈÊËÏÎÔÖÙÛÜÇ_\\-]{2,}")
_HEADING = re.compile(f"###[{JS_SPACE}]+([^\\n\\r\\u2028\\u2029]*)")


def tokenize(text: str) -> list[str]:
    """Lower-case, split on anything that is not a word character of §1, and
    drop tokens shorter than two characters."""
    return _TOKENS.findall(text.lower())


def query_tokens(query: str) -> list[str]:
    """The unique tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokenize(query)))


def lexical_score(tokens: Sequence[str], text: str) -> float:
    """Frequency-damped, coverage-weighted, length-normalised match score."""
    if not tokens:
        return 0.0
    lowered = text.lower()
    for q in tokens:  # no query token inside the text: no token can equal one
        if q in lowered:
            break
    else:
        return 0.0
    doc = _TOKENS.findall(lowered)
    if not doc:
        return 0.0
    hits = 0.0
    matched = 0
    for q in tokens:
        f = doc.count(q)
        if f > 0:
            matched += 1
            hits += 1 + (_log(f) if f > 1 else 0.0)
    if matched == 0:
        return 0.0
    return (hits * (matched / len(tokens))) / math.sqrt(len(doc))


_logs: dict[int, float] = {}


def _log(f: int) -> float:
    """``Math.log`` of a count (V8's, bit for bit), memoised."""
    value = _logs.get(f)
    if value is None:
        from mem_core.js.jsmath import js_log

        value = _logs[f] = js_log(f)
    return value


def split_sections(markdown: str) -> list[tuple[str, str]]:
    """Split a Markdown file at ``### `` headings into (heading, text) pairs.

    Text before the first heading is ignored; every later line is appended as
    ``line + "\\n"``. ``####`` is not a heading; ``\\r`` stays in the text.
    """
    sections: list[tuple[str, str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in markdown.split("\n"):
        m = _HEADING.match(line) if line.startswith("###") else None
        if m:
            if heading is not None:
                sections.append((heading, "".join(lines)))
            heading = js_trim(m.group(1))
            lines = []
        elif heading is not None:
            lines.append(line + "\n")
    if heading is not None:
        sections.append((heading, "".join(lines)))
    return sections


def section_sha256(heading: str, text: str) -> str:
    """``textSha256`` of a section: sha256 of ``(heading + "\\n" + text).trim()``."""
    import hashlib

    return hashlib.sha256(js_trim(heading + "\n" + text).encode("utf-8", "surrogatepass")).hexdigest()


def one_line(text: str, limit: int = 120) -> str:
    """Collapse white space runs, trim, and cut to ``limit`` UTF-16 units
    (``limit - 1`` and ``…``), as ``bmad-plus mem`` does."""
    flat = js_trim(_SPACE_RUN.sub(" ", text))
    if utf16_len(flat) > limit:
        return utf16_prefix(flat, limit - 1) + "…"
    return flat
