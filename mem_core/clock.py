"""The one clock read of an invocation, and JavaScript-compatible time parsing.

Each invocation reads the clock once as ``2026-10-18T09:30:00.000Z`` and uses
that value everywhere. ``MEM_NOW`` (same format) pins it.
"""

from __future__ import annotations

import os
import re
import time

from .errors import MemError

__all__ = ["now_iso", "parse_ms", "format_ms", "DAY_MS"]

DAY_MS = 86_400_000

_ISO = re.compile(
    r"^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?$"
)


def format_ms(ms: float) -> str:
    """``new Date(ms).toISOString()``."""
    ms = int(ms)
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def parse_ms(value: object) -> float | None:
    """Milliseconds since the epoch, as the reference's ``toMillis`` gives them.

    A number is taken as milliseconds; a string is parsed like ``Date.parse``
    parses ISO-8601 (date-only forms are UTC, date-times without an offset are
    local time); anything else, or an invalid date, is ``None``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    if len(value) == 24 and value[19] == "." and value[23] == "Z" and value[10] == "T":
        # the one format mem and bmad-plus mem write: YYYY-MM-DDTHH:MM:SS.sssZ
        fast = _canonical_ms(value)
        if fast is not None:
            return fast
    m = _ISO.match(value)
    if not m:
        return None
    year_s, mon, day, hh, mi, ss, frac, zone = m.groups()
    if year_s == "-000000":
        return None
    year = int(year_s)
    month = int(mon or 1)
    dday = int(day or 1)
    hour, minute, second = int(hh or 0), int(mi or 0), int(ss or 0)
    millis = int((frac or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= dday <= 31 and minute < 60 and second < 60):
        return None
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return None
    days = _days_from_civil(year, month, dday)
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if zone is None:
        if hh is not None:  # local date-time
            ms += _local_offset_ms(ms)
    elif zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        ms -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60_000
    if abs(ms) > 8.64e15:
        return None
    return float(ms)


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
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _local_offset_ms(utc_like_ms: int) -> int:
    try:
        local = time.localtime(utc_like_ms / 1000)
        return -local.tm_gmtoff * 1000
    except (OverflowError, OSError, ValueError):
        return 0


_NOW_FORMAT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def now_iso() -> str:
    """The invocation's clock: ``MEM_NOW`` if set, else the current UTC time."""
    pinned = os.environ.get("MEM_NOW")
    if pinned:
        if not _NOW_FORMAT.match(pinned) or parse_ms(pinned) is None:
            raise MemError("MEM_NOW must be an ISO-8601 UTC timestamp like 2026-10-18T09:30:00.000Z.")
        return pinned
    return format_ms(time.time_ns() // 1_000_000)
