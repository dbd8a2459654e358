"""The structured-memory store plugin interface (structured-memory.md)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import AbstractContextManager
    from typing import Any, ClassVar

    from mem_core.embeddings.store import VectorTable
    from mem_core.memories.records import MemoryFilter
    from mem_core.settings import Settings

__all__ = ["MemoryStore"]


class MemoryStore(ABC):
    """A structured-memory backend (see ``structured-memory.md``).

    A backend stores *memory records*: plain dicts with exactly the fields of
    :data:`mem_core.memories.records.FIELDS`, in that order (``tags`` a list of
    str, ``verified`` a bool, ``confidence`` a float, ``expires_at`` a
    timestamp or ``None``; every timestamp ``YYYY-MM-DDTHH:MM:SS.mmmZ``). It
    returns records in that same shape. It does not validate them and does not
    apply the trust rules: :mod:`mem_core.api.memories` does both before calling it.

    One store lives in one *directory* (the project's ``.bmad/memory/`` or the
    user-level data directory); a server backend maps the directory to its own
    namespace. Every backend must pass the contract suite
    :class:`mem_core.testing.MemoryStoreContract` (``pytest -p mem_core.testing``,
    see docs/testing.md).

    Example usage (a complete backend, with its contract test, is in
    docs/testing.md)::

        from mem_core.plugin import MemoryStore, hookimpl

        class JsonStore(MemoryStore):
            name = "json"  # MEM_STORE=json, or store = "json" in mem.toml

            @classmethod
            def exists(cls, directory):
                return os.path.isfile(os.path.join(directory, "memories.json"))

            ...  # open, location, close, transaction, get, get_by_key,
                 # id_known, insert, update, delete, history, query, search,
                 # recall_candidates; and, to keep humans' signatures,
                 # signatures, signatures_of, add_signature, drop_signatures

        @hookimpl
        def mem_register_stores():
            return [JsonStore]

    Writes (:meth:`insert`, :meth:`update`, :meth:`delete`) happen only inside
    :meth:`transaction`, which is exclusive across processes: a read inside it
    followed by a write is atomic. Every write appends to the store's history,
    which nothing ever rewrites.
    """

    #: the backend's name, selected by the ``store`` setting (default ``sqlite``)
    name: ClassVar[str]
    help: ClassVar[str] = ""

    @classmethod
    def configure(cls, settings: Settings) -> type[MemoryStore]:
        """This backend as ``settings`` (:class:`mem_core.settings.Settings`,
        read-only) configure it, before any :meth:`exists` or :meth:`open`:
        by default the class itself. A server backend returns a subclass
        bound to its connection settings (read them here, not from
        ``os.environ``). Must be cheap: no driver import, no connection."""
        return cls

    @classmethod
    @abstractmethod
    def exists(cls, directory: str) -> bool:
        """Whether a store exists in ``directory``. Must be cheap (no database
        driver import): recall asks it on every run."""

    @classmethod
    @abstractmethod
    def open(cls, directory: str, *, create: bool) -> MemoryStore:
        """Open the store in ``directory``, migrating its schema to the current
        version. With ``create`` a missing store (and directory) is created;
        without it a missing store raises ``MemError``. Failures are
        ``MemError`` with a one-line message."""

    @classmethod
    def open_read_only(cls, directory: str) -> MemoryStore:
        """Open the existing store in ``directory`` for reading only: nothing
        is created, migrated or changed, whatever the directory holds. A
        store the backend does not recognise as its own (another schema, an
        empty or foreign file, a newer version, not a regular file) is
        refused with a one-line ``MemError``, untouched; writes
        (:meth:`transaction`) are refused. Readers (``context``,
        ``memories``, recall's source, the brief) open stores this way. The
        default, for backends that predate it, is ``open(directory,
        create=False)``."""
        return cls.open(directory, create=False)

    @classmethod
    def vector_table(cls, directory: str) -> VectorTable | None:
        """Where the store in ``directory`` keeps the embedding vectors of
        its memories' recall texts for the ``hybrid`` ranking
        (:class:`mem_core.embeddings.store.VectorTable`), shared by every
        process that uses the store; ``None`` (the default): in the user
        cache, with the project's other texts. Must be cheap: the table
        connects only when the index opens it."""
        return None

    def doctor(self, fix: bool) -> list[dict[str, str]]:
        """Health checks of the open store for ``mem doctor``: one dict per
        check, ``{"name", "status", "detail"}`` with ``status`` one of
        ``ok warn error fixed``; with ``fix``, repair what is safe to repair
        (e.g. rebuild a search index) and report it ``fixed``. Never changes
        a memory. By default: no checks."""
        return []

    @property
    @abstractmethod
    def location(self) -> str:
        """Where the store is, for messages (a path, or a URL without secrets)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection. The store is unusable afterwards."""

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """An exclusive write transaction: concurrent writers (other processes
        included) wait for it; it commits when the block ends and rolls back,
        leaving no trace, when the block raises. Not re-entrant."""

    @abstractmethod
    def get(self, memory_id: str) -> dict[str, Any] | None:
        """The memory with this id, expired or not; ``None`` if there is none."""

    @abstractmethod
    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:
        """The memory (mind, category, key), expired or not; ``None`` if there is none."""

    @abstractmethod
    def id_known(self, memory_id: str) -> bool:
        """Whether ``memory_id`` is or ever was used (history included), so
        that an id is never reused."""

    @abstractmethod
    def insert(self, record: dict[str, Any], *, at: str, action: str = "create") -> None:
        """Add a new memory (its (mind, category, key) is unused; its id is
        new, or that of a forgotten memory brought back) and record it in the
        history as ``action`` (``create``, or ``restore``) at ``at``."""

    @abstractmethod
    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:
        """Replace the memory with ``record["id"]`` (same mind, category and
        key) and record the new value in the history as ``action``
        (``update``, ``verify`` or ``restore``) at ``at``; the previous value
        stays in the history."""

    @abstractmethod
    def delete(self, memory_id: str, *, at: str) -> None:
        """Remove the memory from every query and record a ``delete``
        tombstone (holding its last value) in the history at ``at``."""

    @abstractmethod
    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Every recorded version of a memory, oldest first, deleted ones
        included: ``{"seq", "memory_id", "action", "at", "memory": <record>}``
        with ``action`` one of ``create update verify restore delete``."""

    # -- lifecycle: minds, moving a store (structured-memory.md) ---------------

    def minds(self) -> list[tuple[str, int]]:
        """Every mind that holds a memory (expired ones included), by name,
        with how many it holds. This default lists every memory; a backend
        may count in its database instead."""
        from mem_core.memories.records import MemoryFilter

        counts: dict[str, int] = {}
        for record in self.query(MemoryFilter(now="", include_expired=True)):
            counts[record["mind_id"]] = counts.get(record["mind_id"], 0) + 1
        return sorted(counts.items())

    def known_ids(self) -> list[str]:
        """Every memory id the history holds (forgotten memories included),
        in the order they were first recorded: what ``mem memories export``
        writes. A backend that supports moving stores implements it."""
        raise MemError(f"the {self.name} memory store cannot export its memories")

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        """Bring in a memory from another store, inside :meth:`transaction`:
        append ``history`` (``{"action", "at", "memory"}`` entries, oldest
        first) to the history as it is, and unless ``forgotten`` make
        ``record`` the current memory, without recording anything more. Its
        id is unknown to this store and its (mind, category, key) unused.
        A backend that supports moving stores implements it."""
        del record, history, forgotten
        raise MemError(f"the {self.name} memory store cannot import memories")

    @abstractmethod
    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:
        """The memories ``where`` keeps (see ``MemoryFilter.keeps``), ordered by
        priority (critical first), then ``updated_at`` (latest first), then
        category, key and mind; when ``where.expires_before`` is set, by
        ``expires_at`` (soonest first) and then in that order. At most
        ``where.limit``."""

    def count(self, where: MemoryFilter) -> int:
        """How many memories ``where`` keeps, its ``limit`` aside. The default
        counts :meth:`query`'s answer; a database backend counts in SQL."""
        import copy

        unlimited = copy.copy(where)
        unlimited.limit = None
        return len(self.query(unlimited))

    def iter_query(self, where: MemoryFilter) -> Iterator[dict[str, Any]]:
        """:meth:`query`'s answer, one record at a time: a backend that can
        stream its rows (a database cursor) overrides it, so that a reader
        that stops early (``mem context`` within its budget) never builds
        the others. By default, :meth:`query`'s list."""
        return iter(self.query(where))

    def signed(self, where: MemoryFilter) -> list[dict[str, Any]]:
        """The memories ``where`` keeps (its ``limit`` aside) that have at
        least one signature row, in :meth:`query` order: the only ones that
        can read as verified (``mem context`` counts them). The default reads
        every such memory and its rows; a database backend joins in SQL."""
        import copy

        unlimited = copy.copy(where)
        unlimited.limit = None
        records = self.query(unlimited)
        signatures = self.signatures_of([r["id"] for r in records]) if records else {}
        return [r for r in records if signatures.get(r["id"])]

    def search_count(self, words: list[str], where: MemoryFilter) -> int:
        """How many memories :meth:`search` finds, ``where.limit`` aside. The
        default counts its answer; a database backend counts in SQL."""
        import copy

        unlimited = copy.copy(where)
        unlimited.limit = None
        return len(self.search(words, unlimited))

    def reading(self) -> AbstractContextManager[None]:
        """A consistent view for several reads (a count, then the rows): a
        read transaction where the backend has one. By default nothing (each
        read sees the latest commit)."""
        from contextlib import nullcontext

        return nullcontext()

    @abstractmethod
    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        """Full-text search: the memories ``where`` keeps whose key, content or
        tags contain some of ``words`` (case- and accent-insensitive; a word
        also matches its English inflections — ``caching``, ``cache`` — and,
        from three letters, the longer words it starts; common question words
        such as ``how`` or ``the`` are ignored unless every word is one, see
        ``mem_core.plugin.search_words``), ranked by the search engine's
        relevance — memories matching more, and rarer, words first — ties by
        the :meth:`query` order. At most ``where.limit``."""

    @abstractmethod
    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:
        """The unexpired memories of every mind, in the :meth:`query` order,
        that ``mem recall`` should score. With ``tokens`` (recall query tokens,
        docs/contract.md §1) the backend may leave out memories none of whose
        ``memory_records.recall_terms`` is among them (they would score 0);
        returning more is allowed, fewer is not. ``None``: all of them."""

    # -- signatures (structured-memory.md, Trust) ---------------------------
    #
    # A *signature row* is ``{"memory_id", "by", "fingerprint", "verified_at",
    # "signature"}`` (all str): a human's vouching for a memory, checked by
    # :mod:`mem_core.memories.trust` on every read. The store keeps the rows;
    # it never checks them and never derives ``verified`` from them. A backend
    # that does not override these methods keeps no signatures: nothing it
    # stores reads as verified.

    def signatures(self, memory_id: str) -> list[dict[str, Any]]:
        """The signature rows of a memory, oldest first (none by default)."""
        return []

    def signatures_of(self, memory_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The signature rows of several memories, by memory id (ids without
        rows may be left out). Override it to read them in one query."""
        found = {memory_id: self.signatures(memory_id) for memory_id in memory_ids}
        return {memory_id: rows for memory_id, rows in found.items() if rows}

    def add_signature(self, signature: dict[str, Any]) -> None:
        """Keep a signature row (inside :meth:`transaction`). A backend that
        keeps none refuses with a one-line ``MemError``."""
        from mem_core.errors import MemError

        raise MemError(f"the {self.name} memory store keeps no signatures; nothing was changed.")

    def drop_signatures(self, memory_id: str) -> None:
        """Forget a memory's signature rows (inside :meth:`transaction`): its
        content or fields changed, or it was deleted. Nothing by default."""
        return None
