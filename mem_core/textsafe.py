"""Text shown to a person never forges a mark (structured-memory.md, Trust).

Stored text (a memory's content, a note, a journal entry) may hold characters
that a terminal does not print as themselves: C0/C1 controls and the escape
character (``\\x1b``: cursor moves, colours, a redrawn line), the
bidirectional overrides and isolates (U+202A-202E, U+2066-2069, U+200E/F:
text shown in another order than stored) and the zero-width characters
(U+200B-200D, U+2060, U+FEFF: two different names that look the same).
:func:`escape` shows each as an escape (``\\x1b``, ``\\u202e``) so that what a
person reads is what is stored. :func:`visible_name` is the rule for names
(minds, tags, humans): visible characters only.

Imports nothing, and compiles each pattern on first use: text renderers on
the start-up path use it (a pattern costs a millisecond to compile).
"""

from __future__ import annotations

import re

__all__ = ["escape", "escape_inline", "escape_block", "escape_json", "has_invisible", "visible_name"]

_PATTERNS = {
    # controls (C0 but tab and newline, DEL, C1), bidirectional and zero-width formatting
    "INVISIBLE": "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]",
    # the same, tab and newline included (one-line text)
    "line": "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]",
    # what a name may not hold beyond "line": any space but U+0020, other format
    # characters (soft hyphen, word joiners, tags), private use and surrogates
    "name": "[\x00-\x1f\x7f-\xa0\xad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff"
    "\ufff9-\ufffb\ud800-\udfff\ue000-\uf8ff\U000e0000-\U000e007f]",
    # what JSON.stringify leaves unescaped of INVISIBLE (it escapes the C0 controls)
    "json": "[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]",
    "newline": "\r\n|[\n\u2028\u2029]",
}


_COMPILED: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    found = _COMPILED.get(name)
    if found is None:
        found = _COMPILED[name] = re.compile(_PATTERNS[name])
    return found


def _code(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def escape(text: str) -> str:
    """``text`` on one line: every control character (tab and newline
    included) and every bidirectional or zero-width formatting character
    shown as an escape."""
    if text.isprintable():  # every character "line" matches is one Python calls unprintable
        return text
    return _pattern("line").sub(_code, text)


def escape_inline(text: str) -> str:
    """``text`` with every invisible character but tab and newline escaped
    (what stays inside one line of a block)."""
    if text.isprintable():
        return text
    return _pattern("INVISIBLE").sub(_code, text)


def escape_block(text: str) -> list[str]:
    """``text`` as lines for an indented block: split at newlines (``\\n``,
    ``\\r\\n``, U+2028/2029), each line escaped as :func:`escape` does (a lone
    ``\\r``, which would return to the start of the line, too); tabs stay."""
    invisible = _pattern("INVISIBLE")
    return [invisible.sub(_code, line) for line in _pattern("newline").split(text)]


def escape_json(text: str) -> str:
    """JSON text with the invisible characters JSON leaves raw written as
    ``\\uXXXX`` escapes: the same JSON value, shown safely."""
    return _pattern("json").sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_invisible(text: str) -> bool:
    """Whether ``text`` holds a character :func:`escape` would escape."""
    return _pattern("line").search(text) is not None


def visible_name(text: str, *, spaces: bool) -> bool:
    """Whether ``text`` is a name of visible characters only: no control, no
    formatting, no zero-width or bidirectional character, no space but U+0020
    (and that only with ``spaces``), no private-use or unpaired surrogate
    character."""
    if _pattern("name").search(text):
        return False
    return spaces or " " not in text
