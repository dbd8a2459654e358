"""``mem doctor``: check a project's memory and repair what is provably safe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, JSON, PROJECT, show
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

HELP = (
    "Check the project's memory: the writer lock (owner, host, alive, age), the final line and size of\n"
    "each store, pattern-scores.json, the recall ranking (for hybrid: the embedding index and whether the\n"
    "prompt hook is served hybrid), the memory store backend, broken plugins and installed adapters.\n"
    "Exit 0 when nothing is an error. --fix repairs what is provably safe (a stale lock, a torn final\n"
    "line moved to <store>.torn-<ts>, temporary files left by killed writers) and leaves a live lock."
)


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> int:
    from mem_core.doctor import doctor as run_doctor

    report = run_doctor(values["directory"], fix=values["fix"])
    show(report, values["json"], "doctor")
    return 0 if report.ok else 1


COMMAND = Command(
    "doctor",
    HELP,
    group=PROJECT,
    run=run,
    options=(
        DIRECTORY,
        Option(
            "fix",
            "--fix",
            "Repair what is provably safe: take over a stale lock, move a torn final line aside, "
            "remove orphan temporary files.",
        ),
        JSON,
    ),
)
