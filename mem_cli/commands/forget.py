"""``mem forget``: delete a structured memory (its history keeps a tombstone)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_cli.commands import one_memory_by_a_human

if TYPE_CHECKING:
    from typing import Any


def _load() -> tuple[Any, Any]:
    from mem_cli import render
    from mem_core.api.memories import forget

    return forget, render.forget


COMMAND = one_memory_by_a_human(
    "forget",
    "Delete a structured memory (its history keeps a tombstone); one a human confirmed is deleted only with "
    "you at the terminal (your human key's passphrase, or a yes where no human key is trusted).",
    _load,
)
