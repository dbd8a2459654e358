"""Markdown notes: ``decisions.md``, ``lessons.md``, ``patterns.md`` split at
``### `` headings (mem-cli.md §1, §2)."""

from __future__ import annotations

import os
from collections.abc import Iterator

from mem_core.errors import MemError
from mem_core.files import AGENTS_MEMORY_DIR, MEMORY_DIR, read_text
from mem_core.interfaces import Candidate, RecallRequest
from mem_core.js.strings import js_trim
from mem_core.retrieval.text import split_sections

__all__ = ["NOTE_DIRS", "NOTE_FILES", "note_candidates"]

NOTE_DIRS = (MEMORY_DIR, AGENTS_MEMORY_DIR)
NOTE_FILES = ("decisions.md", "lessons.md", "patterns.md")


def note_candidates(request: RecallRequest, root: str, directory: str) -> Iterator[Candidate]:
    """Candidates of the three note files in ``root/directory``, read under the
    store's safety rules relative to ``root``.

    In strict mode an unsafe file is an error; otherwise it is skipped and
    reported on the request.
    """
    for name in NOTE_FILES:
        relative = f"{directory}/{name}"
        path = os.path.normpath(os.path.join(root, relative))
        # lexical recall reports an unsafe file (even a dangling link) and goes
        # on; strict (evidence) recall, like the reference, skips what does not
        # exist when links are followed
        exists = os.path.exists(path) if request.strict else os.path.lexists(path)
        if path in request.files_read or not exists:
            continue
        request.files_read.add(path)
        source_file = os.path.relpath(path, request.project).replace(os.sep, "/")
        try:
            markdown = read_text(root, relative, missing=True)
        except MemError as exc:
            if request.strict:
                raise
            request.skip(source_file, exc.message)
            continue
        if markdown is None:
            continue
        for heading, text in split_sections(markdown):
            scored = heading + "\n" + text
            yield Candidate(
                scored_text=scored,
                fields={
                    "kind": "note",
                    "source": name,
                    "sourceFile": source_file,
                    "ref": heading,
                    "text": js_trim(scored),
                },
            )
