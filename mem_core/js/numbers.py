"""JavaScript numbers: ``Number(value)``, ``+`` and ``/`` on JSON values.

Option text (``--eval 0x1``, ``--limit " 3 "``) and values read from files
another tool wrote (``pattern-scores.json`` may hold ``"5"`` or ``null``) are
turned into numbers exactly as ``bmad-plus mem`` turns them, so that every
number written is the one Node would write.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mem_core.js.strings import js_trim
from mem_core.js.values import js_string
from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

__all__ = ["js_to_number", "clamp01", "js_add", "js_divide"]

_DECIMAL = lazy(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX = lazy(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def js_to_number(value: Any) -> float:
    """``Number(value)`` for any JSON value: text as JavaScript reads numbers
    (trimmed; empty is 0; ``0x``/``0o``/``0b``; ``Infinity``), ``true`` 1,
    ``false`` and ``null`` 0, an array through its string form, anything else
    (an object, ``undefined``) NaN."""
    if value is True:
        return 1.0
    if value is False or value is None:
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        value = js_string(value)
    if not isinstance(value, str):
        return math.nan
    text = js_trim(value)
    if not text:
        return 0.0
    if _DECIMAL.fullmatch(text):
        if text.lstrip("+-") == "Infinity":
            return -math.inf if text.startswith("-") else math.inf
        return float(text)
    if _RADIX.fullmatch(text):
        return float(int(text, 0))
    return math.nan


def clamp01(x: Any) -> float:
    """The reference's ``clamp01``: a number clamped to [0, 1]; a non-number
    or NaN is 0."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        return 0.0
    return min(1.0, max(0.0, float(x)))


def js_add(left: Any, right: float) -> Any:
    """``left + right`` for a JSON value ``left`` and a number ``right``:
    string concatenation when ``left`` is (or becomes) a string, else a sum."""
    if isinstance(left, (str, list, dict)):
        return js_string(left) + js_string(right)
    return js_to_number(left) + right


def js_divide(numerator: float, denominator: float) -> float:
    """``a / b`` with IEEE results where Python would raise."""
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)
    return numerator / denominator
