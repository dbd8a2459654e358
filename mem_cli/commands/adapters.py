"""``mem adapters``: wire ``mem`` into coding assistants (list, install, remove, status)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, INTEGRATION, JSON, show
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def list_(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.adapters import list_adapters

    report = list_adapters(values["directory"], scope=values["scope"], kernel=kernel)
    show(report, values["json"], "adapters_list")


def install(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.adapters import install_adapters

    result = install_adapters(
        values["directory"],
        values["names"],
        scope=values["scope"],
        dry_run=values["dry_run"],
        approve=values["approve"],
        command=values["command"],
        kernel=kernel,
    )
    show(result, values["json"], "adapters_change")


def remove(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.adapters import remove_adapters

    result = remove_adapters(
        values["directory"], values["names"], scope=values["scope"], dry_run=values["dry_run"], kernel=kernel
    )
    show(result, values["json"], "adapters_change")


def status(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.adapters import adapters_status

    report = adapters_status(values["directory"], scope=values["scope"], kernel=kernel)
    show(report, values["json"], "adapters_status")


NAMES = Argument(
    "names",
    "Adapters: claude-code, codex-cli, gemini-cli, cursor, opencode, aider, antigravity …",
    metavar="NAME...",
    multiple=True,
    required=True,
)
SCOPE = Option(
    "scope",
    "--scope",
    "project: the project's files | user: your own files under the home directory.",
    metavar="SCOPE",
    default="project",
)
DRY_RUN = Option("dry_run", "--dry-run", "Change nothing; print the unified diff of what would change.")

COMMAND = Command(
    "adapters",
    "Wire mem into coding assistants: instruction block, hooks, MCP server entry.",
    group=INTEGRATION,
    subcommands=(
        Command(
            "list",
            "Every adapter: detected here, installed, the files it would touch.",
            run=list_,
            options=(SCOPE, DIRECTORY, JSON),
        ),
        Command(
            "install",
            "Write the instruction block, the hooks and the MCP entry of each NAME (twice changes nothing).",
            run=install,
            arguments=(NAMES,),
            options=(
                SCOPE,
                DRY_RUN,
                Option(
                    "approve",
                    "--approve",
                    "Also approve what the assistant would ask about (Claude Code: the project's mem MCP server).",
                ),
                Option(
                    "command",
                    "--command",
                    "The command the assistant runs to start mem (default: mem when the mem on PATH is this one, "
                    "else this mem's absolute path).",
                    metavar="COMMAND",
                ),
                DIRECTORY,
                JSON,
            ),
        ),
        Command(
            "remove",
            "Take out what install wrote for each NAME; files only mem touched come back byte for byte.",
            run=remove,
            arguments=(NAMES,),
            options=(SCOPE, DRY_RUN, DIRECTORY, JSON),
        ),
        Command(
            "status",
            "The installed adapters: their files, what is missing, what you must still do.",
            run=status,
            options=(SCOPE, DIRECTORY, JSON),
        ),
    ),
)
