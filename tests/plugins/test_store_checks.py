"""The SQL stores' ``CHECK`` constraints against the value sets of
:mod:`mem_core.memories.kinds`, on real databases: every value of a set is
accepted, anything else refused (and nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mem_core.errors import MemError
from mem_core.memories.kinds import ACTIONS, CATEGORIES, PRIORITIES, SOURCES
from mem_core.plugin import MemoryStore
from mem_core.testing import NOW
from mem_plugins.stores.postgres import PostgresStore
from mem_plugins.stores.sqlite import SqliteStore
from tests.plugins.postgres_server import postgres_dsn


@pytest.fixture(params=["sqlite", "postgres"])
def store_class(request: pytest.FixtureRequest) -> type[MemoryStore]:
    if request.param == "postgres":
        return PostgresStore.bind(postgres_dsn())
    return SqliteStore


def _record(n: int, **fields: str) -> dict[str, object]:
    record: dict[str, object] = {
        "id": f"mem_{n:04x}", "category": "fact", "key": f"k{n}", "content": "v", "tags": [],
        "priority": "normal", "source": "agent", "verified": False, "confidence": 0.7, "expires_at": None,
        "mind_id": "default", "created_at": NOW, "updated_at": NOW,
    }  # fmt: skip
    record.update(fields)
    return record


@pytest.mark.parametrize(("field", "values"), [("category", CATEGORIES), ("priority", PRIORITIES), ("source", SOURCES)])
def test_a_column_takes_exactly_its_value_set(
    store_class: type[MemoryStore], tmp_path: Path, field: str, values: tuple[str, ...]
) -> None:
    with store_class.open(str(tmp_path), create=True) as store:
        with store.transaction():
            for n, value in enumerate(values, 1):
                store.insert(_record(n, **{field: value}), at=NOW)
        with pytest.raises(MemError):
            with store.transaction():
                store.insert(_record(99, **{field: values[0] + "x"}), at=NOW)
        assert store.get("mem_0063") is None
        assert sorted(store.get(f"mem_{n:04x}")[field] for n in range(1, len(values) + 1)) == sorted(values)


def test_the_history_takes_exactly_the_actions(store_class: type[MemoryStore], tmp_path: Path) -> None:
    with store_class.open(str(tmp_path), create=True) as store:
        with store.transaction():
            for n, action in enumerate(ACTIONS, 1):
                store.insert(_record(n), at=NOW, action=action)
        with pytest.raises(MemError):
            with store.transaction():
                store.insert(_record(99), at=NOW, action="rewrite")
        assert [store.history(f"mem_{n:04x}")[0]["action"] for n in range(1, len(ACTIONS) + 1)] == list(ACTIONS)
        assert store.history("mem_0063") == []
