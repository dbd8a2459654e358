"""What the two Markdown note sources share (``notes`` and ``portfolio``):
the note files of one directory as recall candidates. A helper module, not a
plugin: each source uses it for its own directories."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core.plugin import NOTE_FILES, Candidate, SourceContext


def note_candidates(context: SourceContext, root: str, directory: str) -> Iterator[Candidate]:
    """One candidate per ``### `` section of ``decisions.md``, ``lessons.md``
    and ``patterns.md`` in ``root/directory``, read through ``context`` (a
    file reached twice in one recall is read once)."""
    for file_name in NOTE_FILES:
        note = context.sections(root, f"{directory}/{file_name}")
        if note is not None:
            path, sections = note
            for heading, text in sections:
                yield Candidate.note(heading, text, source=file_name, source_file=path)
