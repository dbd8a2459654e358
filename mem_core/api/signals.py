"""Reward signals: the recorded values of the options given (docs/contract.md §3,
§4). Each signal parses its own text, with :func:`mem_core.js.numbers.js_to_number`
for the numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = ["parse_signals"]


def parse_signals(kernel: Kernel, given: dict[str, str]) -> dict[str, Any]:
    """Recorded signal values for the options given (name → raw text), in
    signal registration order; an unknown signal name is an error."""
    if not given:  # no registry needed (nor the plugins behind it)
        return {}
    registry = kernel.reward_signals
    for name in given:
        if name not in registry:
            known = ", ".join(registry.names())
            raise MemError(f"unknown reward signal '{name}' (known: {known})")
    signals: dict[str, Any] = {}
    for name, cls in registry.items():
        if name in given:
            signals[cls.signal_key()] = cls().parse(given[name])
    return signals
