"""typer parameters built from the command table, and the options the
structured-memory commands share."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from mem_cli.table import OPTIONS, Option

__all__ = ["annotation", "Directory", "Json", "Mind", "User", "Ref", "Human"]


def annotation(option: Option, help: str | None = None) -> Any:
    """The ``Annotated[...]`` typer parameter type of a table option (``help``
    replaces the table's text: a reward signal's own)."""
    text = option.help if help is None else help
    if not option.takes_value:
        return Annotated[bool, typer.Option(*option.spellings, help=text)]
    kind: Any = Optional[list[str]] if option.multiple else Optional[str]
    return Annotated[kind, typer.Option(*option.spellings, help=text, metavar=option.metavar.upper())]


Directory = annotation(OPTIONS["--directory"])
Json = annotation(OPTIONS["--json"])

Mind = Annotated[
    Optional[str], typer.Option(help="The mind (memory namespace) to use.  [default: default]", metavar="NAME")
]
User = Annotated[
    bool,
    typer.Option(
        "--user",
        help="Use the user-level store (memories about you that hold across projects) instead of the project's.",
    ),
]
#: the memory a command acts on
Ref = Annotated[
    str, typer.Argument(help="The memory: its id (mem_…) or <category>/<key>.", metavar="REF", show_default=False)
]
#: which trusted human key proves you (when several are on this machine)
Human = Annotated[
    Optional[str],
    typer.Option(
        help="The trusted human key whose passphrase you type, when several are on this machine (mem human list).",
        metavar="NAME",
    ),
]
