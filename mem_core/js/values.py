"""JavaScript values for records read from files another tool wrote.

Journal lines, receipts and Nexus runs are arbitrary JSON; the reference reads
properties of them (a missing one is ``undefined``, not ``null``), tests them
with JavaScript's truthiness and joins them with ``String()``, so ``mem`` does
the same. :data:`UNDEFINED` is the one ``undefined`` of the whole tree.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mem_core.js.numtext import js_number

if TYPE_CHECKING:
    from typing import Any

__all__ = ["UNDEFINED", "truthy", "js_string"]


class _Undefined:
    """JavaScript's ``undefined``: a missing property (distinct from ``null``).
    Falsy, and a singleton: test it with ``value is UNDEFINED``."""

    _instance: _Undefined | None = None
    __slots__ = ()

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "undefined"

    def __reduce__(self) -> str:  # pickling and copying keep the singleton
        return "UNDEFINED"


UNDEFINED: Any = _Undefined()


def truthy(value: Any) -> bool:
    """JavaScript truthiness (``[]`` and ``{}`` are truthy; ``0``, ``NaN``,
    ``""``, ``null`` and ``undefined`` are not)."""
    if value is None or value is False or value is UNDEFINED:
        return False
    if value is True:
        return True
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def js_string(value: Any) -> str:
    """``String(value)`` (an array joins its items with ``,``, ``null`` and
    ``undefined`` items as empty strings)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
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
        return ",".join("" if item is None or item is UNDEFINED else js_string(item) for item in value)
    return "[object Object]"
