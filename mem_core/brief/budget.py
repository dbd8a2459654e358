"""Fitting text into a token budget: what is kept, what is cut, and the last
line that counts what was cut (``… 42 more: mem recall <topic>``).

A text is a head (lines always wanted first) and sections, each a title and
items. Items are kept in rounds: sections of a lower ``rank`` are served
first, sections of one rank take one item each in turn, so that one long
section (200 decisions) cannot crowd out the others; a section whose next
item does not fit gets no more. The kept items are shown in their sections'
order. Whatever is left out is counted on the last line, with the commands
that read it (``hint``). The estimate of the whole text, that last line
included, never exceeds the budget (:func:`mem_core.brief.tokens.estimate_tokens`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mem_core.brief.tokens import estimate_tokens

if TYPE_CHECKING:
    from typing import Any

__all__ = ["Section", "Fitted", "fit", "more_line", "parse_budget"]


class Section:
    """One section: its title line (none: the items follow the head
    directly), its items (each one or more lines), the
    command that reads what is cut (``mem recall <topic>``), and its rank
    (lower ranks are served first)."""

    __slots__ = ("name", "title", "items", "hint", "rank", "data")

    def __init__(
        self,
        name: str,
        title: str,
        items: Sequence[str],
        *,
        hint: str,
        rank: int = 1,
        data: Sequence[Any] | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.items = list(items)
        self.hint = hint
        self.rank = rank
        #: the JSON form of each item (same length as ``items``), if any
        self.data = list(data) if data is not None else list(items)


class Fitted:
    """The text that fits, and what was kept and cut of each section."""

    __slots__ = ("text", "tokens", "budget", "kept", "omitted", "hints")

    def __init__(
        self, text: str, tokens: int, budget: int, kept: dict[str, int], omitted: dict[str, int], hints: list[str]
    ) -> None:
        self.text = text
        self.tokens = tokens
        self.budget = budget
        #: items kept, by section name
        self.kept = kept
        #: items cut, by section name
        self.omitted = omitted
        #: the commands the last line names
        self.hints = hints

    @property
    def omitted_total(self) -> int:
        return sum(self.omitted.values())


def parse_budget(value: object, option: str = "--budget") -> int:
    """``--budget TOKENS``: a whole number ≥ 0 (text or int); one-line
    ``MemError`` otherwise."""
    from mem_core.errors import MemError

    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    raise MemError(f"{option} must be a whole number of tokens >= 0")


def more_line(count: int, hints: Sequence[str]) -> str:
    """``… 42 more: mem recall <topic> | mem memories``."""
    return f"… {count} more: " + " | ".join(hints)


def _render(head: Sequence[str], sections: Sequence[Section], kept: dict[str, int], tail: str) -> str:
    lines = list(head)
    for section in sections:
        count = kept.get(section.name, 0)
        if count:
            if section.title:
                if lines:
                    lines.append("")
                lines.append(section.title)
            lines.extend(section.items[:count])
    if tail:
        lines.append(tail)
    return "\n".join(lines)


def _hints(sections: Sequence[Section], omitted: dict[str, int]) -> list[str]:
    hints: list[str] = []
    for section in sections:
        if omitted.get(section.name) and section.hint not in hints:
            hints.append(section.hint)
    return hints


def fit(head: Sequence[str], sections: Sequence[Section], budget: int) -> Fitted:
    """Keep what fits in ``budget`` tokens (see the module's docstring)."""
    total_items = sum(len(s.items) for s in sections)
    everything = {s.name: len(s.items) for s in sections}
    text = _render(head, sections, everything, "")
    # (a text of more than 8 characters per token of budget is not tried: it
    # fits only with long runs of white space, and estimating it costs)
    if len(text) <= 8 * budget and (tokens := estimate_tokens(text)) <= budget:
        return Fitted(text, tokens, budget, everything, dict.fromkeys(everything, 0), [])  # nothing to cut
    all_hints = _hints(sections, {s.name: len(s.items) for s in sections})
    # room for the last line, at its longest
    reserve = estimate_tokens(more_line(total_items, all_hints)) + 1 if total_items else 0
    head = list(head)
    used = estimate_tokens("\n".join(head))
    if used + reserve > budget:
        head, used = [], 0
    kept = {s.name: 0 for s in sections}
    for rank in sorted({s.rank for s in sections}):
        open_sections = [s for s in sections if s.rank == rank and s.items]
        while open_sections:
            still_open = []
            for section in open_sections:
                index = kept[section.name]
                cost = estimate_tokens(section.items[index]) + 1
                if index == 0 and section.title:
                    cost += estimate_tokens(section.title) + 2  # the blank line and the title
                if used + cost + reserve <= budget:
                    used += cost
                    kept[section.name] = index + 1
                    if index + 1 < len(section.items):
                        still_open.append(section)
            open_sections = still_open
    # the sum above bounds the estimate of the joined text; check the text itself
    while True:
        omitted = {s.name: len(s.items) - kept[s.name] for s in sections}
        cut = sum(omitted.values())
        hints = _hints(sections, omitted)
        tail = more_line(cut, hints) if cut else ""
        text = _render(head, sections, kept, tail)
        tokens = estimate_tokens(text)
        if tokens <= budget:
            return Fitted(text, tokens, budget, dict(kept), omitted, hints)
        last = next((s for s in reversed(sections) if kept[s.name]), None)
        if last is not None:
            kept[last.name] -= 1
        elif head:
            head = []
        else:  # not even the last line fits
            return Fitted("", 0, budget, dict(kept), omitted, hints)
