"""``hookimpl``: the marker of ``mem``'s hook implementations, without
importing pluggy.

It marks a function exactly as ``pluggy.HookimplMarker("mem")`` does — the
same ``mem_impl`` attribute holding the same options — so a plugin manager
registers it as pluggy's own (``tests/core/test_kernel.py`` holds the two
to the same attribute). What it saves is the import: pluggy imports
:mod:`inspect` and its dependencies, about 10 ms, and every default plugin
module is marked at import time, on the path of every action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ImplMarker"]

F = TypeVar("F", bound=Callable[..., Any])


class ImplMarker:
    """A decorator (``@hookimpl`` or ``@hookimpl(tryfirst=True, …)``) with
    the parameters of ``pluggy.HookimplMarker.__call__``."""

    __slots__ = ("project_name",)

    def __init__(self, project_name: str) -> None:
        self.project_name = project_name

    def __call__(
        self,
        function: F | None = None,
        hookwrapper: bool = False,
        optionalhook: bool = False,
        tryfirst: bool = False,
        trylast: bool = False,
        specname: str | None = None,
        wrapper: bool = False,
    ) -> Any:
        def mark(func: F) -> F:
            options = {
                "wrapper": wrapper,
                "hookwrapper": hookwrapper,
                "optionalhook": optionalhook,
                "tryfirst": tryfirst,
                "trylast": trylast,
                "specname": specname,
            }
            setattr(func, self.project_name + "_impl", options)
            return func

        return mark if function is None else mark(function)
