"""typer parameters of the options and arguments several typer-registered
commands share, made from their declarations (:mod:`mem_cli.commands`)."""

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
        return Annotated[bool, typer.Option(*option.spellings, help=text)]
    kind: Any = Optional[list[str]] if option.multiple else Optional[str]
    return Annotated[kind, typer.Option(*option.spellings, help=text, metavar=option.metavar.upper())]


def argument_annotation(argument: Argument) -> Any:
    """The ``Annotated[...]`` typer parameter type of a declared argument."""
    named: dict[str, Any] = {"metavar": argument.metavar} if argument.metavar else {}
    spec = typer.Argument(help=argument.help, show_default=False, **named)
    return Annotated[Optional[list[str]], spec] if argument.multiple else Annotated[str, spec]


Directory = annotation(DIRECTORY)
Json = annotation(JSON)
Mind = annotation(MIND)
User = annotation(USER)
Human = annotation(HUMAN)
Ref = argument_annotation(REF)
