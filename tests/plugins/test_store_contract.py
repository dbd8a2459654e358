"""The ``MemoryStore`` contract: every structured-memory backend must pass it.

The suite runs once per backend registered through ``mem_register_stores``
(the default plugins and every installed ``mem.plugins`` entry point). A
backend that opens as ``cls.open(<a fresh temporary directory>, create=True)``
needs nothing more. One that needs more (a PostgreSQL backend needs a server
and a DSN) adds an entry to :data:`BACKEND_FACTORIES`: a function
``(cls, tmp_path) -> opener`` where ``opener()`` returns a *new connection* to
one fresh, empty store each time it is called (tests open several connections
to the same store), and may ``pytest.skip`` when its server is not available.

What the suite pins down is the interface's docstrings
(``mem_core.plugin.MemoryStore``), with ``MemoryFilter.keeps`` and
``memory_records.sort_records`` as the reference semantics of queries.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mem_core import hookimpl
from mem_core.errors import MemError
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.memories.records import FIELDS, MemoryFilter, recall_terms, sort_records
from mem_core.plugin import MemoryStore
from tests.plugins.dict_store import DictStore
from tests.plugins.postgres_server import postgres_factory

Opener = Callable[[], MemoryStore]


def _default_factory(cls: type[MemoryStore], tmp_path: Path) -> Opener:
    directory = str(tmp_path / f"store-{cls.name}")
    return lambda: cls.open(directory, create=True)


#: backend name -> factory, for backends that need more than a directory
BACKEND_FACTORIES: dict[str, Callable[[type[MemoryStore], Path], Opener]] = {"postgres": postgres_factory}


class DictStorePlugin:
    """An in-test plugin providing the pure-Python reference backend, so the
    suite always runs against two implementations."""

    @hookimpl
    def mem_register_stores(self) -> list[type[MemoryStore]]:
        return [DictStore]


def kernel_with_dict_store() -> Kernel:
    pm = make_plugin_manager()
    pm.register(DictStorePlugin(), name="test-dict-store")
    return Kernel(pm)


BACKENDS = dict(kernel_with_dict_store().stores.items())
NOW = "2026-11-05T12:00:00.000Z"
LATER = "2026-11-06T12:00:00.000Z"


def test_the_default_backend_and_the_in_test_one_are_registered() -> None:
    assert {"sqlite", "dict"} <= set(BACKENDS)


def test_the_api_uses_the_backend_named_by_mem_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mem_core.memories import api

    kernel = kernel_with_dict_store()
    monkeypatch.setenv("MEM_STORE", "dict")
    project = tmp_path / "project"
    stored = api.remember("fact", "k", "kept in a dict", directory=str(project), kernel=kernel, now=NOW).memory
    assert [m.id for m in api.search_memories("dict", directory=str(project), kernel=kernel).memories] == [stored.id]
    assert DictStore.exists(str(project / ".bmad" / "memory")) and not project.exists()


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> type[MemoryStore]:
    return BACKENDS[request.param]


@pytest.fixture
def opener(backend: type[MemoryStore], tmp_path: Path) -> Opener:
    factory = BACKEND_FACTORIES.get(backend.name, _default_factory)
    return factory(backend, tmp_path)


@pytest.fixture
def store(opener: Opener):
    with opener() as opened:
        yield opened


_serial = itertools.count(1)


def record(**fields: Any) -> dict[str, Any]:
    """A valid memory record; ``fields`` override the defaults."""
    n = next(_serial)
    base: dict[str, Any] = {
        "id": f"mem_{n:016x}",
        "category": "fact",
        "key": f"key_{n}",
        "content": f"content number {n}",
        "tags": [],
        "priority": "normal",
        "source": "agent",
        "verified": False,
        "confidence": 0.7,
        "expires_at": None,
        "mind_id": "default",
        "created_at": NOW,
        "updated_at": NOW,
    }
    base.update(fields)
    return {name: base[name] for name in FIELDS}


def insert(store: MemoryStore, *records: dict[str, Any]) -> None:
    with store.transaction():
        for r in records:
            store.insert(r, at=r["created_at"])


# -- opening ------------------------------------------------------------------


def test_exists_only_after_creation(backend: type[MemoryStore], opener: Opener, tmp_path: Path) -> None:
    if backend.name in BACKEND_FACTORIES:
        pytest.skip("a server backend's existence is its own business")
    directory = str(tmp_path / f"store-{backend.name}")
    assert not backend.exists(directory)
    with pytest.raises(MemError):
        backend.open(directory, create=False)
    assert not backend.exists(directory)
    with opener() as store:
        assert isinstance(store.location, str) and store.location
    assert backend.exists(directory)
    with backend.open(directory, create=False) as store:
        assert store.query(MemoryFilter(now=NOW)) == []


def test_a_closed_store_is_unusable(opener: Opener) -> None:
    store = opener()
    store.close()
    with pytest.raises(Exception):  # noqa: B017 - any error, as long as it is not silent
        store.get("mem_0")


# -- records round-trip -----------------------------------------------------------


def test_insert_then_read_gives_the_same_record(store: MemoryStore) -> None:
    r = record(
        category="identity",
        key="user_name",
        content="Michael Schäfer\nsecond line ✓ 😀",
        tags=["person", "identity", "münchen"],
        priority="critical",
        source="user",
        verified=True,
        confidence=1.0,
        expires_at="2027-01-01T00:00:00.000Z",
        mind_id="Michael's Mind",
    )
    insert(store, r)
    for found in (store.get(r["id"]), store.get_by_key("Michael's Mind", "identity", "user_name")):
        assert found == r
        assert found is not None and list(found) == list(FIELDS)
        assert type(found["verified"]) is bool and type(found["confidence"]) is float
        assert isinstance(found["tags"], list)
    assert store.get("mem_ffffffffffffffff") is None
    assert store.get_by_key("default", "identity", "user_name") is None


def test_confidence_stays_a_float_and_big_content_survives(store: MemoryStore) -> None:
    r = record(confidence=0.0, content="x" * 16384)
    insert(store, r)
    found = store.get(r["id"])
    assert found is not None and found["confidence"] == 0.0 and type(found["confidence"]) is float
    assert found["content"] == "x" * 16384


def test_mind_category_key_is_unique(store: MemoryStore) -> None:
    first = record(key="same")
    insert(store, first)
    with pytest.raises(MemError):
        insert(store, record(key="same"))
    insert(store, record(key="same", mind_id="other"), record(key="same", category="note"))
    assert store.get_by_key("default", "fact", "same") == first
    assert len(store.query(MemoryFilter(now=NOW))) == 3


# -- transactions -----------------------------------------------------------------


def test_writes_outside_a_transaction_are_refused(store: MemoryStore) -> None:
    r = record()
    with pytest.raises(RuntimeError):
        store.insert(r, at=NOW)
    assert store.get(r["id"]) is None


def test_a_failed_transaction_leaves_no_trace(store: MemoryStore) -> None:
    kept = record()
    insert(store, kept)
    lost = record()
    with pytest.raises(ZeroDivisionError), store.transaction():
        store.insert(lost, at=NOW)
        store.update({**kept, "content": "changed"}, action="update", at=LATER)
        store.delete(kept["id"], at=LATER)
        1 / 0  # noqa: B018
    assert store.get(lost["id"]) is None
    assert not store.id_known(lost["id"])
    assert store.history(lost["id"]) == []
    assert store.get(kept["id"]) == kept
    assert [e["action"] for e in store.history(kept["id"])] == ["create"]
    assert store.search(["changed"], MemoryFilter(now=NOW)) == []


def test_transactions_do_not_nest(store: MemoryStore) -> None:
    with store.transaction(), pytest.raises(RuntimeError), store.transaction():
        pass  # pragma: no cover


def test_a_transaction_excludes_other_connections(opener: Opener) -> None:
    """A read-then-write in one connection's transaction is atomic: another
    connection's transaction waits until it commits."""
    events: list[str] = []
    r = record()
    opened = threading.Event()

    def other() -> None:
        try:
            with opener() as second:  # a connection belongs to its thread
                opened.set()
                with second.transaction():
                    events.append("second in")
                    found = second.get(r["id"])  # sees what the first committed
                    second.update({**r, "content": "second" if found else "?"}, action="update", at=LATER)
        except Exception as exc:  # pragma: no cover - reported below
            events.append(f"error {exc}")

    with opener() as first:
        thread = threading.Thread(target=other)
        with first.transaction():
            first.insert(r, at=NOW)
            thread.start()
            assert opened.wait(30)
            time.sleep(0.3)
            events.append("first commits")
        thread.join(timeout=60)
        assert events == ["first commits", "second in"]
        found = first.get(r["id"])
        assert found is not None and found["content"] == "second"


def test_another_connection_sees_committed_writes(opener: Opener) -> None:
    with opener() as reader, opener() as writer:
        assert reader.query(MemoryFilter(now=NOW)) == []
        r = record()
        insert(writer, r)
        assert reader.get(r["id"]) == r
        assert reader.query(MemoryFilter(now=NOW)) == [r]


# -- history ------------------------------------------------------------------


def test_update_keeps_every_previous_value(store: MemoryStore) -> None:
    v1 = record(content="v1.4.0 deployed", priority="high")
    insert(store, v1)
    v2 = {**v1, "content": "v1.5.0 deployed", "tags": ["synapse"], "updated_at": LATER}
    with store.transaction():
        store.update(v2, action="update", at=LATER)
    v3 = {**v2, "verified": True}
    with store.transaction():
        store.update(v3, action="verify", at="2026-11-07T00:00:00.000Z")
    assert store.get(v1["id"]) == v3
    history = store.history(v1["id"])
    assert [(e["action"], e["at"], e["memory"]) for e in history] == [
        ("create", NOW, v1),
        ("update", LATER, v2),
        ("verify", "2026-11-07T00:00:00.000Z", v3),
    ]
    assert [e["memory_id"] for e in history] == [v1["id"]] * 3
    assert history[0]["seq"] < history[1]["seq"] < history[2]["seq"]
    assert len(store.query(MemoryFilter(now=NOW))) == 1


def test_update_of_a_missing_memory_is_an_error(store: MemoryStore) -> None:
    with pytest.raises(MemError), store.transaction():
        store.update(record(), action="update", at=NOW)


def test_delete_leaves_a_tombstone_and_the_id_is_never_free_again(store: MemoryStore) -> None:
    r = record(content="forget me", tags=["gone"])
    insert(store, r)
    with store.transaction():
        store.delete(r["id"], at=LATER)
    assert store.get(r["id"]) is None
    assert store.get_by_key("default", "fact", r["key"]) is None
    assert store.query(MemoryFilter(now=NOW, include_expired=True)) == []
    assert store.search(["forget"], MemoryFilter(now=NOW)) == []
    assert store.recall_candidates(["forget"], now=NOW) == []
    assert store.id_known(r["id"])
    assert [(e["action"], e["at"], e["memory"]) for e in store.history(r["id"])] == [
        ("create", NOW, r),
        ("delete", LATER, r),
    ]
    again = record(key=r["key"])  # the key is free again, under a new id
    insert(store, again)
    assert store.get_by_key("default", "fact", r["key"]) == again
    with pytest.raises(MemError), store.transaction():
        store.delete(r["id"], at=LATER)


# -- queries --------------------------------------------------------------------


def _sample() -> list[dict[str, Any]]:
    """Memories varied in every filtered field, with ties in priority and time."""
    records = []
    times = ["2026-11-01T00:00:00.000Z", "2026-11-03T00:00:00.000Z", "2026-11-03T00:00:00.000Z"]
    expiries = [None, "2026-11-05T12:00:00.000Z", "2026-11-05T12:00:00.001Z", "2026-11-20T00:00:00.000Z", "2026-10-01T00:00:00.000Z"]  # fmt: skip
    combos = itertools.product(["fact", "note"], ["critical", "normal", "low"], ["default", "other"], range(3))
    for i, (category, priority, mind, t) in enumerate(combos):
        records.append(
            record(
                category=category,
                key=f"k{i:02d}_{t}",
                priority=priority,
                mind_id=mind,
                updated_at=times[t],
                created_at=times[0],
                tags=[["docker"], ["docker", "swarm"], []][i % 3],
                source=["agent", "user"][i % 2],
                verified=bool(i % 3 == 0),
                expires_at=expiries[i % 5],
                content=f"entry {i} about {'docker swarm' if i % 2 else 'kubernetes'}",
            )
        )
    return records


FILTERS = [
    {},
    {"mind_id": "default"},
    {"mind_id": "other", "category": "note"},
    {"tag": "docker"},
    {"tag": "swarm", "mind_id": "default"},
    {"source": "user"},
    {"verified": True},
    {"verified": False, "priority": "low"},
    {"priority": "critical", "include_expired": True},
    {"include_expired": True},
    {"expires_before": "2026-11-12T12:00:00.000Z", "include_expired": True},
    {"expires_before": "2026-11-12T12:00:00.000Z"},
    {"limit": 5},
    {"limit": 0},
    {"include_expired": True, "limit": 7, "tag": "docker"},
]


@pytest.mark.parametrize("conditions", FILTERS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "all")
def test_query_keeps_what_the_filter_keeps_in_the_documented_order(
    store: MemoryStore, conditions: dict[str, Any]
) -> None:
    records = _sample()
    insert(store, *records)
    where = MemoryFilter(now=NOW, **conditions)
    expected = [r for r in sort_records(records) if where.keeps(r)]
    if where.expires_before is not None:
        expected.sort(key=lambda r: r["expires_at"])  # stable: ties keep the standard order
    if where.limit is not None:
        expected = expected[: where.limit]
    assert [r["id"] for r in store.query(where)] == [r["id"] for r in expected]
    assert store.query(where) == expected


def test_expired_means_at_or_after_expires_at(store: MemoryStore) -> None:
    at_now = record(expires_at=NOW)
    just_after = record(expires_at="2026-11-05T12:00:00.001Z")
    insert(store, at_now, just_after)
    assert store.query(MemoryFilter(now=NOW)) == [just_after]
    assert store.query(MemoryFilter(now="2026-11-05T11:59:59.999Z")) == sort_records([at_now, just_after])


# -- full-text search -------------------------------------------------------------


def test_search_needs_every_word_and_applies_the_filter(store: MemoryStore) -> None:
    records = _sample()
    insert(store, *records)
    where = MemoryFilter(now=NOW, mind_id="default", tag="docker")
    found = store.search(["docker", "swarm"], where)
    expected = {r["id"] for r in records if where.keeps(r) and "docker swarm" in r["content"]}
    assert {r["id"] for r in found} == expected and expected
    assert store.search(["docker", "absent"], MemoryFilter(now=NOW)) == []
    assert store.search([], MemoryFilter(now=NOW)) == []
    assert len(store.search(["docker"], MemoryFilter(now=NOW, limit=2))) == 2


def test_search_covers_key_content_and_tags_without_case_or_accents(store: MemoryStore) -> None:
    by_key = record(key="communication_style", content="Prefers concise answers")
    by_tag = record(content="Uses containers", tags=["kubernetes"])
    accented = record(content="Büro in München, Zeitzone Europe/Berlin")
    insert(store, by_key, by_tag, accented)
    where = MemoryFilter(now=NOW)
    assert store.search(["communication"], where) == [by_key]
    assert store.search(["STYLE"], where) == [by_key]
    assert store.search(["Kubernetes"], where) == [by_tag]
    assert store.search(["muenchen"], where) == []
    assert store.search(["munchen"], where) == [accented]
    assert store.search(["MÜNCHEN", "buro"], where) == [accented]


def test_search_ranks_by_relevance_then_priority_then_recency(store: MemoryStore) -> None:
    strong = record(key="docker_swarm", content="docker swarm docker", priority="low", tags=["docker"])
    weak = record(content="a long note that mentions docker once among many other words of text here")
    tie_low = record(content="docker swarm", priority="low", updated_at=LATER)
    tie_high = record(content="docker swarm", priority="high")
    tie_high_recent = record(content="docker swarm", priority="high", updated_at=LATER)
    insert(store, weak, tie_low, tie_high, strong, tie_high_recent)
    found = [r["id"] for r in store.search(["docker"], MemoryFilter(now=NOW))]
    assert found[0] == strong["id"] and found[-1] == weak["id"]
    assert found[1:4] == [tie_high_recent["id"], tie_high["id"], tie_low["id"]]


def test_search_input_is_never_query_syntax(store: MemoryStore) -> None:
    r = record(content='say "NEAR" OR AND NOT * ( ) : ^ -x')
    insert(store, r)
    for word in ['"NEAR"', "OR", "AND", "NOT", "*", "(", ")", ":", "^", "-x", 'a"b']:
        store.search([word], MemoryFilter(now=NOW))  # never a syntax error
    assert store.search(["near", "or", "and", "not"], MemoryFilter(now=NOW)) == [r]


def test_search_leaves_expired_out_unless_asked(store: MemoryStore) -> None:
    old = record(content="quarterly roadmap", expires_at="2026-11-01T00:00:00.000Z")
    insert(store, old)
    assert store.search(["roadmap"], MemoryFilter(now=NOW)) == []
    assert store.search(["roadmap"], MemoryFilter(now=NOW, include_expired=True)) == [old]


def test_the_index_follows_updates(store: MemoryStore) -> None:
    r = record(content="v1.4.0 deployed", tags=["alpha"])
    insert(store, r)
    with store.transaction():
        store.update({**r, "content": "rollback done", "tags": ["beta"]}, action="update", at=LATER)
    where = MemoryFilter(now=NOW)
    assert store.search(["deployed"], where) == [] and store.search(["alpha"], where) == []
    assert [m["id"] for m in store.search(["rollback"], where)] == [r["id"]]
    assert [m["id"] for m in store.query(MemoryFilter(now=NOW, tag="beta"))] == [r["id"]]
    assert store.query(MemoryFilter(now=NOW, tag="alpha")) == []


# -- recall candidates ------------------------------------------------------------


def test_recall_candidates_without_tokens_are_every_unexpired_memory(store: MemoryStore) -> None:
    records = _sample()
    insert(store, *records)
    expected = [r for r in sort_records(records) if MemoryFilter(now=NOW).keeps(r)]
    assert store.recall_candidates(None, now=NOW) == expected


@pytest.mark.parametrize(
    "tokens",
    [["docker"], ["kubernetes", "nothing"], ["k01_1"], ["cache-values"], ["user_name", "münchen"], ["zzz"], []],
)
def test_recall_candidates_include_every_memory_that_can_score(store: MemoryStore, tokens: list[str]) -> None:
    records = _sample() + [
        record(content="CACHE-values must stay", mind_id="third"),
        record(key="user_name", content="Name in München"),
        record(content="expired cache-values docker", expires_at="2026-01-01T00:00:00.000Z"),
    ]
    insert(store, *records)
    found = store.recall_candidates(tokens, now=NOW)
    must = [r for r in sort_records(records) if MemoryFilter(now=NOW).keeps(r) and set(recall_terms(r)) & set(tokens)]
    found_ids = [r["id"] for r in found]
    assert {r["id"] for r in must} <= set(found_ids)
    assert all(MemoryFilter(now=NOW).keeps(r) for r in found)  # nothing expired
    assert found == sort_records(found)  # in the documented order
