"""The one clock read of an invocation, and JavaScript-compatible time parsing.

Each invocation reads the clock once as ``2026-10-18T09:30:00.000Z`` and uses
that value everywhere. ``MEM_NOW`` (same format) pins it.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.js.isodate import canonical_ms

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["now_iso", "parse_ms", "format_ms", "DAY_MS"]

DAY_MS = 86_400_000


def format_ms(ms: float) -> str:
    """``new Date(ms).toISOString()``."""
    ms = int(ms)
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def parse_ms(value: object) -> float | None:
    """Milliseconds since the epoch, as the reference's ``toMillis`` gives
    them: a number is milliseconds; anything else goes through ``Date.parse``
    (:mod:`mem_core.js.jsdate`, V8's parser: ISO first, then the legacy forms;
    imported on first use, so that reading the clock stays cheap);
    ``None`` where JavaScript gets ``NaN``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        from mem_core.js.values import js_string

        value = js_string(value)
    if len(value) == 24:  # (date_parse's own fast path, without importing jsdate)
        fast = canonical_ms(value)
        if fast is not None:
            return fast
    return (_general_parse or _load_general_parse())(value)


_general_parse: Callable[[str], float | None] | None = None


def _load_general_parse() -> Callable[[str], float | None]:
    global _general_parse
    from mem_core.js.jsdate import general_parse

    _general_parse = general_parse
    return general_parse


def now_iso() -> str:
    """The invocation's clock: ``MEM_NOW`` if set, else the current UTC time."""
    pinned = os.environ.get("MEM_NOW")
    if pinned:
        if canonical_ms(pinned) is None:
            raise MemError("MEM_NOW must be an ISO-8601 UTC timestamp like 2026-10-18T09:30:00.000Z.")
        return pinned
    return format_ms(time.time_ns() // 1_000_000)
