"""Reward signals: the recorded values of the options given (docs/contract.md §3,
§4), and the reward they make together. Each signal parses its own text, with
:func:`mem_core.js.numbers.js_to_number` for the numbers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mem_core.errors import MemError, PluginError
from mem_core.js.numbers import clamp01

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = ["parse_signals", "signal_weights", "compute_reward"]


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


def signal_weights(kernel: Kernel) -> list[tuple[str, float, Any]]:
    """``(recorded key, weight, signal instance)`` for every registered reward
    signal, in registration order (the order their weights are summed in).

    A weight that is not a positive finite number is a broken plugin.
    """
    registry = kernel.reward_signals
    weights = []
    for name, cls in registry.items():
        weight = getattr(cls, "weight", None)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight <= 0:
            raise PluginError(
                f"reward signal '{name}' from plugin '{registry.provider(name)}' "
                f"has an invalid weight {weight!r} (need a positive number)"
            )
        weights.append((cls.signal_key(), float(weight), cls()))
    return weights


def compute_reward(kernel: Kernel, recorded: dict[str, Any]) -> float:
    """The reward in [0, 1] for recorded signal values (as
    :func:`mem_core.api.signals.parse_signals` returns them).

    Each signal present (a recorded ``None`` counts as absent) adds its weight
    and its value clamped to [0, 1] — a value that is not a number counts as 0
    but its weight still counts; with no signal the reward is 0.
    """
    total_weight = 0.0
    total = 0.0
    parts = []
    for key, weight, signal in signal_weights(kernel):
        if key in recorded and recorded[key] is not None:
            parts.append((weight, clamp01(signal.value(recorded[key]))))
    for weight, _ in parts:  # summed apart, in the same order as the reference
        total_weight += weight
    if total_weight == 0:
        return 0.0
    for weight, value in parts:
        total += weight * value
    return clamp01(total / total_weight)
