"""Dates of the ISO form mem writes, read as V8 reads them without its
general parser (:mod:`mem_core.js.jsdate`, which uses these too): the
clock and every indexed journal time are of this form."""

from __future__ import annotations

__all__ = ["canonical_ms", "days_from_civil"]


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date ``y-m-d`` (``d``
    may run past the month's end: day 32 of January is February 1)."""
    y -= m <= 2
    era = y // 400  # floor division (the C formula truncates and adjusts)
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_day_cache: dict[str, int] = {}


def canonical_ms(value: str) -> float | None:
    """``Date.parse`` of the one format mem and ``bmad-plus mem`` write,
    ``YYYY-MM-DDTHH:MM:SS.sssZ`` (ASCII digits only, as V8 reads them),
    without the general parser; ``None`` for anything else, valid or not
    (:func:`mem_core.js.jsdate.date_parse` decides those)."""
    if (
        len(value) != 24
        or value[4] != "-"
        or value[7] != "-"
        or value[10] != "T"
        or value[13] != ":"
        or value[16] != ":"
        or value[19] != "."
        or value[23] != "Z"
    ):
        return None
    digits = value[:4] + value[5:7] + value[8:10] + value[11:13] + value[14:16] + value[17:19] + value[20:23]
    if not (digits.isascii() and digits.isdigit()):  # (str.isdigit alone takes any script's digits)
        return None
    date = value[:10]
    days = _day_cache.get(date)
    if days is None:
        month, day = int(value[5:7]), int(value[8:10])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        days = _day_cache[date] = days_from_civil(int(value[:4]), month, day)
    hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
    if minute > 59 or second > 59 or hour > 24 or (hour == 24 and (minute or second or value[20:23] != "000")):
        return None
    return float(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + int(value[20:23]))
