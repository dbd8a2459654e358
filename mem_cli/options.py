"""The typer parameter of a declared option or argument (:mod:`mem_cli.app`
builds every command from them): its type, and its ``typer.Option`` or
``typer.Argument`` as the parameter's default. Typer reads that form as it
reads ``Annotated[type, typer.Option(...)]``, with the same help and
errors, and it costs less: a plain type is one ``typing`` has cached,
where each ``Annotated`` of a new ``typer.Option`` is a new type to make
(``mem --help`` builds a few hundred parameters)."""

from __future__ import annotations

from typing import Any, Optional

import typer

from mem_cli.declare import Argument, Option

__all__ = ["argument_parameter", "option_parameter"]


def option_parameter(option: Option, help: str | None = None) -> tuple[Any, Any]:
    """The typer parameter of a declared option, as its type and its
    ``typer.Option`` default (``help`` replaces the declared text: a reward
    signal's own)."""
    text = option.help if help is None else help
    default: Any = ... if option.required else option.default
    if not option.takes_value:
        names = (f"{option.long}/--no-{option.long[2:]}",) if option.negatable else option.spellings
        return bool, typer.Option(default, *names, help=text)
    kind: Any = list[option.kind] if option.multiple else option.kind  # type: ignore[name-defined]
    if option.default is None and not option.required:
        kind = Optional[kind]
    named: dict[str, Any] = {"metavar": option.metavar} if option.metavar else {}
    return kind, typer.Option(default, *option.spellings, help=text, **named)


def argument_parameter(argument: Argument) -> tuple[Any, Any]:
    """The typer parameter of a declared argument, as its type and its ``typer.Argument`` default."""
    named: dict[str, Any] = {"metavar": argument.metavar} if argument.metavar else {}
    spec = typer.Argument(... if argument.required else None, help=argument.help, show_default=False, **named)
    kind: Any = list[str] if argument.multiple else str
    return (kind if argument.required else Optional[kind]), spec
