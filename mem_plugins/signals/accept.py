"""Reward signal ``accept`` (weight 0.3): did the person accept the result
(``true``/``yes``, ``false``/``no``, or a number in [0, 1])."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import RewardSignal, clamp01, to_number

if TYPE_CHECKING:
    from typing import Any


class AcceptSignal(RewardSignal):
    name = "accept"
    key = "acceptance"
    weight = 0.3
    help = "User acceptance: true | false | yes | no | [0,1] (reward signal, weight 0.3)"

    def parse(self, raw: str) -> Any:
        lowered = raw.lower()
        if lowered in ("true", "yes"):
            return True
        if lowered in ("false", "no"):
            return False
        return to_number(raw)

    def value(self, recorded: Any) -> float:
        if isinstance(recorded, bool):
            return 1.0 if recorded else 0.0
        return clamp01(to_number(recorded))
