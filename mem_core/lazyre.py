"""Regular expressions compiled on first use.

Python compiles a pattern in Python code, some 0.2-1.5 M instructions
each: the twenty-odd patterns of the modules every action imports cost a
``mem write`` more than its own work, though most of them serve only some
commands (indented JSON, a negative number on the command line, an
orphaned temporary file). :func:`lazy` defers that to the first use.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["lazy"]


class _Lazy:
    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when a method is first used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]
