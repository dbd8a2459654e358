"""``import_module`` without :mod:`importlib`, whose package (and the
:mod:`warnings` it imports) every command would otherwise pay for at
start-up: the kernel, the lazy names of :mod:`mem_core` and the command
table import by name."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every command's start-up (CONTRIBUTING.md)
if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["import_module"]


def import_module(name: str) -> ModuleType:
    """The module of the absolute dotted ``name``, imported if it is not
    yet (as ``importlib.import_module(name)`` gives it). Always through
    ``__import__``, which waits while another thread is still running the
    module's code: a module found in ``sys.modules`` may not have all its
    names yet."""
    __import__(name)
    return sys.modules[name]
