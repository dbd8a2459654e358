"""One module per command: parse, call one ``mem_core`` function, render.

The five actions (``recall``, ``write``, ``reinforce``, ``observe``,
``outcomes``) have no typer here: each module has ``HELP`` and
``run(values, kernel)``, where ``values`` are the option values by their
dest in :mod:`mem_cli.table` — the fast path (:mod:`mem_cli.compat`) and
typer (:mod:`mem_cli.app`) both call it. The other commands are typer
functions with a ``register(app)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["given_signals"]


def given_signals(values: Mapping[str, Any]) -> dict[str, str]:
    """The reward signals given, by signal name: each signal's own option
    (``--eval``, a plugin's ``--review``), then ``--signal NAME=VALUE``."""
    from mem_core.errors import UsageError

    given = dict(values.get("signals") or {})
    for item in values.get("signal") or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            shown = item.encode("unicode_escape").decode("ascii")  # one line, whatever it holds
            raise UsageError(f"--signal takes NAME=VALUE, got '{shown}'")
        given[name.strip()] = value
    return given
