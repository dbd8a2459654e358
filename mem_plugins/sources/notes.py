"""Note source: the team's Markdown notes in ``.bmad/memory/`` and ``.agents/memory/``."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core import hookimpl
from mem_core.interfaces import Candidate, NoteSource, RecallRequest
from mem_core.retrieval.notes import NOTE_DIRS, note_candidates


class MarkdownNotes(NoteSource):
    """``### `` sections of decisions.md, lessons.md and patterns.md."""

    name = "notes"
    order = 20

    def candidates(self, request: RecallRequest) -> Iterator[Candidate]:
        for directory in NOTE_DIRS:
            yield from note_candidates(request, request.project, directory)


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [MarkdownNotes]
