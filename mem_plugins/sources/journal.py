"""Note source: the append-only event journal ``.bmad/memory/journal.ndjson``."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mem_core.plugin import (
    JOURNAL,
    JOURNAL_INDEXER,
    Candidate,
    CandidateBlock,
    DiskTermIndex,
    IndexCorrupt,
    IndexedSource,
    MemError,
    NoteSource,
    OnSecondUse,
    Query,
    SignalsJSON,
    SourceContext,
    TermIndex,
    Terms,
    decay,
    event_candidate,
    event_fields,
    event_of_line,
    js_trim,
)

if TYPE_CHECKING:
    from typing import Any


#: where ``mem archive`` puts the oldest lines (mem_core.api.archive.ARCHIVE_DIR)
ARCHIVE_DIR = ".bmad/memory/archive"


class JournalSource(NoteSource):
    """Journal events, each scored on ``agent cli model task outcome {signals}``
    and halved in weight every 30 days of age."""

    name = "journal"
    help = "events of .bmad/memory/journal.ndjson, halved in weight every 30 days"
    order = 10

    def candidates(self, query: Query, context: SourceContext) -> Iterator[Candidate | CandidateBlock]:
        archive = os.path.isdir(os.path.join(query.project, ARCHIVE_DIR))  # no archive: one stat
        if not archive:
            # with an archive the live text decides which archived lines count
            # (_archived), so the journal is read as it is, not through the index
            indexed = context.indexed(query.project, JOURNAL, JOURNAL_INDEXER)
            if indexed is not None:
                return _indexed_candidates(indexed, query)
        journal = context.cached(query.project, JOURNAL, JournalFile)
        live = iter(()) if journal is None else journal.candidates(query)
        if not archive:
            return live
        return itertools.chain(_archived(query, context, journal), live)


def _archived(
    query: Query, context: SourceContext, journal: JournalFile | None
) -> Iterator[Candidate | CandidateBlock]:
    """The events of ``mem archive``'s journal archives, oldest first (so
    that ties sort as they did in the live journal). An archive whose text
    is still the beginning of the live journal (a run interrupted before
    its cut) is left out: its events are counted once, in the journal."""
    try:
        names = sorted(
            n
            for n in os.listdir(os.path.join(query.project, ARCHIVE_DIR))
            if n.startswith("journal-") and n.endswith(".ndjson")
        )
    except OSError:
        return
    live = journal.text if journal is not None else ""
    for name in names:
        archived = context.cached(query.project, f"{ARCHIVE_DIR}/{name}", JournalFile)
        if archived is None or (archived.text and live.startswith(archived.text)):
            continue
        yield from archived.candidates(query)


class JournalFile:
    """One version of the journal, as the kernel's file cache keeps it.

    The first recall reads it as a one-shot ``mem recall`` does: only the
    lines that may hold a query token are parsed. From the second on, every
    event is parsed once, its text tokenized once, and a token index gives
    the events sharing a token with the query; only the decay weight, which
    depends on the recall's clock, is made per recall.
    """

    __slots__ = ("_text", "_events")

    def __init__(self, text: str) -> None:
        self._text = text
        # no reference back to self: a one-shot recall frees it without the cyclic GC
        self._events: OnSecondUse[_Events] = OnSecondUse(partial(_Events, text))

    @property
    def text(self) -> str:
        return self._text

    def candidates(self, query: Query) -> Iterator[Candidate | CandidateBlock]:
        events = self._events.get()
        if events is None:
            return _candidates(self._text, query)
        return events.candidates(query)


class _Events:
    """Every event of a journal with its text, its result fields and its terms."""

    __slots__ = ("texts", "fields", "stamps", "index", "null", "_writers")

    def __init__(self, text: str) -> None:
        self.texts: list[str] = []
        self.fields: list[dict[str, Any]] = []
        self.stamps: list[Any] = []
        #: the journal holds a `null` line (the reference fails on it)
        self.null = False
        signals_json = SignalsJSON()
        for event in parse_lines(text):
            if event is None:
                self.null = True
                break
            try:
                scored, fields = event_fields(event, signals_json)
            except RecursionError:  # nested too deep to show: a corrupt line (§8)
                continue
            self.texts.append(scored)
            self.fields.append(fields)
            self.stamps.append(event.get("ts"))
        self.index = TermIndex(map(Terms.of, self.texts))
        #: the events each writer (``via``) wrote, found once: a long-lived
        #: kernel's prompt hook asks at every prompt
        self._writers: dict[frozenset[str], list[int]] = {}

    def written_via(self, via: frozenset[str]) -> list[int]:
        found = self._writers.get(via)
        if found is None:
            found = self._writers[via] = [n for n, item in enumerate(self.fields) if _via(item["event"]) in via]
        return found

    def candidates(self, query: Query) -> Iterator[CandidateBlock]:
        if self.null:
            raise MemError(NULL_EVENT)
        now_ms = query.now_ms
        texts, fields, stamps, terms = self.texts, self.fields, self.stamps, self.index.terms

        def make(i: int) -> Candidate:
            return Candidate(texts[i], fields[i], decay(stamps[i], now_ms), terms[i])

        skip = self.written_via(query.leave_out_via) if query.leave_out_via else ()
        yield CandidateBlock(self.index, make, tokens=query.match_tokens, skip=skip)


def _via(event: dict[str, Any]) -> Any:
    """What wrote an event when it was not an agent's ``mem write``."""
    return event.get("via")


NULL_EVENT = "Cannot read properties of null (reading 'agent')"


def _candidates(text: str, query: Query) -> Iterator[Candidate]:
    """The candidates of a journal's text for one recall, reading only the
    lines that may match."""
    events = parse_lines(text, _line_filter(query.match_tokens)) if text else []
    now_ms = query.now_ms
    signals_json = SignalsJSON()
    for event in events:
        if event is None:  # as the reference fails on a `null` line
            raise MemError(NULL_EVENT)
        if query.leave_out_via and _via(event) in query.leave_out_via:
            continue
        try:
            scored, fields = event_fields(event, signals_json)
        except RecursionError:  # nested too deep to show: a corrupt line (§8)
            continue
        yield Candidate(scored_text=scored, fields=fields, weight=decay(event.get("ts"), now_ms))


def _indexed_candidates(indexed: IndexedSource, query: Query) -> Iterator[CandidateBlock]:
    now_ms = query.now_ms
    stamps = indexed.column(2)
    starts = indexed.column(0)
    sizes = indexed.column(1)
    signals_json = SignalsJSON()

    def load(i: int) -> tuple[str, dict[str, Any]]:
        event = event_of_line(indexed.read(starts[i], sizes[i]))
        if event is None:
            raise IndexCorrupt(indexed.path or "")
        return event_fields(event, signals_json)

    def make(i: int) -> Candidate:
        return event_candidate(partial(load, i), stamps[i], now_ms)

    skip = _written_via(indexed, starts, sizes, query.leave_out_via) if query.leave_out_via else ()
    yield CandidateBlock(DiskTermIndex(indexed), make, tokens=query.match_tokens, skip=skip)


def _written_via(indexed: IndexedSource, starts: Any, sizes: Any, via: frozenset[str]) -> list[int]:
    """The positions of the indexed events whose ``via`` is one of ``via``.
    A ``"via":`` key outside a JSON string is one of an object's keys, so
    only the lines holding it are parsed (in a journal of agents' events,
    none), found in one read of the indexed lines."""
    import bisect

    count = len(starts)
    if not count:
        return []
    first = starts[0]
    data = indexed.read(first, starts[count - 1] + sizes[count - 1] - first)
    found: list[int] = []
    at = data.find(b'"via"')
    while at >= 0:
        n = bisect.bisect_right(starts, first + at) - 1
        start = starts[n] - first
        event = event_of_line(data[start : start + sizes[n]])
        if event is None:
            raise IndexCorrupt(indexed.path or "")
        if _via(event) in via:
            found.append(n)
        at = data.find(b'"via"', start + sizes[n])  # from the next line on
    return found


def parse_lines(text: str, keep: Callable[[str], bool] | None = None) -> list[dict[str, Any] | None]:
    """The JSON objects of an NDJSON text; blank and corrupt lines (and lines
    that hold something other than an object) are skipped, and so are the
    lines ``keep`` refuses, before they are parsed."""
    lines = [trimmed for trimmed in map(js_trim, text.split("\n")) if trimmed]
    if keep is not None:
        lines = [line for line in lines if keep(line)]
    if not lines:
        return []
    # imported here: a recall served by the index may parse no line at all, and then imports no json
    from mem_core.plugin import JSONError, json_loads

    try:  # the common case, every line valid: one parse for the whole file
        values = json_loads("[" + ",".join(lines) + "]")
    except JSONError:
        values = []
        for line in lines:
            try:
                values.append(json_loads(line))
            except JSONError:
                continue
    else:
        if len(values) != len(lines):  # a line like `1,2` joined into two values
            values = [v for line in lines for v in _one(line)]
    # JSON `null` is kept: the reference fails on it (`ev.agent` of null),
    # every other non-object is skipped (it can never match a query)
    return [value for value in values if value is None or isinstance(value, dict)]


def _one(line: str) -> list[Any]:
    from mem_core.plugin import JSONError, json_loads

    try:
        return [json_loads(line)]
    except JSONError:
        return []


def _line_filter(tokens: Sequence[str] | None) -> Callable[[str], bool] | None:
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

    search = re.compile("|".join(map(re.escape, tokens))).search

    def keep(line: str) -> bool:
        if "\\" in line or line == "null":
            return True
        return search(line.lower()) is not None

    return keep
