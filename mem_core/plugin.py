"""Everything a plugin author imports: ``from mem_core.plugin import …``.

A plugin is a module (or object) with :data:`hookimpl` functions named after
the hooks of :mod:`mem_core.hookspecs`; each registration hook returns classes
deriving from the base classes below. Nothing else in ``mem_core`` is public
to plugins: what a plugin needs is given to it as arguments.
"""

from __future__ import annotations

from mem_core import hookimpl
from mem_core.errors import MemError
from mem_core.interfaces import Candidate, MemoryStore, NoteSource, OutcomeVerifier, Ranker, RecallRequest, RewardSignal
from mem_core.memories.records import FIELDS as MEMORY_FIELDS
from mem_core.memories.records import MemoryFilter, recall_terms, sort_records

__all__ = [
    "hookimpl",
    "MemError",
    "Candidate",
    "RecallRequest",
    "NoteSource",
    "Ranker",
    "RewardSignal",
    "OutcomeVerifier",
    "MemoryStore",
    "MemoryFilter",
    "MEMORY_FIELDS",
    "sort_records",
    "recall_terms",
]
