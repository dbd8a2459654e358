"""Everything a plugin author imports: ``from mem_core.plugin import …``.

A plugin is a module (or object) with :data:`hookimpl` functions named after
the hooks of :mod:`mem_core.hookspecs`; each registration hook returns classes
deriving from the base classes below. Nothing else in ``mem_core`` is public
to plugins: what a plugin needs is given to it as arguments (a read-only
query, a context with methods) or is one of the helpers here.

Names are loaded on first use, so importing this module costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from mem_core import hookimpl
from mem_core.errors import MemError

if TYPE_CHECKING:
    from typing import Any

#: public name -> module that defines it
_NAMES = {
    # recall: the query, candidates, scores, sources and rankers
    "Query": "mem_core.retrieval.interfaces",
    "Candidate": "mem_core.retrieval.interfaces",
    "CandidateBlock": "mem_core.retrieval.interfaces",
    "Candidates": "mem_core.retrieval.interfaces",
    "Scored": "mem_core.retrieval.interfaces",
    "NoteSource": "mem_core.retrieval.interfaces",
    "Ranker": "mem_core.retrieval.interfaces",
    "SourceContext": "mem_core.retrieval.context",
    "RankContext": "mem_core.retrieval.context",
    "tokenize": "mem_core.retrieval.text",
    "Terms": "mem_core.retrieval.text",
    "TermIndex": "mem_core.retrieval.index",
    "OnSecondUse": "mem_core.retrieval.index",
    # the on-disk recall index (sources that index their files)
    "Indexer": "mem_core.retrieval.diskindex",
    "Doc": "mem_core.retrieval.diskindex",
    "Built": "mem_core.retrieval.diskindex",
    "IndexedSource": "mem_core.retrieval.diskindex",
    "DiskTermIndex": "mem_core.retrieval.diskindex",
    "LazyCandidate": "mem_core.retrieval.diskindex",
    "IndexCorrupt": "mem_core.retrieval.diskindex",
    "Analyzer": "mem_core.retrieval.diskindex",
    "LEXICAL": "mem_core.retrieval.diskindex",
    "JOURNAL_INDEXER": "mem_core.retrieval.indexers",
    "NOTE_INDEXER": "mem_core.retrieval.indexers",
    "note_of_blob": "mem_core.retrieval.indexers",
    # journal events as recall sees them (the journal source and the portfolio index)
    "SignalsJSON": "mem_core.journal.events",
    "event_text": "mem_core.journal.events",
    "event_fields": "mem_core.journal.events",
    "event_of_line": "mem_core.journal.events",
    "event_candidate": "mem_core.journal.events",
    "decay": "mem_core.journal.events",
    "IndexedNote": "mem_core.retrieval.context",
    "query_tokens": "mem_core.retrieval.text",
    "search_terms": "mem_core.retrieval.analysis",
    "search_query_terms": "mem_core.retrieval.analysis",
    "fold_text": "mem_core.retrieval.analysis",
    "search_words": "mem_core.retrieval.analysis",
    "search_stem": "mem_core.retrieval.analysis",
    # what a result is worth as evidence (verified, receipt: accepted-current, unverified)
    "trust_label": "mem_core.retrieval.trust",
    # local embeddings (the optional ``embeddings`` extra; the hybrid ranking)
    "embeddings_missing": "mem_core.embeddings",
    "EMBEDDINGS_MISSING": "mem_core.embeddings",
    "load_embedder": "mem_core.embeddings.model",
    "EmbeddingIndex": "mem_core.embeddings.store",
    "embedding_index_path": "mem_core.embeddings.store",
    # the other plugin kinds
    "RewardSignal": "mem_core.reinforcement.interfaces",
    "OutcomeVerifier": "mem_core.evidence.interfaces",
    "MemoryStore": "mem_core.memories.interfaces",
    "Adapter": "mem_core.adapters.interfaces",
    # structured-memory records, for store backends
    "MemoryFilter": "mem_core.memories.records",
    "MEMORY_FIELDS": "mem_core.memories.records",
    "sort_records": "mem_core.memories.records",
    "recall_terms": "mem_core.memories.records",
    "recall_text": "mem_core.memories.records",
    "PROJECT_STORE_DIR": "mem_core.memories.records",
    "project_store_dir": "mem_core.memories.records",
    # the store's safety rules (mem-cli.md §8) and shared file formats
    "safe_file": "mem_core.files",
    "read_text": "mem_core.files",
    "open_regular": "mem_core.files",
    "split_sections": "mem_core.files.markdown",
    "JOURNAL": "mem_core.files",
    "NOTE_DIRS": "mem_core.files.markdown",
    "NOTE_FILES": "mem_core.files.markdown",
    # JavaScript semantics, for byte-compatible plugins
    "to_number": "mem_core.js.numbers",
    "clamp01": "mem_core.js.numbers",
    "js_string": "mem_core.js.values",
    "truthy": "mem_core.js.values",
    "json_dumps": "mem_core.js.jsonfmt",
    "json_loads": "mem_core.js.jsonfmt",
    "JSONError": "mem_core.js.jsonfmt",
    "js_trim": "mem_core.js.strings",
    "utf16_len": "mem_core.js.strings",
    "parse_ms": "mem_core.clock",
    "js_log": "mem_core.js.jsmath",
    "js_pow": "mem_core.js.jsmath",
    "UNDEFINED": "mem_core.js.values",
    "prop": "mem_core.js.record",
    "strict_equal": "mem_core.js.record",
    "digest": "mem_core.js.record",
}
#: names whose attribute in the defining module differs
_ALIASES = {
    "MEMORY_FIELDS": "FIELDS",
    "to_number": "js_to_number",
    "json_dumps": "dumps",
    "json_loads": "loads",
    "search_terms": "terms",
    "search_query_terms": "query_terms",
    "fold_text": "fold",
    "search_stem": "stem",
    "trust_label": "trust",
    "embeddings_missing": "missing",
    "EMBEDDINGS_MISSING": "MISSING",
    "embedding_index_path": "index_path",
}

__all__ = ["hookimpl", "MemError", *_NAMES]


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core.plugin' has no attribute {name!r}")
    value = getattr(import_module(module), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
