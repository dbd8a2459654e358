"""A pure-Python ``MemoryStore``: the contract's second backend.

It keeps each store in process memory, keyed by directory, and exists to show
that the contract suite (``mem_core.testing``) is backend-agnostic (and what a backend must
do): isolated, exclusive transactions; an append-only history; search for any
of the words, case- and accent-insensitive, by stem or prefix, ranked by a
BM25 score;
``recall_candidates`` returning a superset (all unexpired memories), which the
contract allows.
"""

from __future__ import annotations

import copy
import math
import re
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from mem_core.errors import MemError
from mem_core.memories.records import MemoryFilter, sort_records
from mem_core.plugin import MemoryStore, search_words
from mem_core.retrieval.analysis import stem

_WORD = re.compile(r"[^\W_]+")
#: key and tags weigh twice as much as content, as in the sqlite backend
_WEIGHTS = {"key": 2.0, "content": 1.0, "tags": 2.0}


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.memories: dict[str, dict[str, Any]] = {}
        self.history: list[dict[str, Any]] = []
        self.signatures: list[dict[str, Any]] = []


class DictStore(MemoryStore):
    """Memories in a dict, one per directory, shared by every connection."""

    name = "dict"
    help = "in-process dict (tests only)"
    _stores: ClassVar[dict[str, _State]] = {}
    _guard = threading.Lock()

    def __init__(self, directory: str, state: _State) -> None:
        self._directory = directory
        self._state: _State | None = state
        self._work: _State | None = None  # the transaction's copy

    @classmethod
    def exists(cls, directory: str) -> bool:
        return directory in cls._stores

    @classmethod
    def open(cls, directory: str, *, create: bool) -> DictStore:
        with cls._guard:
            if directory not in cls._stores:
                if not create:
                    raise MemError(f"No memory store at dict:{directory}.")
                cls._stores[directory] = _State()
            return cls(directory, cls._stores[directory])

    @property
    def location(self) -> str:
        return f"dict:{self._directory}"

    def close(self) -> None:
        self._state = None

    def _view(self) -> _State:
        if self._state is None:
            raise RuntimeError("the memory store is closed")
        return self._work or self._state

    @contextmanager
    def transaction(self) -> Iterator[None]:
        state = self._view()
        if self._work is not None:
            raise RuntimeError("a memory store transaction is already open")
        with state.lock:
            work = _State()
            work.memories = copy.deepcopy(state.memories)
            work.history = list(state.history)
            work.signatures = list(state.signatures)
            self._work = work
            try:
                yield
            finally:
                self._work = None
            state.memories, state.history, state.signatures = work.memories, work.history, work.signatures  # commit

    def _writing(self) -> _State:
        if self._work is None:
            raise RuntimeError("memory store writes must happen inside store.transaction()")
        return self._work

    def get(self, memory_id: str) -> dict[str, Any] | None:
        found = self._view().memories.get(memory_id)
        return copy.deepcopy(found) if found else None

    def get_by_key(self, mind_id: str, category: str, key: str) -> dict[str, Any] | None:
        for record in self._view().memories.values():
            if (record["mind_id"], record["category"], record["key"]) == (mind_id, category, key):
                return copy.deepcopy(record)
        return None

    def id_known(self, memory_id: str) -> bool:
        view = self._view()
        return memory_id in view.memories or any(e["memory_id"] == memory_id for e in view.history)

    def _log(self, work: _State, record: dict[str, Any], action: str, at: str) -> None:
        work.history.append(
            {"seq": len(work.history) + 1, "memory_id": record["id"], "action": action, "at": at,
             "memory": copy.deepcopy(record)}
        )  # fmt: skip

    def insert(self, record: dict[str, Any], *, at: str, action: str = "create") -> None:
        work = self._writing()
        if record["id"] in work.memories or self.get_by_key(record["mind_id"], record["category"], record["key"]):
            raise MemError(f"Memory store {self.location}: the memory already exists.")
        work.memories[record["id"]] = copy.deepcopy(record)
        self._log(work, record, action, at)

    def known_ids(self) -> list[str]:
        return list(dict.fromkeys(e["memory_id"] for e in self._view().history))

    def import_memory(self, record: dict[str, Any], history: list[dict[str, Any]], *, forgotten: bool) -> None:
        work = self._writing()
        if self.id_known(record["id"]) or (
            not forgotten and self.get_by_key(record["mind_id"], record["category"], record["key"])
        ):
            raise MemError(f"Memory store {self.location}: the memory already exists.")
        if not forgotten:
            work.memories[record["id"]] = copy.deepcopy(record)
        for entry in history:
            self._log(work, entry["memory"], entry["action"], entry["at"])

    def update(self, record: dict[str, Any], *, action: str, at: str) -> None:
        work = self._writing()
        old = work.memories.get(record["id"])
        if old is None or any(old[k] != record[k] for k in ("mind_id", "category", "key")):
            raise MemError(f"No memory {record['id']} to update.")
        work.memories[record["id"]] = copy.deepcopy(record)
        self._log(work, record, action, at)

    def delete(self, memory_id: str, *, at: str) -> None:
        work = self._writing()
        record = work.memories.pop(memory_id, None)
        if record is None:
            raise MemError(f"No memory {memory_id} to delete.")
        self.drop_signatures(memory_id)
        self._log(work, record, "delete", at)

    def signatures(self, memory_id: str) -> list[dict[str, Any]]:
        return [dict(s) for s in self._view().signatures if s["memory_id"] == memory_id]

    def add_signature(self, signature: dict[str, Any]) -> None:
        self._writing().signatures.append(dict(signature))

    def drop_signatures(self, memory_id: str) -> None:
        work = self._writing()
        work.signatures = [s for s in work.signatures if s["memory_id"] != memory_id]

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return [copy.deepcopy(e) for e in self._view().history if e["memory_id"] == memory_id]

    def _kept(self, where: MemoryFilter) -> list[dict[str, Any]]:
        return sort_records([copy.deepcopy(r) for r in self._view().memories.values() if where.keeps(r)])

    def query(self, where: MemoryFilter) -> list[dict[str, Any]]:
        kept = self._kept(where)
        if where.expires_before is not None:
            kept.sort(key=lambda r: r["expires_at"])
        return kept if where.limit is None else kept[: where.limit]

    def search(self, words: list[str], where: MemoryFilter) -> list[dict[str, Any]]:
        wanted = search_words(words)
        if not wanted:
            return []
        every = list(self._view().memories.values())
        columns = [
            {"key": _words(r["key"]), "content": _words(r["content"]), "tags": _words(" ".join(r["tags"]))}
            for r in every
        ]
        average = {c: sum(len(doc[c]) for doc in columns) / max(len(columns), 1) or 1.0 for c in _WEIGHTS}

        def same(word: str, found: str) -> bool:
            return stem(found) == stem(word)

        def starts(word: str, found: str) -> bool:
            # the same stem, or (from three letters) the start of a longer word
            return same(word, found) or (len(word) >= 3 and found.startswith(word))

        def count(phrase: tuple[str, ...], column: list[str]) -> int:
            if len(phrase) == 1:
                return sum(1 for w in column if starts(phrase[0], w))
            n = len(phrase)
            return sum(
                1
                for i in range(len(column) - n + 1)
                if all(same(word, found) for word, found in zip(phrase, column[i : i + n], strict=True))
            )

        def score(doc: dict[str, list[str]]) -> float | None:
            total = 0.0
            matched = False
            for phrase in wanted:
                if not any(count(phrase, doc[c]) for c in _WEIGHTS):
                    continue
                matched = True
                having = sum(1 for d in columns if any(count(phrase, d[c]) for c in _WEIGHTS))
                idf = math.log((len(columns) - having + 0.5) / (having + 0.5) + 1)
                for column, weight in _WEIGHTS.items():
                    tf = count(phrase, doc[column])
                    norm = 1.2 * (0.25 + 0.75 * len(doc[column]) / average[column])
                    total += weight * idf * tf * 2.2 / (tf + norm)
            return total if matched else None

        scored = [(score(doc), r) for doc, r in zip(columns, every, strict=True) if where.keeps(r)]
        hits = sort_records([copy.deepcopy(r) for s, r in scored if s is not None])
        by_id = {r["id"]: s for s, r in scored}
        hits.sort(key=lambda r: -by_id[r["id"]])  # stable: ties keep the query order
        return hits if where.limit is None else hits[: where.limit]

    def recall_candidates(self, tokens: list[str] | None, *, now: str) -> list[dict[str, Any]]:
        return self._kept(MemoryFilter(now=now))  # a superset: the ranker filters
