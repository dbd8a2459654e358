"""What recall plugins get besides the query: a :class:`SourceContext` for
sources and a :class:`RankContext` for rankers.

Both are small objects with methods; neither exposes the kernel itself, so a
plugin can only read files under the store's safety rules, report what it
skipped, and ask the kernel for the services named here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")
    from mem_core.embeddings.store import VectorTable
    from mem_core.kernel import Kernel
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.retrieval.diskindex import IndexedSource, Indexer
    from mem_core.retrieval.interfaces import Query, Ranker
    from mem_core.settings import Settings

__all__ = ["SourceContext", "RankContext", "IndexedNote"]


def _split_note(markdown: str, shown: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    from mem_core.files.markdown import split_sections

    return shown, tuple(split_sections(markdown))


class SourceContext:
    """Given to :meth:`NoteSource.candidates` for one recall."""

    __slots__ = ("_kernel", "_query", "_settings", "_skipped", "_read", "_index_dir")

    def __init__(
        self, kernel: Kernel, query: Query, settings: Settings | None = None, *, index_dir: str | None = None
    ) -> None:
        self._kernel = kernel
        self._query = query
        self._settings = settings if settings is not None else kernel.settings.for_project(query.project)
        self._skipped: list[dict[str, str]] = []
        self._read: set[str] = set()
        #: where the on-disk recall index is, when this recall uses it
        self._index_dir = index_dir

    @property
    def settings(self) -> Settings:
        """The project's settings (read-only)."""
        return self._settings

    @property
    def skipped(self) -> list[dict[str, str]]:
        """What was skipped so far (a copy): ``{"path", "reason"}`` each."""
        return [dict(item) for item in self._skipped]

    def skip(self, path: str, reason: str) -> None:
        """Report that ``path`` (project-relative, as shown to the user) was
        left out of this recall, and why; recall prints it and goes on."""
        self._skipped.append({"path": path, "reason": reason})

    def first_read(self, path: str) -> bool:
        """True the first time an absolute ``path`` is named in this recall, so
        that a file reached by two sources is read once."""
        path = os.path.normpath(path)
        if path in self._read:
            return False
        self._read.add(path)
        return True

    def read_text(self, root: str, relative: str, *, shown_as: str | None = None) -> str | None:
        """The text of ``root/relative`` under the store's safety rules
        (project-relative, no symbolic link on the way, a regular file of at
        most 2 MiB of valid UTF-8); ``None`` when it does not exist.

        An unsafe file raises ``MemError`` when the query is strict; otherwise
        it is reported with :meth:`skip` (as ``shown_as``, default
        ``relative``) and ``None`` is returned.
        """
        from mem_core.files import read_text

        try:
            return read_text(root, relative, missing=True)
        except MemError as exc:
            if self._query.strict:
                raise
            self.skip(shown_as or relative, exc.message)
            return None

    def cached(
        self, root: str, relative: str, build: Callable[..., T], *args: Hashable, shown_as: str | None = None
    ) -> T | None:
        """What ``build(text, *args)`` made of the text of ``root/relative``,
        kept by the kernel for as long as the file is unchanged (its path,
        size, ``mtime_ns``, ``ctime_ns``, inode and device; see
        :mod:`mem_core.files.cache`), so that a long-lived server re-reads
        only what changed. The safety rules, and what an unsafe file does,
        are those of :meth:`read_text`, checked on every call.

        ``build`` is part of the cache key: pass a module-level function or
        class, and hashable ``args``. What it returns is shared by every
        later recall: it must never change afterwards (a source yields
        read-only candidates from it; the kernel hands the caller copies of
        the results' fields).
        """
        try:
            return self._kernel.cache.load(root, relative, build, *args)
        except MemError as exc:
            if self._query.strict:
                raise
            self.skip(shown_as or relative, exc.message)
            return None

    def indexed(self, root: str, relative: str, indexer: Indexer) -> IndexedSource | None:
        """``root/relative`` from the on-disk recall index
        (:mod:`mem_core.retrieval.diskindex`), validated against the file
        as it is now (indexed now if needed), when this recall uses the
        index and the ranker scores from one: in its own analysis
        (:attr:`Query.analyzer`), or in the tokens of docs/contract.md §1 when it
        drops what shares no word with the query. ``None`` otherwise, and
        when the file is missing, unsafe or cannot be indexed exactly: the
        source then reads it as usual (which reports an unsafe file)."""
        analyzer = self._query.analyzer
        if self._index_dir is None or (analyzer is None and self._query.match_tokens is None):
            return None
        from mem_core.retrieval.diskindex import LEXICAL, open_indexed

        try:
            return open_indexed(self._index_dir, root, relative, indexer, analyzer or LEXICAL)
        except (MemError, OSError):
            return None

    def note(
        self, root: str, relative: str, build: Callable[[str, str], T], *, indexer: Indexer | None = None
    ) -> T | IndexedNote | None:
        """The Markdown note ``root/relative`` as ``build(text, shown)``
        made it, through :meth:`cached` (``shown``: the file's path relative
        to the project, as results and skips show it). ``None`` when it does
        not exist, is skipped, or was already read in this recall.

        As ``bmad-plus mem`` does, a strict query passes over a dangling
        symbolic link silently; otherwise it is reported as unsafe.
        """
        path = os.path.normpath(os.path.join(root, relative))
        exists = os.path.exists(path) if self._query.strict else os.path.lexists(path)
        if not exists or not self.first_read(path):
            return None
        shown = os.path.relpath(path, self._query.project).replace(os.sep, "/")
        if indexer is not None:
            indexed = self.indexed(root, relative, indexer)
            if indexed is not None:
                return IndexedNote(indexed, shown)
        return self.cached(root, relative, build, shown, shown_as=shown)

    def sections(self, root: str, relative: str) -> tuple[str, list[tuple[str, str]]] | None:
        """The Markdown note ``root/relative`` as ``(path, sections)``: its
        path relative to the project (as results and skips show it) and its
        ``(heading, text)`` sections, split at ``### `` headings; read with
        :meth:`note`. ``None`` when it does not exist, is skipped, or was
        already read in this recall."""
        note = self.note(root, relative, _split_note)
        return None if note is None else (note[0], list(note[1]))  # type: ignore[index]

    def memory_store_absent(self) -> bool:
        """Whether the project provably holds no structured-memory store,
        learnt without importing a store plugin (only the built-in stores
        are registered, and neither's file is there:
        :func:`mem_core.api.backend.store_absent`). ``False`` says
        nothing: ask :meth:`memory_store`."""
        return _store_absent(self._kernel, self._settings, self._query.project)

    def memory_store(self) -> type[MemoryStore]:
        """The structured-memory backend class the project uses (settings and
        the registered stores decide; raises ``MemError`` when it cannot be
        used)."""
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


class IndexedNote:
    """A note file served from the on-disk recall index: ``source`` (its
    documents) and ``shown`` (its project-relative path)."""

    __slots__ = ("source", "shown")

    def __init__(self, source: IndexedSource, shown: str) -> None:
        self.source = source
        self.shown = shown


class RankContext:
    """Given to :meth:`Ranker.rank` for one recall."""

    __slots__ = ("_kernel", "_query")

    def __init__(self, kernel: Kernel, query: Query) -> None:
        self._kernel = kernel
        self._query = query

    @property
    def settings(self) -> Settings:
        """The kernel's settings (read-only)."""
        return self._kernel.settings

    def ranker(self, name: str) -> Ranker:
        """Another registered ranker, to build on (the evidence ranker scores
        with ``lexical``); ``MemError`` naming why when it is not available."""
        cls = self._kernel.rankers.require(name, f"the '{name}' ranker is not available")
        return cls()

    def memory_vectors(self) -> VectorTable | None:
        """Where the project's structured-memory store keeps the embedding
        vectors of its memories (:meth:`MemoryStore.vector_table`), for the
        ``hybrid`` ranking; ``None`` when they stay in the user cache: the
        store keeps none, there is no store (or it cannot be used), or this
        recall ranks several projects' memories together (``--scope all``)."""
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
        """(file, heading, text hash) of the project's note sections that an
        eligible receipt backs today, for :func:`mem_core.api.trust.trust`
        (nothing read when the project has no receipts)."""
        from mem_core.api.trust import backed_notes

        return backed_notes(self._query.project, self._kernel)

    def receipts(self, context_scope: Any) -> list[dict[str, Any]]:
        """Every evidence receipt of the project, re-checked now by its outcome
        verifier, with ``eligible`` and ``reason`` (docs/contract.md §6, §7);
        ``context_scope`` (the query's, or ``None``) is validated first and
        receipts outside it are ``outside-query-scope``."""
        from mem_core.api.evidence import inspect_outcomes, scopes
        from mem_core.js.values import UNDEFINED

        selected = scopes(UNDEFINED if context_scope is None else list(context_scope))
        return inspect_outcomes(self._query.project, kernel=self._kernel, context_scope=selected)
