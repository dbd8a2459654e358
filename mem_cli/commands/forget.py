"""``mem forget``: delete a structured memory (its history keeps a tombstone)."""

from __future__ import annotations

from mem_cli.commands import one_memory_by_a_human

COMMAND = one_memory_by_a_human(
    "forget",
    "Delete a structured memory (its history keeps a tombstone); one a human confirmed is deleted only with "
    "you at the terminal (your human key's passphrase, or a yes where no human key is trusted).",
)
