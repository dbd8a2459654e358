"""Note source ``notes``: the team's Markdown notes, ``decisions.md``,
``lessons.md`` and ``patterns.md`` in ``.bmad/memory/`` and
``.agents/memory/``, one candidate per ``### `` section."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core.plugin import NOTE_DIRS, NOTE_FILES, Candidate, NoteSource, Query, SourceContext, hookimpl


class MarkdownNotes(NoteSource):
    """``### `` sections of the project's note files (a file reached twice,
    through two note directories, is read once)."""

    name = "notes"
    help = "### sections of .bmad/memory and .agents/memory decisions.md, lessons.md, patterns.md"
    order = 20

    def candidates(self, query: Query, context: SourceContext) -> Iterator[Candidate]:
        for directory in NOTE_DIRS:
            for file_name in NOTE_FILES:
                note = context.sections(query.project, f"{directory}/{file_name}")
                if note is not None:
                    path, sections = note
                    for heading, text in sections:
                        yield Candidate.note(heading, text, source=file_name, source_file=path)


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [MarkdownNotes]
