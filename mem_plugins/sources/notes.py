"""Note source ``notes``: the team's Markdown notes, ``decisions.md``,
``lessons.md`` and ``patterns.md`` in ``.bmad/memory/`` and
``.agents/memory/``, one candidate per ``### `` section."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core.plugin import NOTE_DIRS, Candidate, CandidateBlock, NoteSource, Query, SourceContext
from mem_plugins.sources.markdown import note_candidates


class MarkdownNotes(NoteSource):
    """``### `` sections of the project's note files (a file reached twice,
    through two note directories, is read once)."""

    name = "notes"
    help = "### sections of .bmad/memory and .agents/memory decisions.md, lessons.md, patterns.md"
    order = 20

    def candidates(self, query: Query, context: SourceContext) -> Iterator[Candidate | CandidateBlock]:
        for directory in NOTE_DIRS:
            yield from note_candidates(context, query.project, directory, query)
