"""JavaScript value semantics for records read from files another tool wrote.

Journal lines are arbitrary JSON; the reference joins and tests them with
JavaScript's truthiness and ``String()``, so ``mem`` does the same.
"""

from __future__ import annotations

import math
from typing import Any

from mem_core.js.jsonfmt import js_number

__all__ = ["truthy", "js_string"]


def truthy(value: Any) -> bool:
    """JavaScript truthiness (``[]`` and ``{}`` are truthy, ``0``/``""``/``null`` are not)."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def js_string(value: Any) -> str:
    """``String(value)``."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        if isinstance(value, float) and math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"
