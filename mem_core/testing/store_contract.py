"""The ``MemoryStore`` contract suite: every structured-memory backend must pass it.

A backend's repository subclasses :class:`MemoryStoreContract` in one of its
test files and runs ``pytest -p mem_core.testing``::

    from mem_core.testing import MemoryStoreContract
    from my_package.store import MyStore

    class TestMyStore(MemoryStoreContract):
        store_class = MyStore

Each test gets a fresh, empty store from three fixtures, which a test module,
a ``conftest.py`` or the subclass itself may override (see ``docs/testing.md``):

``mem_store_class``
    the backend class; by default the subclass's :attr:`~MemoryStoreContract.store_class`.
``mem_store_directory``
    the directory of the test's store, new and not yet created.
``mem_store_opener``
    a function of no arguments returning a *new connection* to that one store
    each time it is called (tests open several connections to the same store,
    from several threads); by default
    ``mem_store_class.open(mem_store_directory, create=True)``. A backend that
    needs more than a directory (a server, a DSN) overrides it, or overrides
    ``mem_store_class`` with a class already configured, and may
    ``pytest.skip`` when its server is not available.

What the suite pins down is the interface's docstrings
(``mem_core.plugin.MemoryStore``), with ``MemoryFilter.keeps`` and
``sort_records`` as the reference semantics of queries and ``recall_terms``
as the words a recall candidate must be found by. It uses nothing but
``mem_core.plugin``.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mem_core.plugin import MEMORY_FIELDS, MemError, MemoryFilter, MemoryStore, recall_terms, sort_records
from mem_core.testing.fixtures import NOW

__all__ = [
    "MemoryStoreContract",
    "StoreOpener",
    "NOW",
    "LATER",
    "record",
    "insert",
    "mem_store_class",
    "mem_store_directory",
    "mem_store_opener",
    "mem_store",
]

#: ``opener()`` -> a new connection to the test's store
StoreOpener = Callable[[], MemoryStore]
#: a day after :data:`NOW`, for updates and deletes
LATER = "2026-11-06T12:00:00.000Z"


# -- the fixtures a backend's tests configure -------------------------------------


@pytest.fixture
def mem_store_class(request: pytest.FixtureRequest) -> type[MemoryStore]:
    """The backend under test: the test class's ``store_class``. Override this
    fixture to choose the class otherwise (e.g. parametrized over several)."""
    cls = getattr(request.cls, "store_class", None)
    if cls is None:
        pytest.fail(
            "mem_core.testing: set store_class on your MemoryStoreContract subclass or define a mem_store_class fixture",
            pytrace=False,
        )
    return cls


@pytest.fixture
def mem_store_directory(tmp_path: Path) -> str:
    """The directory of the test's store (``<tmp_path>/store``), not yet created."""
    return str(tmp_path / "store")


@pytest.fixture
def mem_store_opener(mem_store_class: type[MemoryStore], mem_store_directory: str) -> StoreOpener:
    """Opens a new connection to the test's one store at each call:
    ``mem_store_class.open(mem_store_directory, create=True)``."""
    return lambda: mem_store_class.open(mem_store_directory, create=True)


@pytest.fixture
def mem_store(mem_store_opener: StoreOpener) -> Iterator[MemoryStore]:
    """One open connection to the test's fresh, empty store, closed after the test."""
    with mem_store_opener() as opened:
        yield opened


# -- helpers (also for a backend's own tests) ---------------------------------------

_serial = itertools.count(1)


def record(**fields: Any) -> dict[str, Any]:
    """A valid memory record with a new id and key; ``fields`` override the
    defaults (``category="fact"``, ``mind_id="default"``, created and
    updated at :data:`NOW` …). The fields are in ``MEMORY_FIELDS`` order."""
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
    return {name: base[name] for name in MEMORY_FIELDS}


def insert(store: MemoryStore, *records: dict[str, Any]) -> None:
    """Insert ``records`` in one transaction, each created at its ``created_at``."""
    with store.transaction():
        for r in records:
            store.insert(r, at=r["created_at"])


def _inherits(cls: type[MemoryStore], name: str) -> bool:
    """Whether ``cls`` keeps :class:`MemoryStore`'s own ``name``."""
    return getattr(cls, name).__func__ is getattr(MemoryStore, name).__func__  # type: ignore[no-any-return]


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


FILTERS: list[dict[str, Any]] = [
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

RECALL_TOKENS: list[list[str]] = [
    ["docker"],
    ["kubernetes", "nothing"],
    ["k01_1"],
    ["cache-values"],
    ["user_name", "münchen"],
    ["zzz"],
    [],
]


class MemoryStoreContract:
    """The contract tests; subclass it as ``Test<YourBackend>`` and set
    :attr:`store_class` (or define the ``mem_store_*`` fixtures). The class
    itself is not collected (its name does not start with ``Test``)."""

    #: the backend under test (read by the default ``mem_store_class`` fixture)
    store_class: ClassVar[type[MemoryStore] | None] = None

    # -- the class and opening ------------------------------------------------

    def test_the_backend_is_a_named_memory_store(self, mem_store_class: type[MemoryStore]) -> None:
        assert isinstance(mem_store_class, type) and issubclass(mem_store_class, MemoryStore)
        assert isinstance(mem_store_class.name, str) and mem_store_class.name

    def test_exists_only_after_creation(
        self, mem_store_class: type[MemoryStore], mem_store_directory: str, mem_store_opener: StoreOpener
    ) -> None:
        assert not mem_store_class.exists(mem_store_directory)
        with pytest.raises(MemError):
            mem_store_class.open(mem_store_directory, create=False)
        assert not mem_store_class.exists(mem_store_directory)
        with mem_store_opener() as store:
            assert isinstance(store.location, str) and store.location
        assert mem_store_class.exists(mem_store_directory)
        with mem_store_class.open(mem_store_directory, create=False) as store:
            assert store.query(MemoryFilter(now=NOW)) == []

    def test_a_read_only_open_of_a_missing_store_creates_nothing(
        self, mem_store_class: type[MemoryStore], mem_store_directory: str
    ) -> None:
        with pytest.raises(MemError):
            mem_store_class.open_read_only(mem_store_directory)
        assert not mem_store_class.exists(mem_store_directory)
        assert not Path(mem_store_directory).exists()

    def test_a_read_only_store_reads_everything_and_refuses_writes(
        self, mem_store_class: type[MemoryStore], mem_store_directory: str, mem_store_opener: StoreOpener
    ) -> None:
        r = record(content="read only docker", tags=["ro"])
        with mem_store_opener() as store:
            insert(store, r)
        with mem_store_class.open_read_only(mem_store_directory) as reader:
            assert reader.get(r["id"]) == r
            assert reader.get_by_key(r["mind_id"], r["category"], r["key"]) == r
            assert reader.query(MemoryFilter(now=NOW)) == [r]
            assert reader.search(["docker"], MemoryFilter(now=NOW)) == [r]
            assert reader.recall_candidates(["docker"], now=NOW) == [r]
            assert [e["action"] for e in reader.history(r["id"])] == ["create"]
            if _inherits(mem_store_class, "open_read_only"):
                return  # MemoryStore's default open_read_only is a writable open: reads only
            with pytest.raises(MemError):
                with reader.transaction():
                    reader.insert(record(), at=NOW)
        with mem_store_opener() as store:
            assert store.query(MemoryFilter(now=NOW)) == [r]

    def test_doctor_reports_named_checks(self, mem_store: MemoryStore) -> None:
        insert(mem_store, record())
        for fix in (False, True):
            checks = mem_store.doctor(fix)
            assert isinstance(checks, list)
            for check in checks:
                assert set(check) == {"name", "status", "detail"}
                assert check["status"] in {"ok", "warn", "error", "fixed"}
                assert all(isinstance(v, str) and "\n" not in v for v in check.values())
            # a healthy store: nothing to repair
            assert all(c["status"] in {"ok", "warn"} for c in checks)

    def test_a_closed_store_is_unusable(self, mem_store_opener: StoreOpener) -> None:
        store = mem_store_opener()
        store.close()
        with pytest.raises(Exception):  # noqa: B017 - any error, as long as it is not silent
            store.get("mem_0")

    # -- records round-trip -------------------------------------------------------

    def test_insert_then_read_gives_the_same_record(self, mem_store: MemoryStore) -> None:
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
        insert(mem_store, r)
        for found in (mem_store.get(r["id"]), mem_store.get_by_key("Michael's Mind", "identity", "user_name")):
            assert found == r
            assert found is not None and list(found) == list(MEMORY_FIELDS)
            assert type(found["verified"]) is bool and type(found["confidence"]) is float
            assert isinstance(found["tags"], list)
        assert mem_store.get("mem_ffffffffffffffff") is None
        assert mem_store.get_by_key("default", "identity", "user_name") is None

    def test_confidence_stays_a_float_and_big_content_survives(self, mem_store: MemoryStore) -> None:
        r = record(confidence=0.0, content="x" * 16384)
        insert(mem_store, r)
        found = mem_store.get(r["id"])
        assert found is not None and found["confidence"] == 0.0 and type(found["confidence"]) is float
        assert found["content"] == "x" * 16384

    def test_mind_category_key_is_unique(self, mem_store: MemoryStore) -> None:
        first = record(key="same")
        insert(mem_store, first)
        with pytest.raises(MemError):
            insert(mem_store, record(key="same"))
        insert(mem_store, record(key="same", mind_id="other"), record(key="same", category="note"))
        assert mem_store.get_by_key("default", "fact", "same") == first
        assert len(mem_store.query(MemoryFilter(now=NOW))) == 3

    # -- transactions -------------------------------------------------------------

    def test_writes_outside_a_transaction_are_refused(self, mem_store: MemoryStore) -> None:
        r = record()
        with pytest.raises(RuntimeError):
            mem_store.insert(r, at=NOW)
        assert mem_store.get(r["id"]) is None

    def test_a_failed_transaction_leaves_no_trace(self, mem_store: MemoryStore) -> None:
        kept = record()
        insert(mem_store, kept)
        lost = record()
        with pytest.raises(ZeroDivisionError), mem_store.transaction():
            mem_store.insert(lost, at=NOW)
            mem_store.update({**kept, "content": "changed"}, action="update", at=LATER)
            mem_store.delete(kept["id"], at=LATER)
            1 / 0  # noqa: B018
        assert mem_store.get(lost["id"]) is None
        assert not mem_store.id_known(lost["id"])
        assert mem_store.history(lost["id"]) == []
        assert mem_store.get(kept["id"]) == kept
        assert [e["action"] for e in mem_store.history(kept["id"])] == ["create"]
        assert mem_store.search(["changed"], MemoryFilter(now=NOW)) == []

    def test_transactions_do_not_nest(self, mem_store: MemoryStore) -> None:
        with mem_store.transaction(), pytest.raises(RuntimeError), mem_store.transaction():
            pass  # pragma: no cover

    def test_a_transaction_excludes_other_connections(self, mem_store_opener: StoreOpener) -> None:
        """A read-then-write in one connection's transaction is atomic: another
        connection's transaction waits until it commits."""
        events: list[str] = []
        r = record()
        opened = threading.Event()

        def other() -> None:
            try:
                with mem_store_opener() as second:  # a connection belongs to its thread
                    opened.set()
                    with second.transaction():
                        events.append("second in")
                        found = second.get(r["id"])  # sees what the first committed
                        second.update({**r, "content": "second" if found else "?"}, action="update", at=LATER)
            except Exception as exc:  # pragma: no cover - reported below
                events.append(f"error {exc}")

        with mem_store_opener() as first:
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

    def test_another_connection_sees_committed_writes(self, mem_store_opener: StoreOpener) -> None:
        with mem_store_opener() as reader, mem_store_opener() as writer:
            assert reader.query(MemoryFilter(now=NOW)) == []
            r = record()
            insert(writer, r)
            assert reader.get(r["id"]) == r
            assert reader.query(MemoryFilter(now=NOW)) == [r]

    # -- signatures (structured-memory.md, Trust) ----------------------------

    def _signature(self, memory_id: str, n: int = 1) -> dict[str, Any]:
        return {"memory_id": memory_id, "by": "ada", "fingerprint": f"SHA256:fp{n}", "verified_at": NOW,
                "signature": f"c2lnbmF0dXJl{n}"}  # fmt: skip

    def test_signatures_are_kept_per_memory_in_order_and_dropped(self, mem_store: MemoryStore) -> None:
        a, b = record(), record()
        insert(mem_store, a, b)
        if type(mem_store).add_signature is MemoryStore.add_signature:
            # a backend that keeps no signatures refuses them: nothing it stores reads verified
            with mem_store.transaction(), pytest.raises(MemError):
                mem_store.add_signature(self._signature(a["id"]))
            assert mem_store.signatures(a["id"]) == [] and mem_store.signatures_of([a["id"]]) == {}
            return
        first, second, other = self._signature(a["id"], 1), self._signature(a["id"], 2), self._signature(b["id"], 3)
        with mem_store.transaction():
            for row in (first, second, other):
                mem_store.add_signature(row)
        assert mem_store.signatures(a["id"]) == [first, second]
        assert mem_store.signatures_of([a["id"], b["id"], "mem_ffff"]) == {a["id"]: [first, second], b["id"]: [other]}
        with mem_store.transaction():
            mem_store.drop_signatures(a["id"])
        assert mem_store.signatures(a["id"]) == [] and mem_store.signatures(b["id"]) == [other]
        with mem_store.transaction():
            mem_store.delete(b["id"], at=LATER)
        assert mem_store.signatures(b["id"]) == []  # a forgotten memory keeps no signature

    def test_signatures_follow_the_transaction(self, mem_store: MemoryStore) -> None:
        a = record()
        insert(mem_store, a)
        if type(mem_store).add_signature is MemoryStore.add_signature:  # refused, and the write rolled back
            other = record()
            with pytest.raises(MemError), mem_store.transaction():
                mem_store.insert(other, at=NOW)
                mem_store.add_signature(self._signature(other["id"]))
            assert mem_store.get(other["id"]) is None
            return
        with pytest.raises(MemError), mem_store.transaction():
            mem_store.add_signature(self._signature(a["id"]))
            raise MemError("rolled back")
        assert mem_store.signatures(a["id"]) == []
        with pytest.raises(RuntimeError):
            mem_store.add_signature(self._signature(a["id"]))  # outside a transaction

    # -- history --------------------------------------------------------------

    def test_update_keeps_every_previous_value(self, mem_store: MemoryStore) -> None:
        v1 = record(content="v1.4.0 deployed", priority="high")
        insert(mem_store, v1)
        v2 = {**v1, "content": "v1.5.0 deployed", "tags": ["synapse"], "updated_at": LATER}
        with mem_store.transaction():
            mem_store.update(v2, action="update", at=LATER)
        v3 = {**v2, "verified": True}
        with mem_store.transaction():
            mem_store.update(v3, action="verify", at="2026-11-07T00:00:00.000Z")
        assert mem_store.get(v1["id"]) == v3
        history = mem_store.history(v1["id"])
        assert [(e["action"], e["at"], e["memory"]) for e in history] == [
            ("create", NOW, v1),
            ("update", LATER, v2),
            ("verify", "2026-11-07T00:00:00.000Z", v3),
        ]
        assert [e["memory_id"] for e in history] == [v1["id"]] * 3
        assert history[0]["seq"] < history[1]["seq"] < history[2]["seq"]
        assert len(mem_store.query(MemoryFilter(now=NOW))) == 1

    def test_update_of_a_missing_memory_is_an_error(self, mem_store: MemoryStore) -> None:
        with pytest.raises(MemError), mem_store.transaction():
            mem_store.update(record(), action="update", at=NOW)

    def test_delete_leaves_a_tombstone_and_the_id_is_never_free_again(self, mem_store: MemoryStore) -> None:
        r = record(content="forget me", tags=["gone"])
        insert(mem_store, r)
        with mem_store.transaction():
            mem_store.delete(r["id"], at=LATER)
        assert mem_store.get(r["id"]) is None
        assert mem_store.get_by_key("default", "fact", r["key"]) is None
        assert mem_store.query(MemoryFilter(now=NOW, include_expired=True)) == []
        assert mem_store.search(["forget"], MemoryFilter(now=NOW)) == []
        assert mem_store.recall_candidates(["forget"], now=NOW) == []
        assert mem_store.id_known(r["id"])
        assert [(e["action"], e["at"], e["memory"]) for e in mem_store.history(r["id"])] == [
            ("create", NOW, r),
            ("delete", LATER, r),
        ]
        again = record(key=r["key"])  # the key is free again, under a new id
        insert(mem_store, again)
        assert mem_store.get_by_key("default", "fact", r["key"]) == again
        with pytest.raises(MemError), mem_store.transaction():
            mem_store.delete(r["id"], at=LATER)

    # -- queries --------------------------------------------------------------

    @pytest.mark.parametrize("conditions", FILTERS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "all")
    def test_query_keeps_what_the_filter_keeps_in_the_documented_order(
        self, mem_store: MemoryStore, conditions: dict[str, Any]
    ) -> None:
        records = _sample()
        insert(mem_store, *records)
        where = MemoryFilter(now=NOW, **conditions)
        expected = [r for r in sort_records(records) if where.keeps(r)]
        if where.expires_before is not None:
            expected.sort(key=lambda r: r["expires_at"])  # stable: ties keep the standard order
        assert mem_store.count(where) == len(expected)  # the limit aside
        if where.limit is not None:
            expected = expected[: where.limit]
        assert [r["id"] for r in mem_store.query(where)] == [r["id"] for r in expected]
        assert mem_store.query(where) == expected
        with mem_store.reading():  # streamed, in one view of the store: the same
            assert list(mem_store.iter_query(where)) == expected

    def test_signed_are_the_kept_memories_with_signature_rows(self, mem_store: MemoryStore) -> None:
        records = _sample()
        insert(mem_store, *records)
        where = MemoryFilter(now=NOW, mind_id="default", limit=1)
        assert mem_store.signed(where) == []
        if type(mem_store).add_signature is MemoryStore.add_signature:
            return  # a backend that keeps no signatures: none is signed
        chosen = records[::4]
        with mem_store.transaction():
            for n, r in enumerate(chosen):
                mem_store.add_signature(self._signature(r["id"], n))
                mem_store.add_signature(self._signature(r["id"], n + 100))  # two rows: still once
        kept = MemoryFilter(now=NOW, mind_id="default")
        expected = [r for r in sort_records(chosen) if kept.keeps(r)]
        assert expected and mem_store.signed(where) == expected  # the limit aside

    def test_expired_means_at_or_after_expires_at(self, mem_store: MemoryStore) -> None:
        at_now = record(expires_at=NOW)
        just_after = record(expires_at="2026-11-05T12:00:00.001Z")
        insert(mem_store, at_now, just_after)
        assert mem_store.query(MemoryFilter(now=NOW)) == [just_after]
        assert mem_store.query(MemoryFilter(now="2026-11-05T11:59:59.999Z")) == sort_records([at_now, just_after])

    # -- full-text search -----------------------------------------------------

    def test_search_matches_any_word_and_applies_the_filter(self, mem_store: MemoryStore) -> None:
        records = _sample()
        insert(mem_store, *records)
        where = MemoryFilter(now=NOW, mind_id="default", tag="docker")
        found = mem_store.search(["kubernetes", "swarm"], where)
        text = lambda r: r["content"] + " " + " ".join(r["tags"])  # noqa: E731
        expected = {r["id"] for r in records if where.keeps(r) and ("swarm" in text(r) or "kubernetes" in text(r))}
        assert {r["id"] for r in found} == expected and expected
        # a word that matches nothing does not hide what the other words find
        docker = {r["id"] for r in mem_store.search(["docker"], MemoryFilter(now=NOW))}
        assert {r["id"] for r in mem_store.search(["docker", "absent"], MemoryFilter(now=NOW))} == docker
        assert mem_store.search(["absent", "missing"], MemoryFilter(now=NOW)) == []
        assert mem_store.search([], MemoryFilter(now=NOW)) == []
        assert len(mem_store.search(["docker"], MemoryFilter(now=NOW, limit=2))) == 2
        # counted as found, the limit aside
        assert mem_store.search_count(
            ["kubernetes", "swarm"], MemoryFilter(now=NOW, mind_id="default", tag="docker", limit=1)
        ) == len(expected)
        assert mem_store.search_count(["absent"], MemoryFilter(now=NOW)) == 0
        assert mem_store.search_count([], MemoryFilter(now=NOW)) == 0

    def test_search_ranks_memories_matching_more_words_first(self, mem_store: MemoryStore) -> None:
        one = record(content="the cache is warmed at start")
        both = record(content="invalidate the cache after a deploy")
        other = record(content="the deploy runs on fridays")
        insert(mem_store, one, other, both)
        found = [r["id"] for r in mem_store.search(["cache", "deploy", "absent"], MemoryFilter(now=NOW))]
        assert found[0] == both["id"] and set(found) == {one["id"], both["id"], other["id"]}

    def test_search_finds_stems_and_prefixes(self, mem_store: MemoryStore) -> None:
        cache = record(content="Cache the compiled templates")
        config = record(content="The configuration lives in settings.toml")
        insert(mem_store, cache, config)
        where = MemoryFilter(now=NOW)
        assert mem_store.search(["caching"], where) == [cache]
        assert mem_store.search(["caches"], where) == [cache]
        assert mem_store.search(["config"], where) == [config]
        assert mem_store.search(["how", "do", "I", "configure", "it"], where) == [config]

    def test_search_covers_key_content_and_tags_without_case_or_accents(self, mem_store: MemoryStore) -> None:
        by_key = record(key="communication_style", content="Prefers concise answers")
        by_tag = record(content="Uses containers", tags=["kubernetes"])
        accented = record(content="Büro in München, Zeitzone Europe/Berlin")
        insert(mem_store, by_key, by_tag, accented)
        where = MemoryFilter(now=NOW)
        assert mem_store.search(["communication"], where) == [by_key]
        assert mem_store.search(["STYLE"], where) == [by_key]
        assert mem_store.search(["Kubernetes"], where) == [by_tag]
        assert mem_store.search(["muenchen"], where) == []
        assert mem_store.search(["munchen"], where) == [accented]
        assert mem_store.search(["MÜNCHEN", "buro"], where) == [accented]

    def test_search_ranks_by_relevance_then_priority_then_recency(self, mem_store: MemoryStore) -> None:
        strong = record(key="docker_swarm", content="docker swarm docker", priority="low", tags=["docker"])
        weak = record(content="a long note that mentions docker once among many other words of text here")
        tie_low = record(content="docker swarm", priority="low", updated_at=LATER)
        tie_high = record(content="docker swarm", priority="high")
        tie_high_recent = record(content="docker swarm", priority="high", updated_at=LATER)
        insert(mem_store, weak, tie_low, tie_high, strong, tie_high_recent)
        found = [r["id"] for r in mem_store.search(["docker"], MemoryFilter(now=NOW))]
        assert found[0] == strong["id"] and found[-1] == weak["id"]
        assert found[1:4] == [tie_high_recent["id"], tie_high["id"], tie_low["id"]]

    def test_search_input_is_never_query_syntax(self, mem_store: MemoryStore) -> None:
        r = record(content='say "NEAR" OR AND NOT * ( ) : ^ -x')
        insert(mem_store, r)
        for word in ['"NEAR"', "OR", "AND", "NOT", "*", "(", ")", ":", "^", "-x", 'a"b']:
            mem_store.search([word], MemoryFilter(now=NOW))  # never a syntax error
        assert mem_store.search(["near", "or", "and", "not"], MemoryFilter(now=NOW)) == [r]

    def test_search_leaves_expired_out_unless_asked(self, mem_store: MemoryStore) -> None:
        old = record(content="quarterly roadmap", expires_at="2026-11-01T00:00:00.000Z")
        insert(mem_store, old)
        assert mem_store.search(["roadmap"], MemoryFilter(now=NOW)) == []
        assert mem_store.search(["roadmap"], MemoryFilter(now=NOW, include_expired=True)) == [old]

    def test_the_index_follows_updates(self, mem_store: MemoryStore) -> None:
        r = record(content="v1.4.0 deployed", tags=["alpha"])
        insert(mem_store, r)
        with mem_store.transaction():
            mem_store.update({**r, "content": "rollback done", "tags": ["beta"]}, action="update", at=LATER)
        where = MemoryFilter(now=NOW)
        assert mem_store.search(["deployed"], where) == [] and mem_store.search(["alpha"], where) == []
        assert [m["id"] for m in mem_store.search(["rollback"], where)] == [r["id"]]
        assert [m["id"] for m in mem_store.query(MemoryFilter(now=NOW, tag="beta"))] == [r["id"]]
        assert mem_store.query(MemoryFilter(now=NOW, tag="alpha")) == []

    # -- recall candidates ----------------------------------------------------

    def test_recall_candidates_without_tokens_are_every_unexpired_memory(self, mem_store: MemoryStore) -> None:
        records = _sample()
        insert(mem_store, *records)
        expected = [r for r in sort_records(records) if MemoryFilter(now=NOW).keeps(r)]
        assert mem_store.recall_candidates(None, now=NOW) == expected

    @pytest.mark.parametrize("tokens", RECALL_TOKENS, ids=lambda tokens: ",".join(tokens) or "none")
    def test_recall_candidates_include_every_memory_that_can_score(
        self, mem_store: MemoryStore, tokens: list[str]
    ) -> None:
        records = _sample() + [
            record(content="CACHE-values must stay", mind_id="third"),
            record(key="user_name", content="Name in München"),
            record(content="expired cache-values docker", expires_at="2026-01-01T00:00:00.000Z"),
        ]
        insert(mem_store, *records)
        found = mem_store.recall_candidates(tokens, now=NOW)
        keeps = MemoryFilter(now=NOW).keeps
        must = [r for r in sort_records(records) if keeps(r) and set(recall_terms(r)) & set(tokens)]
        found_ids = [r["id"] for r in found]
        assert {r["id"] for r in must} <= set(found_ids)
        assert all(keeps(r) for r in found)  # nothing expired
        assert found == sort_records(found)  # in the documented order

    # -- lifecycle: restore, minds, moving a store -------------------------------

    def test_insert_records_the_action_it_is_given(self, mem_store: MemoryStore) -> None:
        r = record()
        insert(mem_store, r)
        with mem_store.transaction():
            mem_store.delete(r["id"], at=LATER)
        back = {**r, "updated_at": LATER}
        with mem_store.transaction():
            mem_store.insert(back, at=LATER, action="restore")
        assert mem_store.get(r["id"]) == back
        assert [(e["action"], e["at"]) for e in mem_store.history(r["id"])] == [
            ("create", NOW),
            ("delete", LATER),
            ("restore", LATER),
        ]
        changed = {**back, "content": "restored again"}
        with mem_store.transaction():
            mem_store.update(changed, action="restore", at=LATER)
        assert mem_store.history(r["id"])[-1]["action"] == "restore"

    def test_minds_count_the_memories_of_each_mind(self, mem_store: MemoryStore) -> None:
        assert mem_store.minds() == []
        records = _sample()
        insert(mem_store, *records)
        with mem_store.transaction():
            mem_store.delete(records[0]["id"], at=LATER)
        counts: dict[str, int] = {}
        for r in records[1:]:
            counts[r["mind_id"]] = counts.get(r["mind_id"], 0) + 1
        assert mem_store.minds() == sorted(counts.items())

    def test_an_imported_memory_gets_its_signatures_back(self, mem_store: MemoryStore) -> None:
        """What ``mem memories import`` does: a memory brought in with its
        history, then its signature rows re-added (``add_signature``), in one
        transaction; ``signatures`` gives them back as they were."""
        r = record()
        insert(mem_store, r)
        assert mem_store.signatures(r["id"]) == []  # none until a human signs
        if type(mem_store).import_memory is MemoryStore.import_memory:
            return  # a backend that does not import memories (optional) has nothing more to keep
        imported = record(content="imported with its signature")
        rows = [self._signature(imported["id"], 1), self._signature(imported["id"], 2)]
        if type(mem_store).add_signature is MemoryStore.add_signature:
            # a backend that keeps no signatures refuses them: the whole import is rolled back
            with pytest.raises(MemError), mem_store.transaction():
                mem_store.import_memory(
                    imported, [{"action": "create", "at": NOW, "memory": imported}], forgotten=False
                )
                mem_store.add_signature(dict(rows[0]))
            assert mem_store.get(imported["id"]) is None and not mem_store.id_known(imported["id"])
            return
        with mem_store.transaction():
            mem_store.import_memory(imported, [{"action": "create", "at": NOW, "memory": imported}], forgotten=False)
            for row in rows:
                mem_store.add_signature(dict(row))
        assert mem_store.signatures(imported["id"]) == rows
        assert mem_store.signatures_of([imported["id"], r["id"]]) == {imported["id"]: rows}

    def test_an_imported_memory_keeps_its_history_as_it_was(self, mem_store: MemoryStore) -> None:
        if type(mem_store).import_memory is MemoryStore.import_memory:
            pytest.skip("this backend does not import memories (optional)")
        first = record(content="first")
        insert(mem_store, first)
        current = record(content="second version", updated_at=LATER)
        history = [
            {"action": "create", "at": NOW, "memory": {**current, "content": "first version", "updated_at": NOW}},
            {"action": "update", "at": LATER, "memory": current},
        ]
        gone = record(content="forgotten")
        gone_history = [
            {"action": "create", "at": NOW, "memory": gone},
            {"action": "delete", "at": LATER, "memory": gone},
        ]
        with mem_store.transaction():
            mem_store.import_memory(current, history, forgotten=False)
            mem_store.import_memory(gone, gone_history, forgotten=True)
        assert mem_store.get(current["id"]) == current
        assert mem_store.get(gone["id"]) is None and mem_store.id_known(gone["id"])
        assert [{k: e[k] for k in ("action", "at", "memory")} for e in mem_store.history(current["id"])] == history
        assert [e["action"] for e in mem_store.history(gone["id"])] == ["create", "delete"]
        assert mem_store.known_ids() == [first["id"], current["id"], gone["id"]]
        assert [m["id"] for m in mem_store.search(["second"], MemoryFilter(now=LATER))] == [current["id"]]
        assert current["id"] in [m["id"] for m in mem_store.recall_candidates(["second"], now=LATER)]

    def test_a_failed_import_leaves_nothing(self, mem_store: MemoryStore) -> None:
        if type(mem_store).import_memory is MemoryStore.import_memory:
            pytest.skip("this backend does not import memories (optional)")
        r = record()
        with pytest.raises(RuntimeError), mem_store.transaction():
            mem_store.import_memory(r, [{"action": "create", "at": NOW, "memory": r}], forgotten=False)
            raise RuntimeError("the import failed later")
        assert mem_store.get(r["id"]) is None and not mem_store.id_known(r["id"])
        assert mem_store.known_ids() == []
