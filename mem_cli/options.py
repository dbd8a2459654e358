"""The typer parameter of a declared option or argument (:mod:`mem_cli.app`
builds every command from them). ``Directory``, ``Json``, ``Mind``, ``User``,
``Ref`` and ``Human`` are the shared declarations as typer parameters, for a
command module still written for typer (``register(app)``) until it is
declared (CONTRIBUTING, "Adding a command")."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from mem_cli.commands import DIRECTORY, HUMAN, JSON, MIND, REF, USER
from mem_cli.declare import Argument, Option

__all__ = ["annotation", "argument_annotation", "Directory", "Json", "Mind", "User", "Ref", "Human"]


def annotation(option: Option, help: str | None = None) -> Any:
    """The ``Annotated[...]`` typer parameter type of a declared option
    (``help`` replaces the declared text: a reward signal's own)."""
    text = option.help if help is None else help
    if not option.takes_value:
        names = (f"{option.long}/--no-{option.long[2:]}",) if option.negatable else option.spellings
        return Annotated[bool, typer.Option(*names, help=text)]
    kind: Any = list[option.kind] if option.multiple else option.kind  # type: ignore[name-defined]
    if option.default is None and not option.required:
        kind = Optional[kind]
    named: dict[str, Any] = {"metavar": option.metavar} if option.metavar else {}
    return Annotated[kind, typer.Option(*option.spellings, help=text, **named)]


def argument_annotation(argument: Argument) -> Any:
    """The ``Annotated[...]`` typer parameter type of a declared argument."""
    named: dict[str, Any] = {"metavar": argument.metavar} if argument.metavar else {}
    spec = typer.Argument(help=argument.help, show_default=False, **named)
    kind: Any = list[str] if argument.multiple else str
    return Annotated[kind if argument.required else Optional[kind], spec]


Directory = annotation(DIRECTORY)
Json = annotation(JSON)
Mind = annotation(MIND)
User = annotation(USER)
Human = annotation(HUMAN)
Ref = argument_annotation(REF)
