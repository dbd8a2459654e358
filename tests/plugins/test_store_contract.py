"""The ``MemoryStore`` contract, run by the shipped suite
(:class:`mem_core.testing.MemoryStoreContract`) against every backend registered
through ``mem_register_stores``: the default plugins, every installed
``mem.plugins`` entry point, and the pure-Python reference backend of these
tests (:mod:`tests.plugins.dict_store`), so the suite always runs against two
implementations at least.

A backend that opens as ``cls.open(<a fresh directory>, create=True)`` needs
nothing more. One that needs more adds an entry to :data:`BACKEND_SETUP`: a
function ``cls -> class to test`` (the ``postgres`` backend bound to the
throwaway server's DSN; it skips without PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mem_core import hookimpl
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.plugin import MemoryStore
from mem_core.testing import NOW, MemoryStoreContract
from tests.plugins.dict_store import DictStore
from tests.plugins.postgres_server import postgres_dsn

#: backend name -> the class to test, for backends that need more than a directory
BACKEND_SETUP: dict[str, Callable[[type[MemoryStore]], type[MemoryStore]]] = {
    "postgres": lambda cls: cls.bind(postgres_dsn()),  # type: ignore[attr-defined]
}
#: backends whose contract run lives elsewhere: the ``server`` store needs a
#: running ``mem serve`` (tests/server/test_server_store.py runs it, twice)
ELSEWHERE = {"server"}


class DictStorePlugin:
    """An in-test plugin providing the pure-Python reference backend."""

    @hookimpl
    def mem_register_stores(self) -> list[type[MemoryStore]]:
        return [DictStore]


def kernel_with_dict_store() -> Kernel:
    pm = make_plugin_manager()
    pm.register(DictStorePlugin(), name="test-dict-store")
    return Kernel(pm)


BACKENDS = dict(kernel_with_dict_store().stores.items())


def test_the_default_backends_and_the_in_test_one_are_registered() -> None:
    assert {"sqlite", "postgres", "dict"} <= set(BACKENDS)


def test_the_api_uses_the_backend_named_by_mem_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mem_core.api import memories as service

    kernel = kernel_with_dict_store()
    monkeypatch.setenv("MEM_STORE", "dict")
    project = tmp_path / "project"
    stored = service.remember("fact", "k", "kept in a dict", directory=str(project), kernel=kernel, now=NOW).memory
    assert [m.id for m in service.search_memories("dict", directory=str(project), kernel=kernel).memories] == [
        stored.id
    ]
    assert DictStore.exists(str(project / ".bmad" / "memory")) and not project.exists()


@pytest.fixture(params=sorted(set(BACKENDS) - ELSEWHERE))
def mem_store_class(request: pytest.FixtureRequest) -> type[MemoryStore]:
    cls = BACKENDS[request.param]
    setup = BACKEND_SETUP.get(cls.name)
    return setup(cls) if setup else cls


class TestStoreContract(MemoryStoreContract):
    """Every contract test, once per registered backend."""
