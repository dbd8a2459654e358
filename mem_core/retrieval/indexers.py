"""The indexers of the two shared file formats — the journal and the
Markdown note files — for the on-disk recall index
(:mod:`mem_core.retrieval.diskindex`): one definition, used by the
``journal`` and ``notes`` sources and by the portfolio index, so that a
document is the same whichever of them indexed it."""

from __future__ import annotations

from mem_core.files.markdown import split_sections
from mem_core.js.strings import js_trim
from mem_core.retrieval.diskindex import Built, Doc, Indexer
from mem_core.retrieval.events import SignalsJSON, event_ms, event_text

__all__ = ["JOURNAL_INDEXER", "NOTE_INDEXER", "note_blob", "note_of_blob"]


class JournalIndexer(Indexer):
    """The journal: one document per event line, with the line's byte
    offset and length (read back for a result) and the event's time in
    milliseconds when it does not depend on the local time zone (else NaN:
    parsed from the event when weighed, :func:`~mem_core.retrieval.events.event_ms`).

    Only a journal whose every non-blank line is one JSON value on its own
    is indexed: then the reference's whole-file parse and a parse line by
    line agree, with or without a line filter. A corrupt line (or a
    ``null`` one, which fails recall) leaves the file to the unindexed path."""

    key = "journal/1"
    columns = "QId"
    lines = True

    def build(self, data: bytes, base: int) -> Built:
        from mem_core.js import jsonfmt  # a recall served by the index parses no line

        docs: list[Doc] = []
        signals_json = SignalsJSON()
        offset = base
        for raw in data.split(b"\n"):
            start = offset
            offset += len(raw) + 1
            line = js_trim(raw.decode("utf-8"))
            if not line:
                continue
            try:
                event = jsonfmt.loads(line)
            except jsonfmt.JSONError:
                return Built(None)
            if event is None:
                return Built(None)
            if not isinstance(event, dict):
                continue
            scored, _ref = event_text(event, signals_json)
            docs.append(Doc(scored, (start, len(raw), event_ms(event.get("ts")))))
        return Built(docs)


def note_blob(heading: str, text: str) -> bytes:
    """A note section as the index keeps it (:func:`note_of_blob` reads it)."""
    head = heading.encode("utf-8", "surrogatepass")
    return len(head).to_bytes(4, "little") + head + text.encode("utf-8", "surrogatepass")


def note_of_blob(blob: bytes) -> tuple[str, str]:
    """The ``(heading, text)`` of a section kept by :func:`note_blob`."""
    size = int.from_bytes(blob[:4], "little")
    return blob[4 : 4 + size].decode("utf-8", "surrogatepass"), blob[4 + size :].decode("utf-8", "surrogatepass")


class NoteIndexer(Indexer):
    """A note file: one document per ``### `` section (scored on its heading
    and text, the heading its first line), its heading and text kept in the
    index (a result is made from them, as :meth:`Candidate.note` makes it)."""

    key = "note/1"
    columns = ""

    def build(self, data: bytes, base: int) -> Built:
        return Built(
            [
                Doc(heading + "\n" + text, (), note_blob(heading, text), headed=True)
                for heading, text in split_sections(data.decode("utf-8"))
            ]
        )


JOURNAL_INDEXER = JournalIndexer()
NOTE_INDEXER = NoteIndexer()
