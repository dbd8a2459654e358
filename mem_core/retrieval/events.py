"""A journal event as recall sees it (docs/contract.md §2): the text it is scored
on, its ``ref``, its result fields and its weight (halved every 30 days of
age). Shared by the ``journal`` note source and the portfolio index, which
must make the same candidate from the same line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mem_core.clock import parse_ms
from mem_core.js.jsmath import js_pow
from mem_core.js.values import js_string, truthy
from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

    from mem_core.retrieval.diskindex import LazyCandidate

__all__ = [
    "HALF_LIFE_DAYS",
    "DAY_MS",
    "SignalsJSON",
    "event_text",
    "event_fields",
    "event_of_line",
    "event_ms",
    "decay",
    "event_candidate",
]

HALF_LIFE_DAYS = 30
DAY_MS = 86_400_000
_TEXT_KEYS = ("agent", "cli", "model", "task", "outcome")
#: an ISO-8601 UTC time, which ``Date.parse`` reads the same in every time zone
_UTC = lazy(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,3})?Z\Z")
_NAN = float("nan")
_INF = float("inf")


class _Shown(str):
    """A truthy value whose text is empty (``[]``, ``[null]``): kept by the
    reference's ``filter(Boolean)``, so it still adds a separator."""


def _text(value: Any) -> str | None:
    """A non-string field as the reference's ``filter(Boolean).join(" ")``
    shows it; ``None`` when the reference filters it out."""
    if value is None or not truthy(value):
        return None
    return _Shown(js_string(value))


class SignalsJSON:
    """``JSON.stringify(event.signals || {})``, memoised: journals repeat the
    same few signal sets (``{"ci":"pass"}`` …) thousands of times."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, signals: Any) -> str:
        if not truthy(signals):
            return "{}"
        key = repr(signals)  # unambiguous for parsed JSON (True vs 1, 1.0 vs 1)
        cached = self._seen.get(key)
        if cached is None:
            from mem_core.js.jsonfmt import dumps  # only when an event has signals

            cached = self._seen[key] = dumps(signals)
        return cached


def event_text(event: dict[str, Any], signals_json: SignalsJSON) -> tuple[str, Any]:
    """An event's scored text (``agent cli model task outcome {signals}``)
    and its ``ref`` (its id, else its ``ts``). ``RecursionError`` for an
    event nested too deep to show."""
    parts = [v if v.__class__ is str else _text(v) for v in map(event.get, _TEXT_KEYS)]
    parts.append(signals_json(event.get("signals")))
    # JS `.filter(Boolean)` tests the values: [] is kept (and shows as "")
    text = " ".join([p for p in parts if p is not None and (p or p.__class__ is _Shown)])
    if truthy(event.get("id")):
        ref = event["id"]
    else:
        ref = js_string(event["ts"]) if "ts" in event else "undefined"
    return text, ref


def event_fields(event: dict[str, Any], signals_json: SignalsJSON) -> tuple[str, dict[str, Any]]:
    """An event's scored text and its result fields."""
    scored, ref = event_text(event, signals_json)
    return scored, {"kind": "event", "source": "journal.ndjson", "ref": ref, "text": scored, "event": event}


def event_of_line(raw: bytes) -> dict[str, Any] | None:
    """The event of one journal line (``None``: not one)."""
    from mem_core.js.jsonfmt import JSONError, loads
    from mem_core.js.strings import js_trim

    try:
        event = loads(js_trim(raw.decode("utf-8")))
    except (JSONError, UnicodeDecodeError):
        return None
    return event if isinstance(event, dict) else None


def event_ms(ts: Any) -> float:
    """``parse_ms(ts)`` where it is the same everywhere (a number, no value,
    an ISO-8601 UTC string): +inf for None (weight 1, as for ``None``), NaN
    for anything else (parsed when needed)."""
    if ts is None or ts is True or ts is False:
        return _INF
    if ts.__class__ is int or ts.__class__ is float:
        return float(ts)
    if ts.__class__ is str and _UTC.match(ts):
        ms = parse_ms(ts)
        return _INF if ms is None else ms
    return _NAN


def _weight(event_ms: float | None, now_ms: float) -> float:
    if event_ms is None or not now_ms > event_ms:
        return 1.0
    return js_pow(0.5, (now_ms - event_ms) / DAY_MS / HALF_LIFE_DAYS)  # V8's Math.pow, bit for bit


def decay(ts: object, now_ms: float | None) -> float | Callable[[], float]:
    """The event's weight: ``0.5 ** (age_days / 30)``, computed only if needed."""
    if now_ms is None:
        return 1.0
    return lambda: _weight(parse_ms(ts), now_ms)


def event_candidate(
    load: Callable[[], tuple[str, dict[str, Any]]], stamp: float, now_ms: float | None
) -> LazyCandidate:
    """An indexed journal event as a candidate read on demand by ``load``,
    weighted by its age from the indexed ``stamp`` (:func:`event_ms`) — or,
    when the index could not know it (NaN), from the event itself."""
    from mem_core.retrieval.diskindex import LazyCandidate

    if now_ms is None:
        return LazyCandidate(load, 1.0)
    candidate: LazyCandidate

    def weight() -> float:
        if stamp != stamp:  # NaN: not known without the event
            return _weight(parse_ms(candidate.fields["event"].get("ts")), now_ms)
        return _weight(stamp, now_ms)

    candidate = LazyCandidate(load, weight)
    return candidate
