"""``mem config``: every effective setting and where it came from;
``mem config set KEY VALUE`` writes one to a config file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, PROJECT
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def _shown(value: Any) -> str:
    from mem_core.api.configure import toml_value

    return "(none)" if value is None else toml_value(value)


def show(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.configure import config_report

    report = config_report(values["directory"])
    if values["json"]:
        output.out_json(report)
        return
    found = report.settings
    lines = [f"mem config: project {found.project}"]
    for label, path in (("project config", found.project_config), ("user config", found.user_config)):
        lines.append(f"  {label}: {path}" + ("" if os.path.exists(path) else " (none)"))
    for name, value, _layer, source in report.rows():
        lines.append(f"  {name} = {_shown(value)}  ({source})")
    output.out("\n".join(lines))


def set_(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.configure import set_config

    result = set_config(
        values["key"], values["value"], user=values["user"], directory=values["directory"], kernel=kernel
    )
    if values["json"]:
        output.out_json(result)
    else:
        output.out(f"mem config: set {result.key} = {_shown(result.value)} in {result.file}")


def unset(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.api.configure import unset_config

    result = unset_config(values["key"], user=values["user"], directory=values["directory"])
    if values["json"]:
        output.out_json(result)
    elif result.changed:
        output.out(f"mem config: unset {result.key} in {result.file}")
    else:
        output.out(f"mem config: {result.key} is not set in {result.file}; nothing changed")


KEY = Argument("key", "The setting (see `mem config`).", metavar="KEY")
USER = Option("user", "--user", "Write the user config file instead of the project's.")

COMMAND = Command(
    "config",
    "Show every effective setting and where it came from; `mem config set KEY VALUE` changes one.",
    group=PROJECT,
    run=show,
    options=(DIRECTORY, JSON),
    subcommands=(
        Command(
            "set",
            "Set KEY to VALUE in the project's .bmad/memory/mem.toml (--user: the user config file), keeping the rest.",
            run=set_,
            arguments=(KEY, Argument("value", "Its value (a list: comma-separated).", metavar="VALUE")),
            options=(USER, DIRECTORY, JSON),
        ),
        Command(
            "unset",
            "Take KEY out of the project's .bmad/memory/mem.toml (--user: the user config file): "
            "the default applies again.",
            run=unset,
            arguments=(KEY,),
            options=(USER, DIRECTORY, JSON),
        ),
    ),
)
