"""``mem plugins``: what is loaded, from where, and what it provides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli.commands import DIRECTORY, INTEGRATION, JSON, show
from mem_cli.declare import Command

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.kernel.report import plugins_report

    if values["directory"] is not None:  # the plugins that project's settings load (its mem.toml `plugins`)
        import typer

        from mem_cli.plugin_commands import add_plugin_commands
        from mem_core.kernel import Kernel
        from mem_core.settings import load_settings

        kernel = Kernel(settings=load_settings(values["directory"]))
        # calls its plugins' commands hook: a failing one is shown as broken
        app = typer.Typer(name="mem", add_completion=False)
        app.callback()(_group)  # a group even with one command, as mem's own app is
        add_plugin_commands(app, kernel)
    report = plugins_report(kernel=kernel)
    show(report, values["json"], "plugins")


def _group() -> None:
    """The commands of the project's plugins."""


COMMAND = Command(
    "plugins",
    "List the plugins: name, provider, version, what each provides; broken ones with their error.",
    group=INTEGRATION,
    run=run,
    options=(DIRECTORY, JSON),
)
