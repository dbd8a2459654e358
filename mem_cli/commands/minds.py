"""``mem minds``: the minds (memory namespaces) of a store, with their counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, JSON, MEMORIES, USER, show
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.memories import list_minds

    result = list_minds(user=values["user"], directory=values["directory"], kernel=kernel)
    show(result, values["json"], "minds")


COMMAND = Command(
    "minds",
    "List the minds (memory namespaces) that hold memories, with how many each holds.",
    group=MEMORIES,
    run=run,
    options=(USER, DIRECTORY, JSON),
)
