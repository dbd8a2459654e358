"""``Date.parse`` as V8 (Node.js) implements it: the ES5 ISO format first,
then V8's legacy parser (``Sun, 18 Oct 2026 09:30:00 GMT``, ``Oct 18, 2026``,
``2026/10/18 10:00``, ``10/18/2026`` …).

The reference dates journal events and pattern scores with ``Date.parse``, so
an event whose ``ts`` another tool wrote in one of these forms decays in
``mem`` exactly as it does there. Written from the behaviour of V8's date
parser (tokens: numbers, symbols, words, white space, parentheses; composers
for the day, the time and the time zone); checked against node on generated
strings (tests/core/data/js_dates.json).
"""

from __future__ import annotations

import time

from mem_core.js.isodate import canonical_ms, days_from_civil

__all__ = ["date_parse", "days_from_civil"]

_NONE = None
_MAX_DIGITS = 9  # V8 caps numerals at 9 significant digits

#: words V8 knows (by their first three letters, lower-cased); longer words
#: match only for month names
_MONTH, _AMPM, _ZONE, _TSEP = "month", "ampm", "zone", "tsep"
_KEYWORDS: dict[str, tuple[str, int]] = {
    **{m: (_MONTH, i) for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)},
    "am": (_AMPM, 0), "pm": (_AMPM, 12),
    "ut": (_ZONE, 0), "utc": (_ZONE, 0), "z": (_ZONE, 0), "gmt": (_ZONE, 0),
    "cdt": (_ZONE, -5), "cst": (_ZONE, -6), "edt": (_ZONE, -4), "est": (_ZONE, -5),
    "mdt": (_ZONE, -6), "mst": (_ZONE, -7), "pdt": (_ZONE, -7), "pst": (_ZONE, -8),
    "t": (_TSEP, 0),
}  # fmt: skip

_WHITE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class _Tok:
    __slots__ = ("kind", "value", "length", "ktype")

    def __init__(self, kind: str, value: object = None, length: int = 0, ktype: str | None = None) -> None:
        self.kind = kind  # "num" "sym" "word" "ws" "unknown" "end"
        self.value = value
        self.length = length
        self.ktype = ktype

    def is_num(self) -> bool:
        return self.kind == "num"

    def is_fixed(self, n: int) -> bool:
        return self.kind == "num" and self.length == n

    def is_sym(self, ch: str) -> bool:
        return self.kind == "sym" and self.value == ch

    def is_sign(self) -> bool:
        return self.kind == "sym" and self.value in ("+", "-")

    def is_z(self) -> bool:
        return self.kind == "word" and self.ktype == _ZONE and self.length == 1 and self.value == 0

    def is_end(self) -> bool:
        return self.kind == "end"


class _Scanner:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.next = self._scan()

    def _scan(self) -> _Tok:
        s, i = self.s, self.i
        if i >= len(s):
            return _Tok("end")
        ch = s[i]
        if "0" <= ch <= "9":
            j = i
            value = 0
            while j < len(s) and "0" <= s[j] <= "9":
                if j - i < _MAX_DIGITS:
                    value = value * 10 + ord(s[j]) - 48
                j += 1
            self.i = j
            return _Tok("num", value, j - i)
        if ch in ":-+.)":
            self.i = i + 1
            return _Tok("sym", ch)
        if ch >= "A" and ch not in _WHITE:
            j = i
            while j < len(s) and s[j] >= "A" and s[j] not in _WHITE:
                j += 1
            word = s[i:j]
            self.i = j
            prefix = "".join(chr(ord(c) | 0x20) for c in word[:3])
            entry = _KEYWORDS.get(prefix)
            if entry is not None and (len(word) <= 3 or entry[0] == _MONTH):
                return _Tok("word", entry[1], len(word), entry[0])
            return _Tok("word", None, len(word), None)
        if ch in _WHITE:
            j = i
            while j < len(s) and s[j] in _WHITE:
                j += 1
            self.i = j
            return _Tok("ws", None, j - i)
        if ch == "(":
            depth = 0
            j = i
            while j < len(s):
                if s[j] == "(":
                    depth += 1
                elif s[j] == ")":
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                j += 1
            self.i = j
            return _Tok("unknown")
        self.i = i + 1
        return _Tok("unknown")

    def take(self) -> _Tok:
        token = self.next
        self.next = self._scan()
        return token

    def skip_sym(self, ch: str) -> bool:
        if self.next.is_sym(ch):
            self.take()
            return True
        return False


def _between(x: int, lo: int, hi: int) -> bool:
    return lo <= x <= hi


class _Day:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month: int | None = None
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) < 3:
            self.comp.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        if not self.comp:
            return None
        comp = self.comp + [1] * (3 - len(self.comp))
        if self.named_month is None:
            if self.iso or not _between(comp[0], 1, 31):
                year, month, day = comp
            else:
                month, day, year = comp
        else:
            month = self.named_month
            if not _between(comp[0], 1, 31):
                year, day = comp[0], comp[1]
            else:
                day, year = comp[0], comp[1]
        if not self.iso:
            if _between(year, 0, 49):
                year += 2000
            elif _between(year, 50, 99):
                year += 1900
        if not _between(month, 1, 12) or not _between(day, 1, 31):
            return None
        return year, month, day


class _Time:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset: int | None = None

    def empty(self) -> bool:
        return not self.comp

    def expecting(self, n: int) -> bool:
        k = len(self.comp)
        return (k == 1 and _between(n, 0, 59)) or (k == 2 and _between(n, 0, 59)) or (k == 3 and _between(n, 0, 999))

    def add(self, n: int) -> bool:
        if len(self.comp) < 4:
            self.comp.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.comp += [0] * (4 - len(self.comp))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, ms = self.comp + [0] * (4 - len(self.comp))
        if self.hour_offset is not None:
            if not _between(hour, 0, 12):
                return None
            hour = hour % 12 + self.hour_offset
        if not (_between(hour, 0, 23) and _between(minute, 0, 59) and _between(second, 0, 59) and _between(ms, 0, 999)):
            if hour != 24 or minute or second or ms:
                return None
        return hour, minute, second, ms


class _Zone:
    def __init__(self) -> None:
        self.sign: int | None = None
        self.hour: int | None = None
        self.minute: int | None = None

    def set(self, offset_hours: int) -> None:
        self.sign = -1 if offset_hours < 0 else 1
        self.hour = abs(offset_hours)
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour is not None and self.minute is None and _between(n, 0, 59)

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def empty(self) -> bool:
        return self.hour is None

    def write(self) -> tuple[bool, int]:
        """(valid, offset in seconds); offset None-like (local) when no sign."""
        if self.sign is None:
            return True, 0
        total = (self.hour or 0) * 3600 + (self.minute or 0) * 60
        if total > 2**30 - 1:
            return False, 0
        return True, -total if self.sign < 0 else total


def _read_ms(token: _Tok) -> int:
    number, length = int(token.value), token.length  # type: ignore[call-overload]
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    if length > 3:
        length = min(length, _MAX_DIGITS)
        factor = 10 ** (length - 3)
        return number // factor
    return number


_INVALID = _Tok("invalid")


def _es5(sc: _Scanner, day: _Day, tm: _Time, tz: _Zone) -> _Tok:
    """V8's ES5 ISO pass; returns the first token it did not handle
    (``end`` when it parsed everything, ``invalid`` for a definite failure)."""
    if sc.next.is_sign():
        sign_token = sc.take()
        if not sc.next.is_fixed(6):
            return sign_token
        sign = -1 if sign_token.value == "-" else 1
        year = int(sc.take().value)  # type: ignore[call-overload]
        if sign < 0 and year == 0:
            return sign_token
        day.add(sign * year)
    elif sc.next.is_fixed(4):
        day.add(int(sc.take().value))  # type: ignore[call-overload]
    else:
        return sc.take()
    if sc.skip_sym("-"):
        if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 1, 12):  # type: ignore[call-overload]
            return sc.take()
        day.add(int(sc.take().value))  # type: ignore[call-overload]
        if sc.skip_sym("-"):
            if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 1, 31):  # type: ignore[call-overload]
                return sc.take()
            day.add(int(sc.take().value))  # type: ignore[call-overload]
    if not (sc.next.kind == "word" and sc.next.ktype == _TSEP):
        if not sc.next.is_end():
            return sc.take()
    else:
        sc.take()
        if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 0, 24):  # type: ignore[call-overload]
            return _INVALID
        hour_is_24 = sc.next.value == 24
        tm.add(int(sc.take().value))  # type: ignore[call-overload]
        if not sc.skip_sym(":"):
            return _INVALID
        if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 0, 59) or (hour_is_24 and sc.next.value):  # type: ignore[call-overload]
            return _INVALID
        tm.add(int(sc.take().value))  # type: ignore[call-overload]
        if sc.skip_sym(":"):
            if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 0, 59) or (hour_is_24 and sc.next.value):  # type: ignore[call-overload]
                return _INVALID
            tm.add(int(sc.take().value))  # type: ignore[call-overload]
            if sc.skip_sym("."):
                if not sc.next.is_num() or (hour_is_24 and sc.next.value):
                    return _INVALID
                tm.add(_read_ms(sc.take()))
        if sc.next.is_z():
            sc.take()
            tz.set(0)
        elif sc.next.is_sign():
            tz.sign = 1 if sc.take().value == "+" else -1
            if sc.next.is_fixed(4):
                hourmin = int(sc.take().value)  # type: ignore[call-overload]
                hour, minute = divmod(hourmin, 100)
                if not _between(hour, 0, 23) or not _between(minute, 0, 59):
                    return _INVALID
                tz.hour, tz.minute = hour, minute
            else:
                if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 0, 23):  # type: ignore[call-overload]
                    return _INVALID
                tz.hour = int(sc.take().value)  # type: ignore[call-overload]
                if not sc.skip_sym(":"):
                    return _INVALID
                if not sc.next.is_fixed(2) or not _between(int(sc.next.value), 0, 59):  # type: ignore[call-overload]
                    return _INVALID
                tz.minute = int(sc.take().value)  # type: ignore[call-overload]
        if not sc.next.is_end():
            return _INVALID
    if tz.empty() and tm.empty():
        tz.set(0)
    day.iso = True
    return _Tok("end")


def date_parse(text: str) -> float | None:
    """Milliseconds since the epoch for ``text`` as ``Date.parse`` reads it,
    or ``None`` where it gives ``NaN``."""
    if len(text) == 24:
        fast = canonical_ms(text)
        if fast is not None:
            return fast
    return general_parse(text)


def general_parse(text: str) -> float | None:
    """:func:`date_parse` without the fast path for mem's own format (a
    test holds :func:`mem_core.clock.canonical_ms` to it)."""
    sc = _Scanner(text)
    day, tm, tz = _Day(), _Time(), _Zone()
    token = _es5(sc, day, tm, tz)
    if token.kind == "invalid":
        return None
    has_number = bool(day.comp)
    while not token.is_end():
        if token.is_num():
            has_number = True
            n = int(token.value)  # type: ignore[call-overload]
            if sc.skip_sym(":"):
                if sc.skip_sym(":"):
                    if not tm.empty():
                        return None
                    tm.add(n)
                    tm.add(0)
                else:
                    if not tm.add(n):
                        return None
                    if sc.next.is_sym("."):
                        sc.take()
            elif sc.skip_sym(".") and tm.expecting(n):  # the "." is consumed either way
                tm.add(n)
                if not sc.next.is_num():
                    return None
                tm.add_final(_read_ms(sc.take()))
            elif tz.expecting(n):
                tz.minute = n
            elif tm.expecting(n):
                tm.add_final(n)
                peek = sc.next
                if not (peek.is_end() or peek.kind == "ws" or peek.is_z() or peek.is_sign()):
                    return None
            else:
                if not day.add(n):
                    return None
                sc.skip_sym("-")
        elif token.kind == "word":
            if token.ktype == _AMPM and not tm.empty():
                tm.hour_offset = int(token.value)  # type: ignore[call-overload]
            elif token.ktype == _MONTH:
                day.named_month = int(token.value)  # type: ignore[call-overload]
                sc.skip_sym("-")
            elif token.ktype == _ZONE and has_number:
                tz.set(int(token.value))  # type: ignore[call-overload]
            else:
                if has_number:
                    return None
                if sc.next.is_num():
                    return None
        elif token.is_sign() and (tz.is_utc() or not tm.empty()):
            tz.sign = -1 if token.value == "-" else 1
            n, length = 0, 0
            if sc.next.is_num():
                number = sc.take()
                n, length = int(number.value), number.length  # type: ignore[call-overload]
            has_number = True
            if sc.next.is_sym(":"):
                tz.hour, tz.minute = n, None
            elif length in (1, 2):
                tz.hour, tz.minute = n, 0
            elif length in (3, 4):
                tz.hour, tz.minute = n // 100, n % 100
            else:
                return None
        elif (token.is_sign() or token.is_sym(")")) and has_number:
            return None
        token = sc.take()
    ymd = day.write()
    hms = tm.write()
    zone_ok, offset = tz.write()
    if ymd is None or hms is None or not zone_ok:
        return None
    year, month, mday = ymd
    hour, minute, second, ms = hms
    days = days_from_civil(year, month, 1) + mday - 1
    value = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms
    if tz.sign is None:
        value += _local_offset_ms(value)
    else:
        value -= offset * 1000
    if abs(value) > 8.64e15:
        return None
    return float(value)


def _local_offset_ms(local_ms: int) -> int:
    """Milliseconds to add to a local wall-clock time to get UTC."""
    try:
        return -time.localtime(local_ms / 1000).tm_gmtoff * 1000
    except (OverflowError, OSError, ValueError):
        return 0
