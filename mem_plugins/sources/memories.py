"""Note source: the project's structured memories (structured-memory.md) as
``kind:"memory"`` recall results.

Each unexpired memory of every mind is one candidate, scored by the same
ranker as every other candidate on :func:`mem_core.memories.records.recall_text`
(the key, the key's words, the content, the tags). A result's keys, after
``score``:

* ``kind`` — ``"memory"``;
* ``source`` — ``"memories"``;
* ``ref`` — ``"<category>/<key>"``;
* ``text`` — the content; ``"[unverified] "`` before it when no human has
  verified the memory (so the text output shows it too);
* ``verified`` — the memory's flag, repeated for convenience;
* ``memory`` — the whole memory (every field of the spec).

Results tie in the order of the spec's context summary, after the Markdown
notes and the portfolio brain (``order`` 40). With no store on disk this
source yields nothing and imports nothing: ``recall`` output and start-up
time stay what they were.

The user-level store is not recalled: finding it needs platformdirs, whose
import would add 10-20 ms to every ``recall``; its memories (who the user
is, what they prefer) reach an agent through ``mem context --user``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mem_core import hookimpl
from mem_core.interfaces import Candidate, MemoryStore, NoteSource, RecallRequest

#: rankers under which a memory with no query token among its recall terms
#: scores 0, so the store may preselect candidates by term
PRESELECTING_RANKINGS = ("lexical", "evidence")
UNVERIFIED_MARK = "[unverified] "


class StructuredMemories(NoteSource):
    """Keyed, categorized memories from the project's structured store."""

    name = "memories"
    order = 40

    def candidates(self, request: RecallRequest) -> Iterator[Candidate]:
        from mem_core.errors import MemError
        from mem_core.memories.records import PROJECT_STORE_DIR

        directory = os.path.join(request.project, PROJECT_STORE_DIR)
        try:
            backend = _backend(request, directory)
            if not backend.exists(directory):
                return
            records = _read(backend, request)
        except MemError as exc:
            if request.strict:
                raise
            request.skip(PROJECT_STORE_DIR, exc.message)
            return
        for record in records:
            yield _candidate(record)


def _backend(request: RecallRequest, directory: str) -> type[MemoryStore]:
    """The kernel's chosen store for the project (see :mod:`mem_core.memories.backend`)."""
    from mem_core.kernel.manager import Kernel
    from mem_core.memories.backend import choose_store
    from mem_core.settings import load_settings

    kernel = request.kernel if request.kernel is not None else Kernel(settings=load_settings(request.project))
    settings = kernel.settings.for_project(request.project)
    return choose_store(settings, kernel.stores, directory)


def _read(backend: type[MemoryStore], request: RecallRequest) -> list[dict[str, Any]]:
    from mem_core.memories.records import project_store_dir

    directory = project_store_dir(request.project)  # refuses symbolic links (mem-cli.md §8)
    tokens = list(request.tokens) if request.ranking in PRESELECTING_RANKINGS else None
    with backend.open(directory, create=False) as store:
        return store.recall_candidates(tokens, now=request.now)


def _candidate(record: dict[str, Any]) -> Candidate:
    from mem_core.memories.records import recall_text

    verified = record["verified"]
    return Candidate(
        scored_text=recall_text(record),
        fields={
            "kind": "memory",
            "source": "memories",
            "ref": f"{record['category']}/{record['key']}",
            "text": record["content"] if verified else UNVERIFIED_MARK + record["content"],
            "verified": verified,
            "memory": record,
        },
    )


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [StructuredMemories]
