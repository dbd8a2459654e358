"""``mem context`` reads only the blocks its budget can reach
(mem_core.memories.summary.fit_summary): the same text, counts and cut as building
every block and fitting them (mem_core.brief.budget.fit), for random stores,
budgets and limits."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.brief.budget import Section, fit
from mem_core.brief.tokens import estimate_tokens
from mem_core.memories import results, summary
from mem_core.memories.kinds import CATEGORIES, PRIORITIES
from mem_core.memories.records import FIELDS, MemoryFilter
from mem_core.memories.results import Memory
from mem_plugins.stores.sqlite import SqliteStore

NOW = "2026-11-05T12:00:00.000Z"
WORDS = ["build", "test", "cache", "Schäfer", "日本", "v1.5.0", "x" * 40, "42", "1234567", "a  b", "→", "naïve"]


def _content(rng: random.Random) -> str:
    parts = [rng.choice(WORDS) for _ in range(rng.randint(1, 25))]
    if rng.random() < 0.2:
        parts.insert(rng.randrange(len(parts)), " " * rng.randint(2, 300))  # long runs of white space
    if rng.random() < 0.2:
        parts.insert(rng.randrange(len(parts)), "\n" * rng.randint(1, 3))
    return rng.choice(["z", "Z", "1", "\u00e9"]) + " ".join(parts) + rng.choice(["z", "9", ".", "  \u00e9"])


def _store(directory: Path, count: int, rng: random.Random) -> None:
    with SqliteStore.open(str(directory), create=True) as store, store.transaction():
        for n in range(count):
            record = {
                "id": f"mem_{n:016x}", "category": rng.choice(CATEGORIES), "key": f"key_{n}",
                "content": _content(rng), "tags": sorted({rng.choice(["ops", "db", "ux", "trailing "]) for _ in range(rng.randint(0, 2))}),
                "priority": rng.choice(PRIORITIES), "source": "agent", "verified": False, "confidence": 0.7,
                "expires_at": rng.choice([None, None, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"]),
                "mind_id": "default", "created_at": NOW, "updated_at": f"2026-0{rng.randint(1, 9)}-01T00:00:00.000Z",
            }  # fmt: skip
            store.insert({name: record[name] for name in FIELDS}, at=NOW)


def _expected(directory: Path, budget: int, limit: int | None) -> tuple[str, int, int]:
    """(text, blocks shown, omitted) as built from every memory."""
    with SqliteStore.open_read_only(str(directory)) as store:
        records = service.judge(store, store.query(MemoryFilter(now=NOW, mind_id="default")), None)
    views = [Memory(r) for r in records]
    total = len(views)
    shown = views if limit is None else views[:limit]
    text = results.summary_text("default", total, 0, total, shown)
    if estimate_tokens(text) <= budget:
        return text, len(shown), 0
    head = results.summary_head("default", total, 0, total)
    blocks = ["\n" + results.summary_block(n, v) for n, v in enumerate(shown, 1)]
    fitted = fit(head, [Section("memories", "", blocks, hint="mem memories")], budget)
    kept = fitted.kept["memories"]
    return fitted.text.lstrip("\n"), kept, len(blocks) - kept


@pytest.mark.parametrize("seed", range(10))
def test_the_streamed_summary_is_the_fitted_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    project = tmp_path / "project"
    (project / ".bmad").mkdir(parents=True)
    _store(project / ".bmad" / "memory", rng.choice([0, 1, 3, 40, 120]), rng)
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user"))
    for _ in range(25):
        budget = rng.choice([0, 1, 5, 20, 40, 80, 150, 400, 1500, 5000, 100000])
        limit = rng.choice([None, None, 0, 1, 2, 10, 500])
        summary = service.context_summary(directory=str(project), budget=budget, limit=limit, now=NOW)
        assert (summary.text, len(summary.memories), summary.omitted) == _expected(
            project / ".bmad" / "memory", budget, limit
        ), (budget, limit)


def test_context_stops_reading_within_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On 2 000 memories the default budget reads a few dozen rows, not 2 000."""
    project = tmp_path / "project"
    (project / ".bmad").mkdir(parents=True)
    _store(project / ".bmad" / "memory", 2000, random.Random(3))
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user"))
    read = 0
    original = SqliteStore.iter_query

    def counting(self: SqliteStore, where: MemoryFilter):  # type: ignore[no-untyped-def]
        nonlocal read
        for record in original(self, where):
            read += 1
            yield record

    monkeypatch.setattr(SqliteStore, "iter_query", counting)
    summary = service.context_summary(directory=str(project), budget=1500, now=NOW)
    assert summary.total > 1000 and 0 < len(summary.memories) < read < 400
    assert summary.text.endswith(f"… {summary.omitted} more: mem memories")


def test_the_joined_estimate_is_the_estimate_of_the_joined_text() -> None:
    """``_joined_tokens`` adds up the parts' estimates exactly, for parts that
    start and end with a visible character."""
    rng = random.Random(11)
    for _ in range(400):
        head = [f"Mind: {rng.choice(WORDS)}x", f"Memories: {rng.randint(0, 99999)} total (1 verified, 2 unverified)"]
        blocks = ["[" + _content(rng) + rng.choice(["-", "x", "9", "é"]) for _ in range(rng.randint(0, 6))]
        items = ["\n" + block for block in blocks]
        tail = rng.choice(["", f"… {rng.randint(1, 500)} more: mem memories"])
        for with_head in (True, False):
            text = "\n".join([*(head if with_head else []), *items, *([tail] if tail else [])])
            parts = summary.joined_tokens(
                estimate_tokens("\n".join(head)) if with_head else None, [estimate_tokens(i) for i in items], tail
            )
            assert parts == estimate_tokens(text), text


def test_every_budget_cuts_as_fit_cuts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Budget by budget, where a block more or less fits."""
    project = tmp_path / "project"
    (project / ".bmad").mkdir(parents=True)
    _store(project / ".bmad" / "memory", 12, random.Random(4))
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user"))
    for budget in range(0, 900, 3):
        summary = service.context_summary(directory=str(project), budget=budget, now=NOW)
        assert (summary.text, len(summary.memories), summary.omitted) == _expected(
            project / ".bmad" / "memory", budget, None
        ), budget
