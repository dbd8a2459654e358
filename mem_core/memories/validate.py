"""The validation of structured-memory input: every value a caller gives
(option text as typed, or a Python value) checked and normalised, or refused
with an exact one-line ``MemError`` before any store is opened.

The service (:mod:`mem_core.api.memories`) calls these on what the
command line, the MCP server and Python callers hand it: the one place each
rule is written.
"""

from __future__ import annotations

import re

from mem_core.clock import parse_ms
from mem_core.errors import MemError
from mem_core.js.strings import JS_SPACE, js_trim
from mem_core.memories.kinds import CATEGORIES, PRIORITIES, SOURCES
from mem_core.memories.records import DEFAULT_MIND
from mem_core.textsafe import escape as _escape
from mem_core.textsafe import visible_name

__all__ = [
    "KEY_MAX",
    "CONTENT_MAX_BYTES",
    "TAG_MAX",
    "TAGS_MAX",
    "MIND_MAX",
    "MAX_MS",
    "shown",
    "parse_category",
    "parse_key",
    "parse_content",
    "parse_tags",
    "parse_tag_filter",
    "parse_priority",
    "parse_source",
    "parse_confidence",
    "parse_mind",
    "parse_duration",
    "parse_expires",
    "parse_ref",
    "is_memory_id",
    "parse_search",
    "parse_limit",
    "parse_version",
    "iso_timestamp",
    "read_bounded",
    "read_content",
    "content_of",
]

KEY_MAX = 128
#: content is bounded: 16 KiB of UTF-8
CONTENT_MAX_BYTES = 16 * 1024
TAG_MAX = 64
TAGS_MAX = 32
MIND_MAX = 64
#: the latest timestamp a memory can carry (timestamps keep four-digit years)
MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

_KEY = re.compile(r"[a-z0-9_]+")
_ID = re.compile(r"mem_[0-9a-f]{1,64}")
_TAG_CHAR_REFUSED = re.compile(f"[,{JS_SPACE}\\x00-\\x1f\\x7f]")
_NUMBER = re.compile(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DURATION = re.compile(r"([1-9][0-9]{0,9})([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})")
_WORD = re.compile(r"[^\W_]+")


def shown(value: object, limit: int = 40) -> str:
    """A value quoted for a one-line message (invisible characters escaped)."""
    text = _escape(value) if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "'" + text + "'"


def parse_category(value: object) -> str:
    if value not in CATEGORIES:
        raise MemError(f"category must be one of {', '.join(CATEGORIES)} (got {shown(value)})")
    return str(value)


def parse_key(value: object) -> str:
    if not isinstance(value, str) or not _KEY.fullmatch(value) or len(value) > KEY_MAX:
        raise MemError(f"key must be snake_case: 1-{KEY_MAX} characters of a-z, 0-9 and _ (got {shown(value)})")
    return value


def parse_content(value: object) -> str:
    """Content is stored without surrounding white space; it must not be empty."""
    if not isinstance(value, str) or not js_trim(value):
        raise MemError("content must be non-empty text")
    content = js_trim(value)
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > CONTENT_MAX_BYTES:
        raise MemError(f"content must be at most {CONTENT_MAX_BYTES} bytes of UTF-8 (got {size})")
    return content


def parse_tags(values: list[str] | str | None) -> list[str]:
    """Tags as given (each value may hold several, comma-separated), lower-cased,
    de-duplicated in first-seen order."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    tags: list[str] = []
    for value in values:
        for part in str(value).split(","):
            tag = js_trim(part).lower()
            if (
                not tag
                or _TAG_CHAR_REFUSED.search(tag)
                or not visible_name(tag, spaces=False)
                or not any(ch.isalnum() for ch in tag)
            ):
                raise MemError(f"tag must have a letter or digit and no spaces or commas (got {shown(js_trim(part))})")
            if len(tag) > TAG_MAX:
                raise MemError(f"tag must be at most {TAG_MAX} characters (got {len(tag)}: {shown(tag)})")
            if tag not in tags:
                tags.append(tag)
    if len(tags) > TAGS_MAX:
        raise MemError(f"a memory has at most {TAGS_MAX} tags (got {len(tags)})")
    return tags


def parse_tag_filter(value: str | None) -> str | None:
    if value is None:
        return None
    tags = parse_tags(value)
    if len(tags) != 1:
        raise MemError(f"--tag filters on one tag (got {shown(value)})")
    return tags[0]


def parse_priority(value: object, default: str | None = "normal") -> str | None:
    if value is None:
        return default
    if value not in PRIORITIES:
        raise MemError(f"priority must be one of {', '.join(PRIORITIES[::-1])} (got {shown(value)})")
    return str(value)


def parse_source(value: object) -> str | None:
    if value is None:
        return None
    if value not in SOURCES:
        raise MemError(f"source must be {' or '.join(SOURCES)} (got {shown(value)})")
    return str(value)


def parse_confidence(value: str | float | None) -> float | None:
    """A number from 0 to 1 (``None``: the source's default)."""
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        number = float(value.strip())
    if number is None or not 0 <= number <= 1:
        raise MemError(f"confidence must be a number from 0 to 1 (got {shown(value)})")
    return number + 0.0  # -0.0 -> 0.0


def parse_mind(value: object) -> str:
    """A mind's name: 1-64 characters, no control characters, no surrounding
    white space (``None``: the default mind)."""
    if value is None:
        return DEFAULT_MIND
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MIND_MAX
        or js_trim(value) != value
        or not visible_name(value, spaces=True)
    ):
        raise MemError(
            f"mind must be 1-{MIND_MAX} visible characters (no control, zero-width or bidirectional "
            f"characters, no surrounding spaces) (got {shown(value)})"
        )
    return value


def parse_duration(value: object, option: str = "--expiring") -> int:
    """``7d``, ``12h``, ``30m``, ``45s``, ``2w`` as milliseconds."""
    m = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if not m:
        raise MemError(f"{option} must be a duration like 7d, 12h or 30m (got {shown(value)})")
    return int(m.group(1)) * _UNIT_MS[m.group(2)]


def iso_timestamp(ms: float, option: str) -> str:
    if not 0 <= ms <= MAX_MS:
        raise MemError(f"{option} must fall between 1970-01-01 and 9999-12-31")
    ms = int(ms)
    from datetime import datetime, timezone

    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}.{ms % 1000:03d}Z"


def parse_expires(value: object, now: str) -> str | None:
    """``--expires``: an ISO-8601 date (UTC midnight) or date-time with ``Z`` or
    an offset, or a duration from ``now``; returned as a UTC timestamp
    ``YYYY-MM-DDTHH:MM:SS.mmmZ``."""
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and _DURATION.fullmatch(text):
        now_ms = parse_ms(now)
        assert now_ms is not None
        return iso_timestamp(now_ms + parse_duration(text, "--expires"), "--expires")
    m = (_DATE.fullmatch(text) or _DATE_TIME.fullmatch(text)) if isinstance(text, str) else None
    ms = parse_ms(text) if m else None
    if m:
        try:
            from datetime import date

            date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            ms = None
    if ms is None:
        raise MemError(
            "--expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) "
            f"or a duration like 7d, 12h or 30m (got {shown(value)})"
        )
    return iso_timestamp(ms, "--expires")


def parse_ref(value: object) -> tuple[str | None, str | None, str | None]:
    """``mem_<hex>`` → (id, None, None); ``<category>/<key>`` → (None, category, key)."""
    if isinstance(value, str) and _ID.fullmatch(value):
        return value, None, None
    if isinstance(value, str) and "/" in value:
        category, _, key = value.partition("/")
        return None, parse_category(category), parse_key(key)
    raise MemError(f"a memory is named by its id (mem_…) or <category>/<key> (got {shown(value)})")


def parse_search(value: str) -> list[str]:
    """The words of a search text (letters and digits; everything else separates)."""
    words = _WORD.findall(value) if isinstance(value, str) else []
    if not words:
        raise MemError(f"--search needs at least one word of letters or digits (got {shown(value)})")
    return words


def parse_limit(value: str | int | None) -> int | None:
    """``--limit``: a whole number >= 0 as JavaScript reads numbers (``3``,
    ``3.0``, ``0x3``, `` 3 ``); empty: 8 (recall's default); ``None``: no
    limit. The same answers as :func:`mem_core.api.recall.parse_limit`
    (a test holds them alike), without importing the recall kernel."""
    import math

    if value is None:
        return None
    if value == "":
        return 8
    if isinstance(value, int) and not isinstance(value, bool):
        number: float = value
    elif isinstance(value, str):
        from mem_core.js.numbers import js_to_number

        number = js_to_number(value)
    else:
        number = math.nan
    if not math.isfinite(number) or number < 0 or number != int(number):
        raise MemError("--limit must be a non-negative integer")
    return int(number)


def parse_version(value: object, count: int) -> int:
    """A version number of a memory's history: 1 (its first) to ``count``."""
    text = value.strip() if isinstance(value, str) else value
    number = int(text) if isinstance(text, str) and text.isascii() and text.isdigit() else text
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        given = _escape(str(value))[:40]
        raise MemError(f"version must be a number from 1 to {count} (see `mem memories history`; got '{given}')")
    return number


def is_memory_id(value: str) -> bool:
    """Whether ``value`` names a memory by its id (``mem_`` and hex)."""
    return _ID.fullmatch(value) is not None


# -- content ------------------------------------------------------------------

#: what ``--content-file`` and stdin may hold beyond the content's own bound
#: (surrounding white space, trimmed before the bound is checked)
_CONTENT_SLACK = 4096


def read_bounded(path: str | None, limit: int) -> tuple[str, bytes]:
    """The name of a file (``path``) or of stdin (``None``, named ``stdin``),
    and at most ``limit + 1`` of its bytes: more than ``limit`` says it is
    too large. A failed read is a one-line error."""
    import sys

    name = "stdin" if path is None else path
    try:
        if path is None:
            return name, sys.stdin.buffer.read(limit + 1)
        with open(path, "rb") as fh:
            return name, fh.read(limit + 1)
    except OSError as exc:
        raise MemError(f"Cannot read {name}: {exc.strerror or exc}.") from None


def read_content(path: str | None) -> str:
    """The content of a memory from a file (``path``) or from stdin (``None``):
    UTF-8, at most the content's bound (``CONTENT_MAX_BYTES``, surrounding
    white space aside); anything else is a one-line error."""
    limit = CONTENT_MAX_BYTES + _CONTENT_SLACK
    name, data = read_bounded(path, limit)
    if len(data) > limit:
        raise MemError(f"{name} holds more than {CONTENT_MAX_BYTES} bytes; a memory's content is at most that")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemError(f"{name} is not UTF-8 text (byte {exc.start + 1})") from None


def content_of(words: list[str] | None, text: str | None, file: str | None) -> str:
    """The content ``mem remember`` was given: its words, ``--content``,
    ``--content-file``, or ``-`` (one word) for stdin — exactly one of them."""
    given = [kind for kind, value in (("words", words), ("text", text), ("file", file)) if value]
    if not given:
        raise MemError(
            "content is missing: give it after the key (after -- when it starts with -), "
            "with --content TEXT or --content-file FILE, or - to read it from stdin"
        )
    if len(given) > 1:
        raise MemError("give the content once: as words, with --content, with --content-file, or - for stdin")
    if file is not None:
        return read_content(file)
    if text is not None:
        return text
    assert words is not None
    if words == ["-"]:
        return read_content(None)
    return " ".join(words)
