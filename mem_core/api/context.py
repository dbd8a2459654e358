"""The kernel's side of what recall plugins get besides the query: the
:class:`~mem_core.retrieval.interfaces.SourceContext` and
:class:`~mem_core.retrieval.interfaces.RankContext` of one recall, which
answer from the kernel (its file cache, its registries) and the actions
(the store chosen, the receipts re-checked). Neither exposes the kernel
itself, so a plugin can only read files under the store's safety rules,
report what it skipped, and ask for the services the interfaces name.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.retrieval.interfaces import RankContext, SourceContext

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from mem_core.embeddings.store import VectorTable
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.retrieval.interfaces import Ranker
    from mem_core.retrieval.query import Query
    from mem_core.settings import Settings

    T = TypeVar("T")

__all__ = ["KernelSourceContext", "KernelRankContext"]


class KernelSourceContext(SourceContext):
    """The kernel's :class:`SourceContext`: its file cache and its stores."""

    __slots__ = ("_kernel",)

    def __init__(
        self, kernel: Kernel, query: Query, settings: Settings | None = None, *, index_dir: str | None = None
    ) -> None:
        self._kernel = kernel
        super().__init__(
            query, settings if settings is not None else kernel.settings.for_project(query.project), index_dir=index_dir
        )

    def cached(
        self, root: str, relative: str, build: Callable[..., T], *args: Hashable, shown_as: str | None = None
    ) -> T | None:
        try:
            return self._kernel.cache.load(root, relative, build, *args)
        except MemError as exc:
            if self._query.strict:
                raise
            self.skip(shown_as or relative, exc.message)
            return None

    def memory_store_absent(self) -> bool:
        return _store_absent(self._kernel, self._settings, self._query.project)

    def memory_store(self) -> type[MemoryStore]:
        return _store_class(self._kernel, self._settings, self._query.project)


def _store_dir(project: str) -> str:
    from mem_core.memories.records import PROJECT_STORE_DIR

    return os.path.join(project, PROJECT_STORE_DIR)


def _store_absent(kernel: Kernel, settings: Settings, project: str) -> bool:
    from mem_core.api.backend import store_absent

    return store_absent(kernel.settings, settings, _store_dir(project))


def _store_class(kernel: Kernel, settings: Settings, project: str) -> type[MemoryStore]:
    from mem_core.api.backend import choose_store

    return choose_store(settings, kernel.stores, _store_dir(project))


class KernelRankContext(RankContext):
    """The kernel's :class:`RankContext`."""

    __slots__ = ("_kernel", "_query")

    def __init__(self, kernel: Kernel, query: Query) -> None:
        self._kernel = kernel
        self._query = query

    @property
    def settings(self) -> Settings:
        return self._kernel.settings

    def ranker(self, name: str) -> Ranker:
        cls = self._kernel.rankers.require(name, f"the '{name}' ranker is not available")
        return cls()

    def memory_vectors(self) -> VectorTable | None:
        if self._query.scope == "all":
            return None
        project = self._query.project
        settings = self._kernel.settings.for_project(project)
        if _store_absent(self._kernel, settings, project):
            return None
        directory = _store_dir(project)
        try:
            backend = _store_class(self._kernel, settings, project)
            return backend.vector_table(directory) if backend.exists(directory) else None
        except MemError:
            return None

    def backed_notes(self) -> set[tuple[str, str, str]]:
        from mem_core.api.trust import backed_notes

        return backed_notes(self._query.project, self._kernel)

    def receipts(self, context_scope: Any) -> list[dict[str, Any]]:
        from mem_core.api.evidence import inspect_outcomes, scopes
        from mem_core.js.values import UNDEFINED

        selected = scopes(UNDEFINED if context_scope is None else list(context_scope))
        return inspect_outcomes(self._query.project, kernel=self._kernel, context_scope=selected)
