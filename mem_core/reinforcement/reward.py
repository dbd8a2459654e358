"""The reward and the pattern-score update of ``mem reinforce`` (docs/contract.md §4).

* :func:`mem_core.api.signals.compute_reward` folds the recorded reward
  signals into one number in [0, 1]: the weighted mean over the signals
  given, each signal plugin contributing its own weight and value (``eval``
  0.5, ``accept`` 0.3, ``ci`` 0.2 by default), renormalised over the signals
  present.
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

from typing import TYPE_CHECKING

from mem_core.clock import DAY_MS, parse_ms
from mem_core.js.jsmath import js_pow
from mem_core.js.numbers import clamp01, js_add, js_divide, js_to_number
from mem_core.js.values import js_string

if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "ELO_K",
    "ELO_BASELINE",
    "EVIDENCE_DECAY",
    "HALF_LIFE_DAYS",
    "initial_score",
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
