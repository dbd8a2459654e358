"""The one clock read of an invocation, and JavaScript-compatible time parsing.

Each invocation reads the clock once as ``2026-10-18T09:30:00.000Z`` and uses
that value everywhere. ``MEM_NOW`` (same format) pins it.
"""

from __future__ import annotations

import os
import re
import time

from mem_core.errors import MemError

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
    (:mod:`mem_core.js.jsdate`, V8's parser: ISO first, then the legacy forms);
    ``None`` where JavaScript gets ``NaN``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        from mem_core.js.values import js_string

        value = js_string(value)
    if len(value) == 24 and value[19] == "." and value[23] == "Z" and value[10] == "T":
        # the one format mem and bmad-plus mem write: YYYY-MM-DDTHH:MM:SS.sssZ
        fast = _canonical_ms(value)
        if fast is not None:
            return fast
    from mem_core.js.jsdate import date_parse

    return date_parse(value)


_CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_day_cache: dict[str, int] = {}


def _canonical_ms(value: str) -> float | None:
    if not _CANONICAL.fullmatch(value):
        return None
    date = value[:10]
    days = _day_cache.get(date)
    if days is None:
        month, day = int(value[5:7]), int(value[8:10])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        days = _day_cache[date] = _days_from_civil(int(value[:4]), month, day)
    hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
    if minute > 59 or second > 59 or hour > 24 or (hour == 24 and (minute or second or value[20:23] != "000")):
        return None
    return float(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + int(value[20:23]))


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400  # floor division (the C formula truncates and adjusts)
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_NOW_FORMAT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def now_iso() -> str:
    """The invocation's clock: ``MEM_NOW`` if set, else the current UTC time."""
    pinned = os.environ.get("MEM_NOW")
    if pinned:
        if not _NOW_FORMAT.match(pinned) or parse_ms(pinned) is None:
            raise MemError("MEM_NOW must be an ISO-8601 UTC timestamp like 2026-10-18T09:30:00.000Z.")
        return pinned
    return format_ms(time.time_ns() // 1_000_000)
