"""``mem verify``: sign a structured memory as true, as you (a human)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_cli.commands import one_memory_by_a_human

if TYPE_CHECKING:
    from typing import Any


def _load() -> tuple[Any, Any]:
    from mem_cli import render
    from mem_core.api.memories import verify

    return verify, render.verify


COMMAND = one_memory_by_a_human(
    "verify",
    "Sign a memory as true with your human key: asks its passphrase on the terminal (where no human key "
    "is trusted, asks you to confirm there; that reads as verified (terminal)).",
    _load,
)
