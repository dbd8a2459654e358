"""Plain Python values for the API's ``to_dict()``.

``to_json()`` gives what the CLI prints with ``--json`` — JavaScript's view of
the values, byte-compatible with ``bmad-plus mem``, where a number is a
number (``1216`` and ``1216.0`` print alike) and a value may be JavaScript's
``undefined``. ``to_dict()`` gives the same data as plain Python: dicts,
lists, strings, booleans, ``None``, and numbers of their kind — a count or an
``updates`` is an ``int``, a score, an Elo, a mean, a confidence a ``float``.
Nothing in the result is shared with the object it came from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["plain", "PlainResult", "INT_KEYS", "FLOAT_KEYS"]

#: keys whose numbers are whole by nature
INT_KEYS = frozenset({"count", "total", "updates", "tests", "skipped", "verified", "unverified", "omitted", "seq"})
#: keys whose numbers are measures
FLOAT_KEYS = frozenset(
    {"score", "lexicalScore", "elo", "alpha", "beta", "mean", "reward", "boost", "confidence", "evalScore"}
)


def _number(key: str | None, value: float | int) -> float | int:
    if key in INT_KEYS and isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    if key in FLOAT_KEYS and isinstance(value, int):
        return float(value)
    return value


def plain(value: Any, key: str | None = None) -> Any:
    """``value`` (a ``to_json()`` result) as plain Python values: JavaScript's
    ``undefined`` left out of objects (``null`` in arrays, as JSON does), the
    numbers of :data:`INT_KEYS` and :data:`FLOAT_KEYS` as ``int`` and
    ``float``; a string stays a string, even under such a key (a value
    ``bmad-plus mem`` stored as text)."""
    from mem_core.js.values import UNDEFINED

    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return _number(key, value)
    if hasattr(value, "to_json"):
        value = value.to_json()
    if isinstance(value, Mapping):
        return {str(k): plain(v, str(k)) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, (list, tuple)):
        return [None if item is UNDEFINED else plain(item) for item in value]
    if value is UNDEFINED:
        return None
    return value


class PlainResult:
    """A result with ``to_json()``; adds ``to_dict()``, its plain values."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (see :mod:`mem_core.plain`)."""
        return plain(self.to_json())  # type: ignore[attr-defined]
