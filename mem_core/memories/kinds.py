"""The value sets of structured memories, each defined once: the validation,
the results, the MCP tools' schemas and the SQL stores' ``CHECK``
constraints (:func:`sql_in`) are all made from these tuples."""

from __future__ import annotations

__all__ = [
    "CATEGORIES",
    "PRIORITIES",
    "SOURCES",
    "STORES",
    "BACKENDS",
    "VERIFICATIONS",
    "MARKS",
    "ACTIONS",
    "sql_in",
    "sql_priority_rank",
]

#: the eight categories, in the spec's order
CATEGORIES = ("identity", "preference", "fact", "project", "skill", "mistake", "context", "note")
#: the four priorities, most important first (the order of the context summary)
PRIORITIES = ("critical", "high", "normal", "low")
#: who stored a memory
SOURCES = ("user", "agent")
#: where a store lives: the project's ``.bmad/memory/`` or the user-level directory
STORES = ("project", "user")
#: the built-in store backends, by their plugins' names
BACKENDS = ("sqlite", "postgres", "server")
#: how a memory's ``verified`` was decided (:mod:`mem_core.memories.trust`)
VERIFICATIONS = ("signed", "terminal", "signature-invalid", "unsigned")
#: the trust mark text shows for each verification
MARKS = dict(
    zip(VERIFICATIONS, ("verified", "verified (terminal)", "unverified (signature invalid)", "unverified"), strict=True)
)
#: what a history entry records
ACTIONS = ("create", "update", "verify", "restore", "delete")


def sql_in(values: tuple[str, ...]) -> str:
    """The SQL list of ``values`` for ``CHECK (column IN …)``: ``('a', 'b')``."""
    return "(" + ", ".join(f"'{value}'" for value in values) + ")"


def sql_priority_rank(column: str) -> str:
    """The SQL expression of a priority's rank (0: the most important)."""
    ranks = " ".join(f"WHEN '{name}' THEN {rank}" for rank, name in enumerate(PRIORITIES[:-1]))
    return f"CASE {column} {ranks} ELSE {len(PRIORITIES) - 1} END"
