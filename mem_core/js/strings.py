"""JavaScript strings: white space, ``trim``, UTF-16 lengths, slices and order.

JavaScript strings are sequences of UTF-16 code units, so an emoji has length
2, ``slice`` can cut a surrogate pair in half and ``sort`` compares code
units; its "white space" (``\\s``, ``String.prototype.trim``) is ECMAScript's
``WhiteSpace`` + ``LineTerminator`` set, not Python's ``str.isspace``. Every
length bound of the contract (the 120-character cut, the 300, 1000 and 2000
bounds) is measured as the reference measures it.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["JS_SPACE", "js_trim", "utf16_len", "utf16_prefix", "utf16_key", "js_sorted"]

#: ECMAScript white space and line terminators (``\s`` in a JS RegExp).
JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_SPACE)


def utf16_len(text: str) -> int:
    """``string.length``: UTF-16 code units (an emoji counts 2)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def utf16_prefix(text: str, units: int) -> str:
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


def utf16_key(text: str) -> bytes:
    """Sort key ordering strings as JavaScript compares them (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def js_sorted(values: Iterable[str]) -> list[str]:
    """``[...values].sort()`` for strings."""
    return sorted(values, key=utf16_key)
