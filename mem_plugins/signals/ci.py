"""Reward signal ``ci`` (weight 0.2): continuous integration passed or failed
(``pass``, ``fail``, or a number in [0, 1])."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import RewardSignal, clamp01, to_number

if TYPE_CHECKING:
    from typing import Any


class CiSignal(RewardSignal):
    name = "ci"
    weight = 0.2
    help = "CI outcome: pass | fail | [0,1] (reward signal, weight 0.2)"

    def parse(self, raw: str) -> Any:
        return raw if raw in ("pass", "fail") else to_number(raw)

    def value(self, recorded: Any) -> float:
        if recorded == "pass":
            return 1.0
        if recorded == "fail":
            return 0.0
        return clamp01(to_number(recorded))
