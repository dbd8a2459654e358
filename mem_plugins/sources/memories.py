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
* ``verified`` — whether a trusted human's signature (or, where no key is
  trusted, a terminal confirmation) covers its current content, computed
  here from its signatures (mem_core.memories.trust), never the store's column;
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
from typing import TYPE_CHECKING

from mem_core.plugin import (
    PROJECT_STORE_DIR,
    Candidate,
    MemError,
    NoteSource,
    Query,
    SourceContext,
    project_store_dir,
    recall_text,
)

if TYPE_CHECKING:
    from typing import Any

UNVERIFIED_MARK = "[unverified] "


class StructuredMemories(NoteSource):
    """Keyed, categorized memories from the project's structured store."""

    name = "memories"
    help = "the project's structured memories (mem remember)"
    order = 40

    def candidates(self, query: Query, context: SourceContext) -> Iterator[Candidate]:
        if context.memory_store_absent():
            return
        directory = os.path.join(query.project, PROJECT_STORE_DIR)
        try:
            backend = context.memory_store()
            if not backend.exists(directory):
                return
            # the ranker drops what shares no word with the query: the store
            # may leave out memories none of whose recall terms is a token
            tokens = list(query.tokens) if query.match_tokens is not None else None
            with backend.open_read_only(project_store_dir(query.project)) as store:
                records = _judged(store.recall_candidates(tokens, now=query.now), store, query.project)
        except MemError as exc:
            if query.strict:
                raise
            context.skip(PROJECT_STORE_DIR, exc.message)
            return
        for record in records:
            yield _candidate(record)


def _judged(records: list[dict[str, Any]], store: Any, project: str) -> list[dict[str, Any]]:
    """``verified`` and ``source`` as the memories' signatures say (the
    store's columns are only what was claimed); with no signature among
    them, nothing more is imported or read."""
    signatures = store.signatures_of([r["id"] for r in records]) if records else {}
    if not signatures:
        return [{**r, "verified": False, "source": "agent", "verification": "unsigned"} for r in records]
    from mem_core.plugin import judge_records

    return judge_records(records, store, project, signatures=signatures)


def _candidate(record: dict[str, Any]) -> Candidate:
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
