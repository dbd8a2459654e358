"""Note source: the append-only event journal ``.bmad/memory/journal.ndjson``."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core import hookimpl
from mem_core.clock import DAY_MS, parse_ms
from mem_core.errors import MemError
from mem_core.interfaces import Candidate, NoteSource, RecallRequest
from mem_core.journal import JOURNAL, read_events
from mem_core.jsonfmt import dumps
from mem_core.jsvalues import js_string, truthy
from mem_core.store import safe_file

HALF_LIFE_DAYS = 30

class JournalSource(NoteSource):
    """Journal events, each scored on ``agent cli model task outcome {signals}``
    and halved in weight every 30 days of age."""

    name = "journal"
    order = 10

    def candidates(self, request: RecallRequest) -> Iterator[Candidate]:
        if request.strict:
            safe_file(request.project, JOURNAL)
            events = read_events(request.project)
        else:
            try:
                events = read_events(request.project)
            except MemError as exc:
                request.skip(JOURNAL, exc.message)
                return
        for event in events:
            parts = [event.get(k) for k in ("agent", "cli", "model", "task", "outcome")]
            signals = event.get("signals")
            parts.append(dumps(signals if truthy(signals) else {}))
            text = " ".join(js_string(p) for p in parts if truthy(p))
            if truthy(event.get("id")):
                ref = event["id"]
            else:
                ref = js_string(event["ts"]) if "ts" in event else "undefined"
            yield Candidate(
                scored_text=text,
                fields={
                    "kind": "event",
                    "source": "journal.ndjson",
                    "ref": ref,
                    "text": text,
                    "event": event,
                },
                weight=_decay(event.get("ts"), request.now_ms),
            )


def _decay(ts: object, now_ms: float | None) -> float:
    if now_ms is None:
        return 1.0
    event_ms = parse_ms(ts)
    if event_ms is None or not now_ms > event_ms:
        return 1.0
    from mem_core.jsmath import js_pow  # bit-identical to V8's Math.pow

    return js_pow(0.5, (now_ms - event_ms) / DAY_MS / HALF_LIFE_DAYS)


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [JournalSource]
