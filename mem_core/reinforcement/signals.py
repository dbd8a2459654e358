"""Reward signals: parsing option text into recorded values, and the
weighted reward (mem-cli.md §3, §4)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

__all__ = ["js_to_number", "clamp01", "parse_signals"]

_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def js_to_number(value: Any) -> float:
    """``Number(value)`` for the values a signal can hold (text, bool, number)."""
    if value is True:
        return 1.0
    if value is False or value is None:
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return math.nan
    from mem_core.retrieval.text import js_trim

    text = js_trim(value)
    if not text:
        return 0.0
    if _DECIMAL.fullmatch(text):
        if text.lstrip("+-") == "Infinity":
            return -math.inf if text.startswith("-") else math.inf
        return float(text)
    if _RADIX.fullmatch(text):
        return float(int(text, 0))
    return math.nan


def clamp01(x: Any) -> float:
    """The reference's ``clamp01``: a non-number or NaN is 0."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        return 0.0
    return min(1.0, max(0.0, float(x)))


def parse_signals(kernel: Kernel, given: dict[str, str]) -> dict[str, Any]:
    """Recorded signal values for the options given (name → raw text), in
    signal registration order; an unknown signal name is an error."""
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
