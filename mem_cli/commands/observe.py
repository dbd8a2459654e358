"""``mem observe``: bind a lesson to verified work (mem-cli.md §5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import AGENT, DIRECTORY, JSON, show
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.evidence import observe

    result = observe(values["input"], directory=values["directory"], kernel=kernel)
    show(result, values["json"], "observe")


COMMAND = Command(
    "observe",
    "Bind a lesson to accepted, independently verified work: append one receipt to "
    ".bmad/memory/outcomes.ndjson, only if every check passes.",
    group=AGENT,
    run=run,
    options=(
        DIRECTORY,
        Option(
            "input", "--input",
            "Project-relative JSON file: the verified work (runId and taskId for Nexus, or "
            '"verifier" and its fields), memory {file, heading}, scope, interpretation, '
            "optional supersedes / contradicts receipt ids.",
            metavar="FILE",
        ),
        JSON,
    ),
)  # fmt: skip
