"""The reward-signal plugin interface (docs/contract.md §3, §4)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, ClassVar

__all__ = ["RewardSignal"]


class RewardSignal(ABC):
    """A reward signal: its option, its parsing, its weight.

    ``name`` is the option of ``mem write`` and ``mem reinforce``
    (``--<name>``, or ``--signal <name>=VALUE``); ``key`` the key it is
    recorded under in an event's ``signals`` (defaults to ``name``);
    ``weight`` its weight in the reward, renormalised over the signals given;
    ``help`` the option's help text. :meth:`parse` turns the option's text into
    the recorded value, :meth:`value` a recorded value into a reward in [0, 1].

    Example usage::

        from mem_core.plugin import MemError, RewardSignal, hookimpl, to_number

        class Review(RewardSignal):
            name = "review"
            weight = 0.4
            help = "Code review score in [0,1]"

            def parse(self, raw):
                value = to_number(raw)
                if not 0 <= value <= 1:
                    raise MemError("--review must be a number in [0,1]")
                return value

            def value(self, recorded):
                return recorded if isinstance(recorded, float) and 0 <= recorded <= 1 else 0.0

        @hookimpl
        def mem_register_reward_signals():
            return [Review]
    """

    name: ClassVar[str]
    key: ClassVar[str] = ""
    weight: ClassVar[float]
    help: ClassVar[str] = ""

    @classmethod
    def signal_key(cls) -> str:
        return cls.key or cls.name

    @abstractmethod
    def parse(self, raw: str) -> Any:
        """The value recorded for the option's text ``raw``; raise ``MemError``
        (one line) for text it refuses."""

    @abstractmethod
    def value(self, recorded: Any) -> float:
        """The recorded value as a reward in [0, 1] (journal records written by
        other tools may hold anything: never raise, return 0 for nonsense)."""
