"""``mem verify``: sign a structured memory as true, as you (a human)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, HUMAN, JSON, MEMORIES, MIND, REF, USER
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_cli import render
    from mem_core.memories.service import verify

    result = verify(
        values["ref"],
        mind=values["mind"],
        user=values["user"],
        human=values["human"],
        directory=values["directory"],
        kernel=kernel,
    )
    output.show(result, values["json"], render.verify)


COMMAND = Command(
    "verify",
    "Sign a memory as true with your human key: asks its passphrase on the terminal (where no human key "
    "is trusted, asks you to confirm there; that reads as verified (terminal)).",
    group=MEMORIES,
    run=run,
    arguments=(REF,),
    options=(MIND, USER, HUMAN, DIRECTORY, JSON),
)
