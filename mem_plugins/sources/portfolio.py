"""Note source: the portfolio brain, ``<portfolio>/memory/``, shared by many
projects; active with ``--scope portfolio --portfolio <path>``."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core import hookimpl
from mem_core.interfaces import Candidate, NoteSource, RecallRequest
from mem_core.retrieval.notes import note_candidates


class PortfolioBrain(NoteSource):
    """The brain's decisions.md, lessons.md and patterns.md."""

    name = "portfolio"
    order = 30

    def active(self, request: RecallRequest) -> bool:
        return request.scope == "portfolio" and bool(request.portfolio)

    def candidates(self, request: RecallRequest) -> Iterator[Candidate]:
        assert request.portfolio is not None
        yield from note_candidates(request, request.portfolio, "memory")


@hookimpl
def mem_register_note_sources() -> list[type[NoteSource]]:
    return [PortfolioBrain]
