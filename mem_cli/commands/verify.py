"""``mem verify``: sign a structured memory as true, as you (a human)."""

from __future__ import annotations

from mem_cli.commands import one_memory_by_a_human

COMMAND = one_memory_by_a_human(
    "verify",
    "Sign a memory as true with your human key: asks its passphrase on the terminal (where no human key "
    "is trusted, asks you to confirm there; that reads as verified (terminal)).",
)
