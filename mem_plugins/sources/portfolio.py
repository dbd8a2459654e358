"""Note source ``portfolio``: the portfolio brain, ``<portfolio>/memory/``,
shared by many projects; active with ``--scope portfolio --portfolio <path>``."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core.plugin import Candidate, CandidateBlock, NoteSource, Query, SourceContext
from mem_plugins.sources.markdown import note_candidates


class PortfolioBrain(NoteSource):
    """The brain's decisions.md, lessons.md and patterns.md."""

    name = "portfolio"
    help = "the portfolio brain's memory/ notes (--scope portfolio --portfolio <path>)"
    order = 30

    def active(self, query: Query) -> bool:
        return query.scope == "portfolio" and bool(query.portfolio)

    def candidates(self, query: Query, context: SourceContext) -> Iterator[Candidate | CandidateBlock]:
        assert query.portfolio is not None
        yield from note_candidates(context, query.portfolio, "memory", query)
