"""Reward signal ``eval`` (weight 0.5): an evaluation suite's score in [0, 1]."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import RewardSignal, clamp01, to_number

if TYPE_CHECKING:
    from typing import Any


class EvalSignal(RewardSignal):
    name = "eval"
    key = "evalScore"
    weight = 0.5
    help = "Eval suite score in [0,1] (reward signal, weight 0.5)"

    def parse(self, raw: str) -> Any:
        return to_number(raw)

    def value(self, recorded: Any) -> float:
        return clamp01(to_number(recorded))
