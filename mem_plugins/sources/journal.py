"""Note source: the append-only event journal ``.bmad/memory/journal.ndjson``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mem_core import hookimpl
from mem_core.clock import DAY_MS, parse_ms
from mem_core.errors import MemError
from mem_core.files import safe_file
from mem_core.interfaces import Candidate, NoteSource, RecallRequest
from mem_core.journal.records import JOURNAL, read_events
from mem_core.js.jsonfmt import dumps
from mem_core.js.values import js_string, truthy

HALF_LIFE_DAYS = 30
_TEXT_KEYS = ("agent", "cli", "model", "task", "outcome")


class JournalSource(NoteSource):
    """Journal events, each scored on ``agent cli model task outcome {signals}``
    and halved in weight every 30 days of age."""

    name = "journal"
    order = 10

    def candidates(self, request: RecallRequest) -> Iterator[Candidate]:
        keep = _line_filter(request.match_tokens)
        if request.strict:
            safe_file(request.project, JOURNAL)
            events = read_events(request.project, keep)
        else:
            try:
                events = read_events(request.project, keep)
            except MemError as exc:
                request.skip(JOURNAL, exc.message)
                return
        now_ms = request.now_ms
        signals_json = _SignalsJSON()
        for event in events:
            if event is None:  # as the reference fails on a `null` line
                raise MemError("Cannot read properties of null (reading 'agent')")
            parts = [v if v.__class__ is str else _text(v) for v in map(event.get, _TEXT_KEYS)]
            parts.append(signals_json(event.get("signals")))
            # JS `.filter(Boolean)` tests the values: [] is kept (and shows as "")
            text = " ".join([p for p in parts if p is not None and (p or p.__class__ is _Shown)])
            if truthy(event.get("id")):
                ref = event["id"]
            else:
                ref = js_string(event["ts"]) if "ts" in event else "undefined"
            yield Candidate(
                scored_text=text,
                fields={"kind": "event", "source": "journal.ndjson", "ref": ref, "text": text, "event": event},
                weight=_decay(event.get("ts"), now_ms),
            )


def _line_filter(tokens: list[str] | None) -> Callable[[str], bool] | None:
    """A test on raw journal lines that refuses only lines whose event text
    cannot contain a query token, so they need not be parsed.

    Without a backslash in the line, every string in the event text is a
    literal piece of the line, so a token absent from the lower-cased line is
    absent from the text. Tokens with digits (numbers are re-formatted:
    ``1e2`` is shown as ``100``) and ``object`` (a non-string field is shown
    as ``[object Object]``) disable the test.
    """
    if not tokens or any(t == "object" or any(ch.isdigit() for ch in t) for t in tokens):
        return None

    import re

    search = re.compile("|".join(map(re.escape, tokens))).search

    def keep(line: str) -> bool:
        if "\\" in line or line == "null":
            return True
        return search(line.lower()) is not None

    return keep


class _Shown(str):
    """A truthy value whose text is empty (``[]``, ``[null]``): kept by the
    reference's ``filter(Boolean)``, so it still adds a separator."""


def _text(value: Any) -> str | None:
    """A non-string field as the reference's ``filter(Boolean).join(" ")``
    shows it; ``None`` when the reference filters it out."""
    if value is None or not truthy(value):
        return None
    return _Shown(js_string(value))


class _SignalsJSON:
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
            cached = self._seen[key] = dumps(signals)
        return cached


def _decay(ts: object, now_ms: float | None) -> float | Callable[[], float]:
    """The event's weight: ``0.5 ** (age_days / 30)``, computed only if needed."""
    if now_ms is None:
        return 1.0

    def weight() -> float:
        event_ms = parse_ms(ts)
        if event_ms is None or not now_ms > event_ms:
            return 1.0
        from mem_core.js.jsmath import js_pow  # bit-identical to V8's Math.pow

        return js_pow(0.5, (now_ms - event_ms) / DAY_MS / HALF_LIFE_DAYS)

    return weight


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [JournalSource]
