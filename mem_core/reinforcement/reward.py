"""The reward and the pattern-score update of ``mem reinforce`` (docs/contract.md §4).

* :func:`compute_reward` folds the recorded reward signals into one number in
  [0, 1]: the weighted mean over the signals given, each signal plugin
  contributing its own weight and value (``eval`` 0.5, ``accept`` 0.3,
  ``ci`` 0.2 by default), renormalised over the signals present.
* :func:`update_score` applies one reward to a pattern score: Elo against the
  1200 baseline for ranking, and a Beta posterior whose evidence decays by
  0.98 per update and by half every 90 days, for promotion.

Scores are read from ``pattern-scores.json``, a file other tools write too,
so the update follows JavaScript's arithmetic on whatever values it finds
there (``null`` is 0, ``"5" + 1`` is ``"51"``) exactly as ``bmad-plus mem``
does; every power goes through :func:`mem_core.js.jsmath.js_pow` so the numbers
written are bit-identical to Node's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mem_core.clock import DAY_MS, parse_ms
from mem_core.errors import PluginError
from mem_core.js.jsmath import js_pow
from mem_core.js.numbers import clamp01, js_add, js_divide, js_to_number
from mem_core.js.values import js_string

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel

__all__ = [
    "ELO_K",
    "ELO_BASELINE",
    "EVIDENCE_DECAY",
    "HALF_LIFE_DAYS",
    "initial_score",
    "signal_weights",
    "compute_reward",
    "update_score",
]

#: Elo K-factor
ELO_K = 32.0
#: Elo rating of the "average pattern" every pattern plays against
ELO_BASELINE = 1200.0
#: per-update multiplicative decay of the Beta evidence
EVIDENCE_DECAY = 0.98
#: half-life, in days, of the Beta evidence between two reinforcements
HALF_LIFE_DAYS = 90.0


def initial_score() -> dict[str, Any]:
    """A never-reinforced pattern score (a fresh dict, in file key order)."""
    return {"elo": ELO_BASELINE, "alpha": 1.0, "beta": 1.0, "mean": 0.5, "updates": 0, "lastTs": None}


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


def _millis(value: Any) -> float | None:
    """The reference's ``toMillis``: a number as is, anything else through
    ``Date.parse(String(value))``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return parse_ms(js_string(value))


def update_score(previous: Any, reward: float, ts: str) -> dict[str, Any]:
    """The pattern score after one reinforcement with ``reward`` at ``ts``.

    ``previous`` is the stored score (``None`` for a new pattern); keys it
    lacks take the initial values. Steps, in order:

    1. if ``lastTs`` is set and ``ts`` is later, the Beta evidence decays by
       ``0.5 ** (days / 90)`` toward the uniform prior;
    2. ``alpha = 1 + (alpha - 1) * 0.98 + r``, ``beta = 1 + (beta - 1) * 0.98 + (1 - r)``;
    3. ``elo += 32 * (r - 1 / (1 + 10 ** ((1200 - elo) / 400)))``;
    4. ``mean = alpha / (alpha + beta)``, ``updates += 1``, ``lastTs = ts``.
    """
    r = clamp01(reward)
    current = initial_score()
    if isinstance(previous, dict):
        current.update(previous)

    alpha: Any = current["alpha"]
    beta: Any = current["beta"]
    if current["lastTs"] is not None:
        now_ms = _millis(ts)
        last_ms = _millis(current["lastTs"])
        if now_ms is not None and last_ms is not None and now_ms > last_ms:
            f = js_pow(0.5, (now_ms - last_ms) / DAY_MS / HALF_LIFE_DAYS)
            alpha = 1 + (js_to_number(alpha) - 1) * f
            beta = 1 + (js_to_number(beta) - 1) * f
    alpha = 1 + (js_to_number(alpha) - 1) * EVIDENCE_DECAY + r
    beta = 1 + (js_to_number(beta) - 1) * EVIDENCE_DECAY + (1 - r)

    old_elo = current["elo"]
    expected = 1 / (1 + js_pow(10.0, (ELO_BASELINE - js_to_number(old_elo)) / 400))
    elo = js_add(old_elo, ELO_K * (r - expected))

    return {
        "elo": elo,
        "alpha": alpha,
        "beta": beta,
        "mean": js_divide(alpha, alpha + beta),
        "updates": js_add(current["updates"], 1),
        "lastTs": ts,
    }
