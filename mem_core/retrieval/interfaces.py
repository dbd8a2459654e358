"""The recall plugin interface: the two kinds of recall plugins
(:class:`NoteSource`, :class:`Ranker`) and what each is given besides the
query (:class:`SourceContext`, :class:`RankContext`); the query, candidates
and scores they pass are in :mod:`mem_core.retrieval.query`.

A recall runs in four steps, each owned by a plugin or the kernel:

1. the kernel builds one immutable :class:`Query` from the command line;
2. every active :class:`NoteSource` yields :class:`Candidate` objects for it,
   reading files through its :class:`SourceContext` (which applies the store's
   safety rules and reports what it had to skip);
3. the chosen :class:`Ranker` returns :class:`Scored` entries, best first — it
   never changes the candidates it was given;
4. the kernel keeps the first ``query.limit`` of them.

Kept free of heavy imports: this module is on the start-up path of ``recall``.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    from mem_core.embeddings.store import VectorTable
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.retrieval.diskindex import IndexedSource, Indexer
    from mem_core.retrieval.query import Candidate, CandidateBlock, Query, Scored
    from mem_core.settings import Settings

    T = TypeVar("T")

__all__ = ["NoteSource", "Ranker", "SourceContext", "RankContext", "IndexedNote"]


class NoteSource(ABC):
    """Yields recall candidates: journal events, Markdown sections, structured
    memories, a wiki, tickets …

    Rules the kernel relies on:

    * ``name`` is unique among sources; ``order`` places the source in the tie
      order of recall (journal 10, notes 20, portfolio 30, memories 40);
    * :meth:`candidates` reads project files only through ``context``
      (:meth:`SourceContext.read_text`, :meth:`SourceContext.sections`), which
      applies the store's safety rules (no symbolic links, at most 2 MiB of
      UTF-8) and, unless ``query.strict``, turns an unsafe file into a skip
      reported to the user instead of an error;
    * it may drop a candidate early only as ``query.match_tokens`` allows;
    * it may yield a :class:`CandidateBlock` standing for many candidates
      kept between recalls (see :meth:`SourceContext.cached`).

    Example usage::

        from mem_core.plugin import Candidate, NoteSource, hookimpl

        class Todos(NoteSource):
            name = "todos"
            order = 50

            def candidates(self, query, context):
                text = context.read_text(query.project, "TODO.md")
                for line in (text or "").splitlines():
                    yield Candidate(line, {"kind": "note", "source": "TODO.md", "ref": line[:40], "text": line})

        @hookimpl
        def mem_register_note_sources():
            return [Todos]
    """

    name: ClassVar[str]
    help: ClassVar[str] = ""
    #: position in the tie order of recall
    order: ClassVar[int] = 100

    def active(self, query: Query) -> bool:
        """Whether this source takes part in ``query`` (default: always)."""
        return True

    @abstractmethod
    def candidates(self, query: Query, context: SourceContext) -> Iterable[Candidate | CandidateBlock]:
        """The candidates of this source for ``query`` (a block stands for its candidates)."""


class Ranker(ABC):
    """Scores and orders candidates; ``mem recall --ranking <name>`` picks one.

    Rules the kernel relies on:

    * :meth:`rank` returns :class:`Scored` entries, best first; the kernel
      keeps the first ``query.limit``; ties keep the candidates' order;
    * it never changes a candidate (they are read-only) — extra result fields
      go into :attr:`Scored.extra`;
    * ``needs_query_match = True`` promises that a candidate sharing no token
      with the query is never returned (sources may then skip it early);
      ``strict_sources = True`` asks sources to fail on unsafe files;
    * ``index_analyzer`` (an :class:`~mem_core.retrieval.diskindex.Analyzer`)
      asks for the on-disk recall index of that analysis: sources then give
      every candidate of an indexed file as one :class:`CandidateBlock`
      whose index (its ``space`` the analyzer's ``key``) holds those terms,
      so the ranker can score from the index without reading the texts;
    * :meth:`validate` refuses, with ``MemError``, options the ranker cannot
      serve, before any source is read.

    Example usage::

        from mem_core.plugin import Ranker, Scored, hookimpl, tokenize

        class Shortest(Ranker):
            name = "shortest"
            help = "shortest matching text first"

            def rank(self, query, candidates, context):
                wanted = set(query.tokens)
                kept = [c for c in candidates if wanted & set(tokenize(c.scored_text))]
                return sorted((Scored(c, 1 / len(c.scored_text)) for c in kept), key=lambda s: -s.score)

        @hookimpl
        def mem_register_rankers():
            return [Shortest]
    """

    name: ClassVar[str]
    help: ClassVar[str] = ""
    needs_query_match: ClassVar[bool] = False
    strict_sources: ClassVar[bool] = False
    index_analyzer: ClassVar[Any] = None

    def validate(self, query: Query) -> None:  # noqa: B027 - optional hook, no-op by default
        """Refuse query options this ranker cannot serve (raise ``MemError``)."""

    @abstractmethod
    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        """The candidates worth returning, scored, best first."""


def _split_note(markdown: str, shown: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    from mem_core.files.markdown import split_sections

    return shown, tuple(split_sections(markdown))


class SourceContext(ABC):
    """Given to :meth:`NoteSource.candidates` for one recall.

    What needs the kernel (its file cache, its stores) is abstract here and
    given by the kernel's own context (:mod:`mem_core.api.context`), so that
    this interface stays below the kernel that imports it."""

    __slots__ = ("_query", "_settings", "_skipped", "_read", "_index_dir")

    def __init__(self, query: Query, settings: Settings, *, index_dir: str | None = None) -> None:
        self._query = query
        self._settings = settings
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

    @abstractmethod
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

    @abstractmethod
    def memory_store_absent(self) -> bool:
        """Whether the project provably holds no structured-memory store,
        learnt without importing a store plugin (only the built-in stores
        are registered, and neither's file is there:
        :func:`mem_core.api.backend.store_absent`). ``False`` says
        nothing: ask :meth:`memory_store`."""

    @abstractmethod
    def memory_store(self) -> type[MemoryStore]:
        """The structured-memory backend class the project uses (settings and
        the registered stores decide; raises ``MemError`` when it cannot be
        used)."""


class IndexedNote:
    """A note file served from the on-disk recall index: ``source`` (its
    documents) and ``shown`` (its project-relative path)."""

    __slots__ = ("source", "shown")

    def __init__(self, source: IndexedSource, shown: str) -> None:
        self.source = source
        self.shown = shown


class RankContext(ABC):
    """Given to :meth:`Ranker.rank` for one recall: the services a ranker
    may ask the kernel for (given by the kernel's own context,
    :mod:`mem_core.api.context`)."""

    __slots__ = ()

    @property
    @abstractmethod
    def settings(self) -> Settings:
        """The kernel's settings (read-only)."""

    @abstractmethod
    def ranker(self, name: str) -> Ranker:
        """Another registered ranker, to build on (the evidence ranker scores
        with ``lexical``); ``MemError`` naming why when it is not available."""

    @abstractmethod
    def memory_vectors(self) -> VectorTable | None:
        """Where the project's structured-memory store keeps the embedding
        vectors of its memories (:meth:`MemoryStore.vector_table`), for the
        ``hybrid`` ranking; ``None`` when they stay in the user cache: the
        store keeps none, there is no store (or it cannot be used), or this
        recall ranks several projects' memories together (``--scope all``)."""

    @abstractmethod
    def backed_notes(self) -> set[tuple[str, str, str]]:
        """(file, heading, text hash) of the project's note sections that an
        eligible receipt backs today, for :func:`mem_core.api.trust.trust`
        (nothing read when the project has no receipts)."""

    @abstractmethod
    def receipts(self, context_scope: Any) -> list[dict[str, Any]]:
        """Every evidence receipt of the project, re-checked now by its outcome
        verifier, with ``eligible`` and ``reason`` (docs/contract.md §6, §7);
        ``context_scope`` (the query's, or ``None``) is validated first and
        receipts outside it are ``outside-query-scope``."""
