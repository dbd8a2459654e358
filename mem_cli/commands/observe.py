"""``mem observe``: bind a lesson to verified work (mem-cli.md §5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

HELP = (
    "Bind a lesson to accepted, independently verified work: append one receipt to\n"
    ".bmad/memory/outcomes.ndjson, only if every check passes."
)


def run(values: Mapping[str, Any], kernel: Kernel | None = None) -> None:
    from mem_core.evidence.api import observe

    result = observe(values["input"], directory=values["directory"], kernel=kernel)
    if values["json"]:
        output.out_json(result)
        return
    from mem_cli import render

    output.out(render.observe(result))
