"""JSON and number formatting exactly as JavaScript writes them.

`bmad-plus mem` is a Node.js tool; files and outputs must be byte-identical,
so every byte of JSON `mem` writes goes through this module:

* :func:`dumps` is ``JSON.stringify(value)`` / ``JSON.stringify(value, null, 2)``
  (through Python's C encoder wherever its bytes are provably the same, else
  :func:`pure_dumps`, the pure-Python writer the tests keep as the oracle);
* :func:`loads` is ``JSON.parse`` (every number is a double, no ``NaN``);
* :func:`to_fixed` is ``Number.prototype.toFixed`` (half up on the exact
  binary value, unlike Python's ``format``);
* :func:`js_key_order` is the property order of a JavaScript object (the one
  key-order rule of the tree; :func:`reorder` applies it to a whole value).
"""

from __future__ import annotations

import json
import math
import re
from itertools import chain
from typing import TYPE_CHECKING

from mem_core.js.numtext import js_number, to_fixed
from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "dumps",
    "pure_dumps",
    "loads",
    "js_number",
    "to_fixed",
    "is_array_index",
    "js_key_order",
    "reorder",
    "parsed_order",
    "JSONError",
    "JSONDepthError",
]


class JSONError(ValueError):
    """Raised by :func:`loads` for text that ``JSON.parse`` would reject."""


class JSONDepthError(JSONError):
    """Raised by :func:`loads` for JSON nested deeper than Python's decoder
    goes: a corrupt value for ``mem`` (docs/contract.md §8, improve v0.2), never
    Python's recursion message."""


def _reject_constant(name: str) -> Any:
    raise JSONError(f"Unexpected token {name[0]} in JSON")


_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def loads(text: str) -> Any:
    """Parse like ``JSON.parse``: strict JSON (no ``NaN``/``Infinity``),
    surrounding JSON white space allowed and nothing else. Integers stay
    ``int`` (exact); every number is written back as JavaScript would write the
    double it denotes (:func:`js_number`)."""
    stripped = text.strip(" \t\n\r")
    try:
        value, end = _decoder.raw_decode(stripped)
    except json.JSONDecodeError as exc:
        raise JSONError(str(exc)) from None
    except RecursionError:
        raise JSONDepthError("JSON nested too deeply") from None
    if end != len(stripped):
        raise JSONError("Unexpected non-whitespace character after JSON")
    return value


_SURROGATE = lazy("[\ud800-\udfff]")


def _quote(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    if _SURROGATE.search(s):
        # JSON.stringify escapes lone surrogates (well-formed JSON.stringify)
        out = "".join(f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch for ch in out)
    return out


_INDEX = lazy(r"0|[1-9][0-9]{0,9}")


def is_array_index(key: str) -> bool:
    """Whether ``key`` is an array index to JavaScript: the canonical decimal
    form of an integer in [0, 2**32 - 2] (``"7"``, not ``"07"`` or ``"-1"``)."""
    return _INDEX.fullmatch(key) is not None and int(key) <= 4294967294


def js_key_order(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its keys in the order a JavaScript object has them:
    array-index keys (``"0"``, ``"10"`` …) first in numeric order, then the
    other keys in insertion order. JSON.stringify and Object.keys see this
    order whether the object was parsed or built. ``obj`` itself when it is
    already in that order for want of index keys."""
    for key in obj:
        if key[:1].isdigit() and is_array_index(key):
            break
    else:
        return obj
    indexes = sorted((k for k in obj if is_array_index(k)), key=int)
    ordered = {k: obj[k] for k in indexes}
    ordered.update((k, v) for k, v in obj.items() if k not in ordered)
    return ordered


# An array-index key in JSON text is a string literal of ASCII digits: written
# as such, or with a digit escaped (``"\u0031"``). Text with neither anywhere
# (strings included) has no object whose key order JavaScript would change.
_DIGITS_KEY = lazy(r'"[0-9]+"[ \t\n\r]*:')


def parsed_order(value: Any, text: str) -> Any:
    """``value`` (just parsed from ``text``) in JavaScript key order: as
    :func:`reorder`, without walking the value when ``text`` provably holds no
    array-index key."""
    # two searches: an alternation would defeat the regex engine's literal scan
    return reorder(value) if "\\u003" in text or _DIGITS_KEY.search(text) else value


def reorder(value: Any) -> Any:
    """A copy of a JSON value with every object in :func:`js_key_order`
    (what ``JSON.parse`` gives in V8); other values as they are."""
    if isinstance(value, dict):
        return js_key_order({k: reorder(v) for k, v in value.items()})
    if isinstance(value, list):
        return [reorder(v) for v in value]
    return value


def _encode(value: Any, indent: int, level: int, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_quote(value))
    elif isinstance(value, (int, float)):
        parts.append(js_number(value))
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        value = js_key_order(value)
        if indent:
            inner = "\n" + " " * (indent * (level + 1))
            parts.append("{")
            first = True
            for key, item in value.items():
                parts.append(inner if first else "," + inner)
                first = False
                parts.append(_quote(str(key)))
                parts.append(": ")
                _encode(item, indent, level + 1, parts)
            parts.append("\n" + " " * (indent * level) + "}")
        else:
            parts.append("{")
            first = True
            for key, item in value.items():
                if not first:
                    parts.append(",")
                first = False
                parts.append(_quote(str(key)))
                parts.append(":")
                _encode(item, indent, level, parts)
            parts.append("}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        if indent:
            inner = "\n" + " " * (indent * (level + 1))
            parts.append("[")
            for i, item in enumerate(value):
                parts.append(inner if i == 0 else "," + inner)
                _encode(item, indent, level + 1, parts)
            parts.append("\n" + " " * (indent * level) + "]")
        else:
            parts.append("[")
            for i, item in enumerate(value):
                if i:
                    parts.append(",")
                _encode(item, indent, level, parts)
            parts.append("]")
    elif hasattr(value, "to_json"):
        _encode(value.to_json(), indent, level, parts)
    else:
        raise TypeError(f"cannot serialize {type(value).__name__} as JSON")


def pure_dumps(value: Any, indent: int = 0) -> str:
    """``JSON.stringify(value)`` (compact) or ``JSON.stringify(value, null, indent)``,
    every byte written by Python code: the definition :func:`dumps` must match
    (the tests' oracle) and its fallback for the rare values the C encoder
    cannot write as JavaScript does."""
    parts: list[str] = []
    _encode(value, indent, 0, parts)
    return "".join(parts)


# --------------------------------------------------------------------------
# the fast writer: Python's C encoder on a value made safe for it
#
# What the C encoder writes differs from JSON.stringify only in numbers (and
# lone surrogates, fixed afterwards): a float is its ``repr``, an int its
# digits. So before the encoder sees it, every number is replaced by one
# whose C form is the JavaScript form:
#
# * NaN and ±Infinity by ``None`` (``null``); -0.0 and every integral float
#   below 2**53 by the ``int`` of the same value (``5.0`` → ``5``), other
#   integral floats below 1e21 by the ``int`` of their JavaScript digits
#   (``2.0**60`` → ``1152921504606847000``, :func:`js_number`);
# * a non-integral float of magnitude ≥ 1e-4 stays: it is below 2**52, where
#   ``repr`` and ``String()`` both write the same shortest round-trip digits
#   in plain decimal notation;
# * anything else — a non-integral float below 1e-4 (``5e-05`` vs
#   ``0.00005``), a float of 1e21 or more, an int of 2**53 or more, a key that
#   is not a string, an object of another type — makes the whole value go
#   through :func:`pure_dumps`.
#
# Objects are put in :func:`js_key_order` on the way (a copy only where the
# order changes). With an indent, containers holding only scalars are written
# by the C encoder with the item separator of their level; the others are
# assembled here around them.


class _Unsafe(Exception):
    """A value :func:`dumps` leaves to :func:`pure_dumps`."""


_NOTHING = object()
#: scalar types the C encoder writes as JSON.stringify does, whatever the value
_PLAIN = frozenset({str, bool, type(None)})
_DIGIT_FIRST = re.compile("[0-9]").match
_TWO53 = float(2**53)
_SCALARS = (str, int, bool, type(None))


def _safe_number(x: float) -> Any:
    if x != x or x in (math.inf, -math.inf):
        return None
    if x.is_integer():
        if -_TWO53 < x < _TWO53:
            return int(x)
        if -1e21 < x < 1e21:
            return int(js_number(x))
        raise _Unsafe
    if x >= 1e-4 or x <= -1e-4:
        return x
    raise _Unsafe


def _safe(value: Any, omit: Any) -> Any:
    """``value`` with every number made safe for the C encoder, every object
    in JavaScript key order and ``omit`` dropped from objects (``null`` in
    arrays); ``value`` itself when nothing had to change."""
    kind = type(value)
    if kind is dict:
        # the common object of strings (hashes, environments): checked by C-level passes
        if (
            set(map(type, value.values())) <= _PLAIN
            and set(map(type, value)) <= _JUST_STR
            and not any(map(_DIGIT_FIRST, value))
        ):
            return value
        ordered = js_key_order(value)
        out: dict[str, Any] | None = None if ordered is value else {}
        for key, item in ordered.items():
            if type(key) is not str:
                raise _Unsafe
            t = type(item)
            if t is str or t is int or item is None or t is bool:
                if t is int and not -9007199254740992 < item < 9007199254740992:
                    raise _Unsafe
                new = item
            elif item is omit:
                if out is None:
                    out = _prefix(ordered, key)
                continue
            else:
                new = _safe_number(item) if t is float else _safe(item, omit)
            if out is None:
                if new is item:
                    continue
                out = _prefix(ordered, key)
            out[key] = new
        return ordered if out is None else out
    if kind is list or kind is tuple:
        if kind is list and set(map(type, value)) <= _PLAIN:
            return value
        items = None if kind is list else list(value)
        for index, item in enumerate(value):
            t = type(item)
            if t is str or t is int or item is None or t is bool:
                if t is int and not -9007199254740992 < item < 9007199254740992:
                    raise _Unsafe
                continue
            if item is omit:
                new = None
            else:
                new = _safe_number(item) if t is float else _safe(item, omit)
            if new is not item:
                if items is None:
                    items = list(value)
                items[index] = new
        return value if items is None else items
    if kind is float:
        return _safe_number(value)
    if kind in _SCALARS:
        if kind is int and not -9007199254740992 < value < 9007199254740992:
            raise _Unsafe
        return value
    if hasattr(value, "to_json"):
        return _safe(value.to_json(), omit)
    raise _Unsafe


def _prefix(ordered: dict[str, Any], stop: str) -> dict[str, Any]:
    """The items of ``ordered`` before key ``stop`` (unchanged so far)."""
    out = {}
    for key, item in ordered.items():
        if key == stop:
            break
        out[key] = item
    return out


def _raise_type(value: Any) -> Any:
    raise TypeError(f"cannot serialize {type(value).__name__} as JSON")


try:
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]
    from json.encoder import encode_basestring as _quote_fast
except ImportError:  # pragma: no cover - CPython always has them
    _c_make_encoder = None
_encoders: dict[tuple[str, str], Any] = {}


def _encoder(item_separator: str, key_separator: str) -> Any:
    """The C encoder writing with these separators (one per indent level)."""
    found = _encoders.get((item_separator, key_separator))
    if found is None:
        found = _encoders[item_separator, key_separator] = _c_make_encoder(  # type: ignore[misc]
            None, _raise_type, _quote_fast, None, key_separator, item_separator, False, False, True
        )
    return found


def _scalar(value: Any) -> str:
    """The JSON text of a scalar already made safe (a str, an int, ``None``, a bool, a float)."""
    if type(value) is str:
        return _quote_fast(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return repr(value)  # int, or a float whose repr is its JavaScript form


# With an indent there is a faster way still, and no copy: the containers are
# written as they are (flat ones by the C encoder) and the numbers fixed in
# the text afterwards. In indented output a raw newline is never inside a
# string (the encoder escapes it), and a key is followed by ": ", so a token
# just before ",\n" or "\n" is a value: a number there ending in ".0" is an
# integral float below 1e16 (``repr`` switches to an exponent above), whose
# JavaScript form is the same digits without ".0" (``-0`` becomes ``0``);
# one with an exponent, ``NaN`` or ``Infinity`` is rewritten by
# :func:`js_number`. Every value is checked on the way to be of an exact JSON
# type (no subclass, no key but a string), and every int to be below 2**53;
# anything else goes the way above.

_EXACT_SCALARS = frozenset({str, int, float, bool, type(None)})
_POINT_ZERO = lazy(r"\.0(?=,?\n)")
_MINUS_ZERO = lazy(r" -0(?=,?\n)")
_EXPONENT = lazy(r"e[-+][0-9]+(?=,?\n)")
_SPECIAL_NUMBER = lazy(r"(?<= )(?:-?[0-9][0-9.]*e[-+][0-9]+|-?Infinity|NaN)(?=,?\n)")


def _js_token(match: re.Match[str]) -> str:
    token = match.group()
    return "null" if token[-1] in "yN" else js_number(float(token))


def _raw_scalar(value: Any) -> str:
    """A scalar as the C encoder writes it (numbers fixed afterwards)."""
    kind = type(value)
    if kind is str:
        return _quote_fast(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        if not -9007199254740992 < value < 9007199254740992:
            raise _Unsafe
        return int.__repr__(value)
    if kind is float:
        if value != value:
            return "NaN"
        if value in (math.inf, -math.inf):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    raise _Unsafe


def _raw_indented(value: Any, indent: int, level: int, parts: list[str]) -> None:
    """Append ``value`` (a non-empty dict, list or tuple) indented at ``level``,
    numbers as the C encoder writes them."""
    is_dict = type(value) is dict
    if is_dict:
        for key in value:
            if type(key) is not str:
                raise _Unsafe
            if key[:1].isdigit() and is_array_index(key):
                value = js_key_order(value)
                break
    inner = "\n" + " " * (indent * (level + 1))
    flat = True
    for item in value.values() if is_dict else value:
        kind = type(item)
        if kind is int:
            if not -9007199254740992 < item < 9007199254740992:
                raise _Unsafe
        elif kind not in _EXACT_SCALARS:
            if kind is dict or kind is list or kind is tuple:
                flat = False
                break
            raise _Unsafe
    if flat:
        text = "".join(_encoder("," + inner, ": ")(value, 0))
        parts.append(text[0] + inner + text[1:-1] + "\n" + " " * (indent * level) + text[-1])
        return
    parts.append("{" if is_dict else "[")
    separator = inner
    for key, item in value.items() if is_dict else enumerate(value):
        parts.append(separator)
        separator = "," + inner
        if is_dict:
            if type(key) is not str:
                raise _Unsafe
            parts.append(_quote_fast(key))
            parts.append(": ")
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            if item:
                _raw_indented(item, indent, level + 1, parts)
            else:
                parts.append("{}" if kind is dict else "[]")
        else:
            parts.append(_raw_scalar(item))
    parts.append("\n" + " " * (indent * level) + ("}" if is_dict else "]"))


# The commonest large file, ``pattern-scores.json``, is an object of flat
# objects: written by one call of the C encoder, with separators that cannot
# occur in its output otherwise (control characters are escaped in strings),
# then indented by plain replacements: "\x01{" opens an inner object (a string
# never starts with "{"), "}\x02" closes one before the next key (no scalar
# token ends with "}"), the text ends with the last inner object's "}}".
_KEY = "\x01"
_ITEM = "\x02"
_INDEX_KEY_MARKED = lazy(r'"[0-9]+"\x01')
#: an int value that may be 2**53 or more (a shorter one is below 1e15)
_LONG_INT_MARKED = lazy(r"\x01-?[0-9]{16}")
_JUST_DICT = {dict}
_JUST_STR = {str}


def _nested_flat_text(value: dict[Any, Any], indent: int) -> str | None:
    """``value`` indented with numbers as the C encoder writes them, when it
    is a non-empty object of non-empty objects of scalars of exact types,
    with string keys, no array-index key and no int of 16 digits or more;
    else ``None``. The types are checked by C-level passes over the values."""
    inners = value.values()
    if (
        set(map(type, inners)) != _JUST_DICT
        or not all(inners)
        or set(map(type, value)) != _JUST_STR
        or set(map(type, chain.from_iterable(inners))) != _JUST_STR
        or not set(map(type, chain.from_iterable(map(dict.values, inners)))) <= _EXACT_SCALARS
    ):
        return None
    text = "".join(_encoder(_ITEM, _KEY)(value, 0))
    if _INDEX_KEY_MARKED.search(text) or _LONG_INT_MARKED.search(text):
        return None
    outer = " " * indent
    inner_pad = outer * 2
    text = text.replace(_KEY + "{", ": {\n" + inner_pad).replace("}" + _ITEM, "\n" + outer + "},\n" + outer)
    text = "{\n" + outer + text[1:-2] + "\n" + outer + "}\n}"
    return text.replace(_ITEM, ",\n" + inner_pad).replace(_KEY, ": ")


def _indented_text(value: Any, indent: int) -> str:
    """:func:`_raw_indented`'s text with every number in its JavaScript form."""
    text = _nested_flat_text(value, indent) if type(value) is dict else None
    if text is None:
        parts: list[str] = []
        _raw_indented(value, indent, 0, parts)
        text = "".join(parts)
    text = _POINT_ZERO.sub("", text)
    if " -0" in text:
        text = _MINUS_ZERO.sub(" 0", text)
    if "Infinity" in text or "NaN" in text or _EXPONENT.search(text):
        text = _SPECIAL_NUMBER.sub(_js_token, text)
    return text


def dumps(value: Any, indent: int = 0, *, omit: Any = _NOTHING) -> str:
    """``JSON.stringify(value)`` (compact) or ``JSON.stringify(value, null, indent)``.

    Byte for byte :func:`pure_dumps` (a differential test holds it to that),
    at the speed of Python's C encoder for every value it can write exactly.
    ``omit`` (e.g. JavaScript's ``undefined``) is left out of objects and is
    ``null`` in arrays, as ``JSON.stringify`` treats ``undefined``.
    """
    if _c_make_encoder is not None:
        text = _fast_dumps(value, indent, omit)
        if text is not None:
            return text
    if omit is not _NOTHING:
        value = _without(value, omit)
    return pure_dumps(value, indent)


def _fast_dumps(value: Any, indent: int, omit: Any) -> str | None:
    """:func:`dumps` through the C encoder, or ``None`` for a value it cannot write exactly."""
    if indent and omit is _NOTHING and (type(value) is dict or type(value) is list) and value:
        try:
            return _escape_surrogates(_indented_text(value, indent))
        except (_Unsafe, RecursionError):
            pass
    try:
        safe = _safe(value, omit)
    except (_Unsafe, RecursionError):
        return None
    if type(safe) is dict or type(safe) is list:
        if not safe:
            return "{}" if type(safe) is dict else "[]"
        try:
            # numbers made safe, keys ordered, omitted values gone: the raw
            # writer's text is already JavaScript's (its number fixes find nothing to do)
            text = _indented_text(safe, indent) if indent else "".join(_encoder(",", ":")(safe, 0))
        except (_Unsafe, RecursionError):
            return None
    else:
        text = _scalar(safe)
    # JSON.stringify escapes lone surrogates (well-formed JSON.stringify)
    return _escape_surrogates(text)


def _escape_surrogates(text: str) -> str:
    """``text`` with lone surrogates escaped as JSON.stringify escapes them."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # fails exactly when there is a surrogate; faster than a search
    except UnicodeEncodeError:
        return _SURROGATE.sub(_escape_surrogate, text)
    return text


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _without(value: Any, omit: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, omit) for k, v in value.items() if v is not omit}
    if isinstance(value, (list, tuple)):
        return [None if v is omit else _without(v, omit) for v in value]
    return value
