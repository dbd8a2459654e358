"""Where the files of the ``.bmad/memory`` protocol live (docs/contract.md §2–§8).

Every path is project-relative, with ``/`` separators, as
:func:`mem_core.files.safe_file` takes it. ``bmad-plus mem`` reads and writes
the same files.
"""

from __future__ import annotations

__all__ = [
    "MEMORY_DIR",
    "AGENTS_MEMORY_DIR",
    "JOURNAL",
    "PATTERN_SCORES",
    "PROMOTIONS",
    "OUTCOMES",
    "LOCK",
]

#: the project's memory directory
MEMORY_DIR = ".bmad/memory"
#: the agents' Markdown notes, beside the project's (read by recall)
AGENTS_MEMORY_DIR = ".agents/memory"
#: the append-only event journal (``mem write``)
JOURNAL = MEMORY_DIR + "/journal.ndjson"
#: the pattern scores, replaced atomically (``mem reinforce``)
PATTERN_SCORES = MEMORY_DIR + "/pattern-scores.json"
#: the proposed promotions (``mem reinforce``)
PROMOTIONS = MEMORY_DIR + "/promotions.ndjson"
#: the evidence receipts (``mem observe``)
OUTCOMES = MEMORY_DIR + "/outcomes.ndjson"
#: the writer lock of every tool writing the files above (docs/contract.md §8)
LOCK = MEMORY_DIR + "/writer.lock"
