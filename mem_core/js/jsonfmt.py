"""JSON and number formatting exactly as JavaScript writes them.

`bmad-plus mem` is a Node.js tool; files and outputs must be byte-identical,
so every byte of JSON `mem` writes goes through this module:

* :func:`dumps` is ``JSON.stringify(value)`` / ``JSON.stringify(value, null, 2)``;
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
from typing import Any

__all__ = [
    "dumps",
    "loads",
    "js_number",
    "to_fixed",
    "is_array_index",
    "js_key_order",
    "reorder",
    "JSONError",
    "JSONDepthError",
]


class JSONError(ValueError):
    """Raised by :func:`loads` for text that ``JSON.parse`` would reject."""


class JSONDepthError(JSONError):
    """Raised by :func:`loads` for JSON nested deeper than Python's decoder
    goes: a corrupt value for ``mem`` (mem-cli.md §8, improve v0.2), never
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


def js_number(x: float | int) -> str:
    """``String(x)`` for a finite number, ``null`` in JSON for NaN/infinities."""
    if isinstance(x, bool):  # pragma: no cover - callers handle bools
        return "true" if x else "false"
    if isinstance(x, int):
        if abs(x) < 2**53:
            return str(x)
        x = float(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    text = repr(x)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    # position of the decimal point relative to the first significant digit
    point = len(whole.lstrip("0")) + exponent if whole.strip("0") else exponent - (len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    n = point  # JS: value = 0.d1d2...dk × 10^n
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp = f"e+{e}" if e >= 0 else f"e-{-e}"
    if k == 1:
        return sign + digits + exp
    return sign + digits[0] + "." + digits[1:] + exp


def to_fixed(x: float | int, digits: int) -> str:
    """``Number.prototype.toFixed(digits)``: the exact binary value rounded
    half up (``(0.0625).toFixed(3)`` is ``0.063``; Python's format gives 0.062)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if abs(x) >= 1e21:
        return js_number(x)
    numerator, denominator = abs(x).as_integer_ratio()
    quotient, remainder = divmod(numerator * 10**digits, denominator)
    if 2 * remainder >= denominator:
        quotient += 1
    text = str(quotient).rjust(digits + 1, "0")
    if digits:
        text = text[:-digits] + "." + text[-digits:]
    return ("-" if x < 0 else "") + text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _quote(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    if _SURROGATE.search(s):
        # JSON.stringify escapes lone surrogates (well-formed JSON.stringify)
        out = "".join(f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch for ch in out)
    return out


_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


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


def dumps(value: Any, indent: int = 0) -> str:
    """``JSON.stringify(value)`` (compact) or ``JSON.stringify(value, null, indent)``."""
    parts: list[str] = []
    _encode(value, indent, 0, parts)
    return "".join(parts)
