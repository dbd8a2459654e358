"""The messages of ``mem observe`` and ``mem outcomes`` (docs/contract.md §5, §6),
word for word those of ``bmad-plus mem``. A module of its own so that the
evidence API and the records it validates both import them.
"""

from __future__ import annotations

__all__ = [
    "INPUT_REQUIRED",
    "INCOMPLETE",
    "TOO_MANY",
    "INTEGRITY",
    "EARLIER",
    "IDENTITY",
    "DUPLICATE",
    "MEMORY_FILE",
    "ONE_SECTION",
    "SCOPE_REQUIRED",
    "SCOPE_PATH",
    "SCOPE_EXCEEDS",
    "RELATION_LIST",
    "RELATION_SCOPE",
    "BOTH",
    "CHANGED",
    "FULL",
]

INPUT_REQUIRED = "Outcome input is required."
INCOMPLETE = "Outcome store has an incomplete final record."
TOO_MANY = "Outcome store exceeds 1000 records."
INTEGRITY = "Outcome receipt integrity or uniqueness check failed."
EARLIER = "Outcome relationships must identify earlier receipts."
IDENTITY = "Duplicate or missing outcome attempt identity."
DUPLICATE = "Duplicate outcome: this task attempt already supplied a receipt."
MEMORY_FILE = "Outcome memory source must be a project decisions, lessons or patterns Markdown file."
ONE_SECTION = "Memory heading must identify exactly one section."
SCOPE_REQUIRED = "An explicit non-empty project scope is required."
SCOPE_PATH = "Outcome scope must be a normalized relative path."
SCOPE_EXCEEDS = "Outcome scope exceeds the accepted task scope."
RELATION_LIST = "Outcome relationships must be a unique bounded receipt-ID list."
RELATION_SCOPE = "Related outcome must exist in the same applicable project scope."
BOTH = "A receipt cannot be both superseded and contradicted."
CHANGED = "Outcome sources changed while being observed."
FULL = "Outcome store is full; archive it explicitly."
