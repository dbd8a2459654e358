"""JavaScript semantics for records another tool wrote: receipts, Nexus runs,
observe inputs (docs/contract.md §5, §6, §10).

``bmad-plus mem`` and BMAD+ Nexus read these records with ``JSON.parse`` and
test them with JavaScript operators, and their hashes are over
``JSON.stringify`` of the parsed value. To verify and refuse them exactly as
they do, ``mem`` needs the few JavaScript behaviours that differ from
Python's:

* :func:`parse` is ``JSON.parse`` with V8's error messages, and with V8's key
  order (array-index keys such as ``"7"`` first, ascending);
* :data:`UNDEFINED` and :func:`prop` model a property read, including the
  ``TypeError`` V8 raises when reading from ``null`` or ``undefined``;
* :func:`strict_equal` is ``===`` (``true`` is not ``1``; objects are equal only
  to themselves); :func:`same` is the tools' ``JSON.stringify(a) === JSON.stringify(b)``;
* :func:`js_sorted` is ``Array.prototype.sort`` on strings (UTF-16 code units).

The values themselves (:data:`UNDEFINED`, truthiness, ``String()``) live in
:mod:`mem_core.js.values`, strings in :mod:`mem_core.js.strings`, key order in
:mod:`mem_core.js.jsonfmt`; they are re-exported here for the record readers.

Pure Python with no heavy imports: evidence recall uses it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.js import jsonfmt
from mem_core.js.jsonfmt import is_array_index, reorder
from mem_core.js.strings import js_sorted, utf16_key, utf16_len
from mem_core.js.values import UNDEFINED, js_string, truthy

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "UNDEFINED",
    "JSTypeError",
    "parse",
    "json_error_message",
    "reorder",
    "prop",
    "opt",
    "truthy",
    "strict_equal",
    "is_integer",
    "is_number",
    "stringify",
    "same",
    "sha256",
    "digest",
    "js_string",
    "js_sorted",
    "utf16_key",
    "utf16_len",
    "join",
]


class JSTypeError(MemError):
    """The ``TypeError`` a JavaScript tool would have thrown on a malformed record;
    its message is V8's, so the user sees what ``bmad-plus mem`` prints."""


# --------------------------------------------------------------------------
# values


def join(values: Iterable[Any], separator: str) -> str:
    """``Array.prototype.join``: ``null`` and ``undefined`` become ``""``."""
    return separator.join("" if v is None or v is UNDEFINED else js_string(v) for v in values)


def is_number(value: Any) -> bool:
    """``typeof value === "number"``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """``Number.isInteger``."""
    return is_number(value) and math.isfinite(value) and float(value).is_integer()


def _type_tag(value: Any) -> str:
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def strict_equal(a: Any, b: Any) -> bool:
    """``a === b`` for JSON values (objects and arrays only equal themselves)."""
    tag = _type_tag(a)
    if tag != _type_tag(b):
        return False
    if tag == "object":
        return a is b
    if tag == "number":
        return not (math.isnan(a) or math.isnan(b)) and a == b
    return bool(a == b) if tag in ("string", "boolean") else True


def prop(value: Any, key: str) -> Any:
    """``value[key]``: :data:`UNDEFINED` when absent; reading from ``null`` or
    ``undefined`` raises V8's ``TypeError``."""
    if value is None or value is UNDEFINED:
        kind = "null" if value is None else "undefined"
        raise JSTypeError(f"Cannot read properties of {kind} (reading '{key}')")
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    if isinstance(value, list):
        if key == "length":
            return len(value)
        if is_array_index(key) and int(key) < len(value):
            return value[int(key)]
        return UNDEFINED
    if isinstance(value, str) and key == "length":
        return utf16_len(value)
    return UNDEFINED


def opt(value: Any, key: str) -> Any:
    """``value?.[key]``: :data:`UNDEFINED` for ``null`` or ``undefined``."""
    if value is None or value is UNDEFINED:
        return UNDEFINED
    return prop(value, key)


def stringify(value: Any) -> str | None:
    """``JSON.stringify(value)`` (``None`` stands for ``undefined``)."""
    if value is UNDEFINED:
        return None
    return jsonfmt.dumps(value, omit=UNDEFINED)


def same(a: Any, b: Any) -> bool:
    """``JSON.stringify(a) === JSON.stringify(b)``: equal values *and* key order."""
    return _surely_same(a, b) or stringify(a) == stringify(b)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _surely_same(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value in the same key order,
    which makes their ``JSON.stringify`` equal — without writing either
    (a re-check compares thousands of records). ``False`` says only "not
    shown here": :func:`same` then compares the texts."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _SCALARS:
        return bool(a == b)  # equal values of one type write the same text (-0 and 0 included)
    if kind is dict:
        return len(a) == len(b) and list(a) == list(b) and all(_surely_same(a[k], b[k]) for k in a)
    if kind is list:
        return len(a) == len(b) and all(map(_surely_same, a, b))
    return False


def sha256(data: str | bytes) -> str:
    """Hex sha256 of bytes, or of a string's UTF-8 (``hash.update(string)``)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    import hashlib  # when a digest is taken: registering the evidence ranker loads this module

    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """The reference's ``digest``: sha256 of a string, or of ``JSON.stringify`` of
    anything else. ``undefined`` cannot be hashed (Node throws)."""
    text = value if isinstance(value, str) else stringify(value)
    if text is None:
        raise JSTypeError(
            'The "data" argument must be of type string or an instance of Buffer, '
            "TypedArray, or DataView. Received undefined"
        )
    return sha256(text)


# --------------------------------------------------------------------------
# JSON.parse


def parse(text: str) -> Any:
    """``JSON.parse(text)``: the value with V8's key order, or :class:`MemError`
    with the message V8 gives (``Unexpected end of JSON input`` …)."""
    try:
        value = jsonfmt.loads(text)
    except jsonfmt.JSONDepthError:  # deeper than Python's JSON decoder goes
        raise MemError(_depth_message(text)) from None
    except jsonfmt.JSONError:
        raise MemError(json_error_message(text) or "Unexpected token in JSON") from None
    try:
        return jsonfmt.parsed_order(value, text)
    except RecursionError:
        raise MemError("Maximum call stack size exceeded") from None


def _depth_message(text: str) -> str:
    """What Node says of JSON too deep for Python: V8's parser is iterative,
    so a syntax error gets its message; valid JSON overflows the stack later."""
    try:
        return json_error_message(text) or "Maximum call stack size exceeded"
    except RecursionError:
        return "Maximum call stack size exceeded"


class _ParseFailure(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


_EOS = "EOS"
_WHITESPACE = " \t\n\r"
_CONTEXT = 10  # V8's kMaxContextCharacters
_SPECIAL = ("[object Object]", "undefined", "Infinity", "NaN")
_ESCAPES = set('"\\/bfnrt')
_HEX = set("0123456789abcdefABCDEF")
_DIGITS = set("0123456789")


def _token(ch: str) -> str:
    if ch == _EOS:
        return _EOS
    if ch == '"':
        return "STRING"
    if ch == "-" or ch in _DIGITS:
        return "NUMBER"
    if ch in "tfn":
        return "LITERAL"
    if ch in _WHITESPACE:
        return "WHITESPACE"
    if ch in ":,[]{}":
        return ch
    return "ILLEGAL"


def json_error_message(text: str) -> str | None:
    """V8's ``JSON.parse`` error message for ``text``, or ``None`` if it parses."""
    units = text.encode("utf-16-le", "surrogatepass")
    source = "".join(chr(int.from_bytes(units[i : i + 2], "little")) for i in range(0, len(units), 2))
    try:
        _V8Scanner(source).scan()
    except _ParseFailure as failure:
        # recombine surrogate pairs the message kept as separate code units
        return failure.message.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return None


class _V8Scanner:
    """Walks a JSON text (as UTF-16 code units) the way V8's ``JsonParser``
    does, to report the first error exactly as it reports it."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.n = len(source)
        self.i = 0

    # -- error reporting
    def char(self, i: int) -> str:
        return self.s[i] if i < self.n else _EOS

    def fail(self, template: str, pos: int) -> None:
        raise _ParseFailure(template.replace("%", str(pos)))

    def unexpected(self, pos: int) -> None:
        """``ReportUnexpectedCharacter`` at ``pos`` (no specific message)."""
        token = _token(self.char(pos))
        if token == _EOS:
            raise _ParseFailure("Unexpected end of JSON input")
        if token == "NUMBER":
            self.fail("Unexpected number in JSON at position %", pos)
        if token == "STRING":
            self.fail("Unexpected string in JSON at position %", pos)
        if self.s in _SPECIAL:
            raise _ParseFailure(f'"{self.s}" is not valid JSON')
        ch = self.s[pos]
        if self.n < _CONTEXT * 2 + 1:
            raise _ParseFailure(f"Unexpected token '{ch}', \"{self.s}\" is not valid JSON")
        if pos < _CONTEXT:
            raise _ParseFailure(f"Unexpected token '{ch}', \"{self.s[: pos + _CONTEXT]}\"... is not valid JSON")
        if pos < self.n - _CONTEXT:
            context = self.s[pos - _CONTEXT : pos + _CONTEXT]
            raise _ParseFailure(f"Unexpected token '{ch}', ...\"{context}\"... is not valid JSON")
        raise _ParseFailure(f"Unexpected token '{ch}', ...\"{self.s[pos - _CONTEXT :]}\" is not valid JSON")

    # -- scanning
    def skip(self) -> None:
        while self.i < self.n and self.s[self.i] in _WHITESPACE:
            self.i += 1

    def expect(self, token: str, template: str) -> None:
        if _token(self.char(self.i)) != token:
            self.fail(template, self.i)
        self.i += 1

    def key(self) -> None:
        self.skip()
        self.expect("STRING", "Expected property name or '}' in JSON at position %")
        self.string()
        self.skip()
        self.expect(":", "Expected ':' after property name in JSON at position %")

    def next_key(self) -> None:
        self.skip()
        self.expect("STRING", "Expected double-quoted property name in JSON at position %")
        self.string()
        self.skip()
        if self.char(self.i) != ":":  # V8 gives no specific message here
            self.unexpected(self.i)
        self.i += 1

    def string(self) -> None:
        """After the opening quote: up to and including the closing quote."""
        s, n = self.s, self.n
        i = self.i
        while True:
            while i < n and s[i] != '"' and s[i] != "\\" and ord(s[i]) >= 0x20:
                i += 1
            if i >= n:
                self.fail("Unterminated string in JSON at position %", n)
            ch = s[i]
            if ch == '"':
                self.i = i + 1
                return
            if ch == "\\":
                i += 1
                esc = self.char(i)
                if esc == _EOS or ord(esc) > 0xFF:
                    self.unexpected(i)
                if esc == "u":
                    for _ in range(4):
                        i += 1
                        if self.char(i) not in _HEX:
                            self.fail("Bad Unicode escape in JSON at position %", i)
                elif esc not in _ESCAPES:
                    self.fail("Bad escaped character in JSON at position %", i)
                i += 1
                continue
            self.fail("Bad control character in string literal in JSON at position %", i)

    def number(self) -> None:
        s = self
        if s.char(s.i) == "-":
            s.i += 1
        if s.char(s.i) == "0":
            s.i += 1
            if s.char(s.i) in _DIGITS:
                s.fail("Unexpected number in JSON at position %", s.i)
        else:
            if s.char(s.i) not in _DIGITS:
                s.fail("No number after minus sign in JSON at position %", s.i)
            while s.char(s.i) in _DIGITS:
                s.i += 1
        if s.char(s.i) == ".":
            s.i += 1
            if s.char(s.i) not in _DIGITS:
                s.fail("Unterminated fractional number in JSON at position %", s.i)
            while s.char(s.i) in _DIGITS:
                s.i += 1
        if s.char(s.i) in ("e", "E"):
            s.i += 1
            if s.char(s.i) in ("+", "-"):
                s.i += 1
            if s.char(s.i) not in _DIGITS:
                s.fail("Exponent part is missing a number in JSON at position %", s.i)
            while s.char(s.i) in _DIGITS:
                s.i += 1

    def literal(self) -> None:
        word = {"t": "true", "f": "false", "n": "null"}[self.s[self.i]]
        if self.s.startswith(word, self.i):
            self.i += len(word)
            return
        remaining = self.n - self.i
        j = self.i + 1
        for k in range(min(len(word) - 1, remaining - 1)):
            if word[1 + k] != self.s[j]:
                self.unexpected(j)
            j += 1
        raise _ParseFailure("Unexpected end of JSON input")

    def scan(self) -> None:
        stack: list[str] = []
        while True:
            # produce a value
            self.skip()
            token = _token(self.char(self.i))
            if token == "STRING":
                self.i += 1
                self.string()
            elif token == "NUMBER":
                self.number()
            elif token == "LITERAL":
                self.literal()
            elif token == "{":
                self.i += 1
                self.skip()
                if self.char(self.i) == "}":
                    self.i += 1
                else:
                    stack.append("{")
                    self.key()
                    continue
            elif token == "[":
                self.i += 1
                self.skip()
                if self.char(self.i) == "]":
                    self.i += 1
                else:
                    stack.append("[")
                    continue
            else:
                self.unexpected(self.i)
            # consume it
            while True:
                if not stack:
                    self.skip()
                    if self.i < self.n:
                        self.fail("Unexpected non-whitespace character after JSON at position %", self.i)
                    return
                self.skip()
                if stack[-1] == "{":
                    if self.char(self.i) == ",":
                        self.i += 1
                        self.next_key()
                        break
                    self.expect("}", "Expected ',' or '}' after property value in JSON at position %")
                else:
                    if self.char(self.i) == ",":
                        self.i += 1
                        break
                    self.expect("]", "Expected ',' or ']' after array element in JSON at position %")
                stack.pop()
