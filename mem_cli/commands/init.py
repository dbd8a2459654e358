"""``mem init``: set up a project's memory (config, notes) and offer the assistant adapters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, PROJECT
from mem_cli.declare import Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.configure import init_project

    result = init_project(values["directory"], adapters=values["adapters"], kernel=kernel)
    if values["json"]:
        output.out_json(result)
        return
    if result.created:
        output.out(f"mem init: created {_listed(result.created)} in {result.project}")
    else:
        output.out(f"mem init: {result.project} has its memory files already; nothing changed")
    if result.git:
        output.out(
            f"mem init: {' and '.join(row['path'] for row in result.git)} now say what of .bmad/memory "
            "stays out of git and how its journals merge (docs/git.md)"
        )
    if result.adapters:
        changed = ", ".join(row["path"] for row in result.installed) or "nothing: installed already"
        output.out(f"mem init: adapters {', '.join(result.adapters)} installed (changed {changed})")
        for line in result.done:
            output.out(f"mem init: {line}")
    if result.detected:
        output.out(
            f"mem init: assistants detected: {', '.join(result.detected)}; wire them in with "
            f"`mem adapters install {' '.join(result.detected)}` (or `mem init --adapters NAME,…`)"
        )
    elif not result.adapters:
        output.out("mem init: no assistant detected; `mem adapters list` shows those mem can wire in")


COMMAND = Command(
    "init",
    "Create .bmad/memory/ with a commented mem.toml, and .agents/memory/{decisions,lessons,patterns}.md with an "
    "example section each, if missing (never overwrites a file; safe to repeat); list the assistants detected.",
    group=PROJECT,
    run=run,
    options=(
        Option(
            "adapters",
            "--adapters",
            "Also install these assistant adapters (comma-separated, as `mem adapters install` does).",
            metavar="NAME,…",
        ),
        DIRECTORY,
        JSON,
    ),
)
