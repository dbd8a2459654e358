"""What the two Markdown note sources share (``notes`` and ``portfolio``):
the note files of one directory as recall candidates. A helper module, not a
plugin: each source uses it for its own directories."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from mem_core.plugin import (
    NOTE_FILES,
    NOTE_INDEXER,
    Candidate,
    CandidateBlock,
    DiskTermIndex,
    IndexedNote,
    IndexedSource,
    LazyCandidate,
    OnSecondUse,
    Query,
    SourceContext,
    TermIndex,
    note_of_blob,
    split_sections,
)

if TYPE_CHECKING:
    from typing import Any


def note_candidates(
    context: SourceContext, root: str, directory: str, query: Query
) -> Iterator[Candidate | CandidateBlock]:
    """One candidate per ``### `` section of ``decisions.md``, ``lessons.md``
    and ``patterns.md`` in ``root/directory``, read through ``context`` (a
    file reached twice in one recall is read once); with
    ``query.match_tokens``, only those sharing a token with it once the file
    is indexed."""
    for file_name in NOTE_FILES:
        note = context.note(root, f"{directory}/{file_name}", NoteFile, indexer=NOTE_INDEXER)
        if isinstance(note, IndexedNote):
            yield _indexed_candidates(note.source, note.shown, query)
        elif note is not None:
            yield from note.candidates(query)


def _indexed_candidates(source: IndexedSource, shown: str, query: Query) -> CandidateBlock:
    name = shown.rsplit("/", 1)[-1]

    def load(i: int) -> tuple[str, Any]:
        heading, text = note_of_blob(source.blob(i))
        note = Candidate.note(heading, text, source=name, source_file=shown)
        return note.scored_text, note.fields

    def make(i: int) -> Candidate:
        return LazyCandidate(partial(load, i), 1.0)

    return CandidateBlock(DiskTermIndex(source), make, tokens=query.match_tokens, unit_weight=True)


class NoteFile:
    """One version of a note file, as the kernel's file cache keeps it: its
    sections, and from its second use on, their candidates (read-only, with
    their terms) and a token index over them."""

    __slots__ = ("name", "shown", "sections", "_indexed")

    def __init__(self, text: str, shown: str) -> None:
        self.shown = shown
        self.name = shown.rsplit("/", 1)[-1]
        self.sections = tuple(split_sections(text))
        # no reference back to self: a one-shot recall frees it without the cyclic GC
        self._indexed: OnSecondUse[tuple[list[Candidate], TermIndex]] = OnSecondUse(
            partial(_index, self.sections, self.name, self.shown)
        )

    def candidates(self, query: Query) -> Iterable[Candidate | CandidateBlock]:
        indexed = self._indexed.get()
        if indexed is None:
            return (
                Candidate.note(heading, text, source=self.name, source_file=self.shown)
                for heading, text in self.sections
            )
        candidates, index = indexed
        return (CandidateBlock(index, candidates.__getitem__, tokens=query.match_tokens, unit_weight=True),)


def _index(sections: tuple[tuple[str, str], ...], name: str, shown: str) -> tuple[list[Candidate], TermIndex]:
    candidates = [
        Candidate.note(heading, text, source=name, source_file=shown, terms=True) for heading, text in sections
    ]
    return candidates, TermIndex(c.terms for c in candidates)  # type: ignore[misc]
