"""The context summary cut to a token budget, reading the memories' blocks
only as far as the budget reaches (:func:`fit_summary`); its text is
:func:`~mem_core.memories.results.summary_text`'s."""

from __future__ import annotations

from collections.abc import Iterator

from mem_core.memories.results import ContextSummary, Memory, summary_block, summary_head

__all__ = ["joined_tokens", "fit_summary"]


def joined_tokens(head: int | None, items: list[int], tail: str) -> int:
    """The estimate of ``"\\n".join([*head, *items, tail])`` from the estimates
    of its parts — the head's (``None``: no head), each ``"\\n" + block``'s —
    when the head, every block and the tail start and end with a visible
    character: the estimate counts pieces (:mod:`mem_core.brief.tokens`), no
    piece spans a line break between visible characters, and a run of line
    breaks counts one, so ``"\\n\\n"`` before a block costs what its
    ``"\\n"`` did and the line break before the tail one more."""
    from mem_core.brief.tokens import estimate_tokens

    total = (head or 0) + sum(items)
    if tail:
        total += estimate_tokens(tail) + (1 if head is not None or items else 0)
    return total


def fit_summary(mind_id: str, total: int, verified: int, memories: Iterator[Memory], shown: int, store: str,
                budget: int) -> ContextSummary:  # fmt: skip
    """The summary of ``shown`` memories (``memories``, in order) within
    ``budget`` tokens: :func:`~mem_core.memories.results.summary_text` and
    the cut :func:`mem_core.brief.budget.fit` makes of it, reading the blocks
    only as far as needed (a test holds the two alike).

    The whole text fits when its estimate does; it cannot once the blocks
    read so far estimate above the budget (the estimate of blocks joined by
    blank lines is at least the sum of theirs), so reading stops there, or
    at the first block the greedy cut leaves out if that comes later."""
    from mem_core.brief.budget import more_line
    from mem_core.brief.tokens import estimate_tokens

    unverified = total - verified
    head = summary_head(mind_id, total, verified, unverified)
    read: list[Memory] = []
    items: list[str] = []  # "\n" + block, as fit() sees them
    costs: list[int] = []  # the estimate of each
    # every block starts and ends with a visible character (then the estimate
    # of the joined text is the sum of its parts', see _joined_tokens)
    joinable = True
    # the greedy cut (fit()'s one section, no title)
    reserve = estimate_tokens(more_line(shown, ["mem memories"])) + 1 if shown else 0
    head_cost = estimate_tokens("\n".join(head))
    kept_head = head
    used = head_cost
    if used + reserve > budget:
        kept_head, used = [], 0
    kept = 0
    greedy_open = True
    lower = 0  # the blocks' estimates so far: a lower bound of the whole text's
    for number, memory in enumerate(memories, 1):
        block = summary_block(number, memory)
        joinable = joinable and not block[-1].isspace()
        item = "\n" + block
        read.append(memory)
        items.append(item)
        cost = estimate_tokens(item)
        costs.append(cost)
        lower += cost - 1  # without the line break before the block
        if greedy_open:
            if used + cost + 1 + reserve <= budget:
                used += cost + 1
                kept += 1
            else:
                greedy_open = False
        if not greedy_open and lower > budget:
            break
        if number >= shown:
            break

    def tokens(with_head: bool, count: int, tail: str) -> int:
        if joinable:
            return joined_tokens(head_cost if with_head else None, costs[:count], tail)
        return estimate_tokens("\n".join([*(head if with_head else []), *items[:count], *([tail] if tail else [])]))

    complete = len(read) == shown and (lower <= budget)
    if complete and tokens(True, shown, "") <= budget:
        return ContextSummary(mind=mind_id, total=total, verified=verified, unverified=unverified, memories=read,
                              store=store, budget=budget)  # fmt: skip
    while True:
        cut = shown - kept
        tail = more_line(cut, ["mem memories"]) if cut else ""
        if tokens(bool(kept_head), kept, tail) <= budget:
            lines = [*kept_head, *items[:kept]]
            if tail:
                lines.append(tail)
            text = "\n".join(lines)
            break
        if kept:
            kept -= 1
        elif kept_head:
            kept_head = []
        else:  # not even the last line fits
            text = ""
            break
    return ContextSummary(mind=mind_id, total=total, verified=verified, unverified=unverified, memories=read[:kept],
                          store=store, omitted=shown - kept, budget=budget, fitted=text.lstrip("\n"))  # fmt: skip
