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

from mem_core.errors import MemError as MemError
from mem_core.errors import TryAgain as TryAgain

if TYPE_CHECKING:
    from typing import Any

    from mem_core.adapters.edits import Block as Block
    from mem_core.adapters.edits import Edit as Edit
    from mem_core.adapters.edits import JsonItem as JsonItem
    from mem_core.adapters.edits import JsonMember as JsonMember
    from mem_core.adapters.edits import OwnedFile as OwnedFile
    from mem_core.adapters.edits import TomlTable as TomlTable
    from mem_core.adapters.edits import YamlListItems as YamlListItems
    from mem_core.adapters.instructions import MCP_ARGS as MCP_ARGS
    from mem_core.adapters.instructions import hook_command as hook_command
    from mem_core.adapters.instructions import instructions as instructions
    from mem_core.adapters.instructions import is_hook_command as is_hook_command

    # the names the module's __getattr__ loads on first use, for type checkers
    from mem_core.adapters.interfaces import Adapter as Adapter
    from mem_core.adapters.interfaces import Target as Target
    from mem_core.api.backend import POSTGRES_MARKER as POSTGRES_MARKER
    from mem_core.api.backend import SERVER_MARKER as SERVER_MARKER
    from mem_core.api.backend import SQLITE_FILE as SQLITE_FILE
    from mem_core.api.backend import postgres_store_at as postgres_store_at
    from mem_core.api.backend import server_store_at as server_store_at
    from mem_core.api.backend import sqlite_store_at as sqlite_store_at
    from mem_core.api.brief import brief_state as brief_state
    from mem_core.api.brief import write_brief as write_brief
    from mem_core.api.evidence import required_text as required_text
    from mem_core.api.trust import trust as _trust
    from mem_core.clock import parse_ms as parse_ms
    from mem_core.embeddings import BUILD_ENV as _BUILD_ENV
    from mem_core.embeddings import MISSING as _MISSING
    from mem_core.embeddings import in_foreground as _in_foreground
    from mem_core.embeddings import missing as _missing
    from mem_core.embeddings.model import load_embedder as load_embedder
    from mem_core.embeddings.store import EmbeddingIndex as EmbeddingIndex
    from mem_core.embeddings.store import VectorTable as VectorTable
    from mem_core.embeddings.store import index_path as _index_path
    from mem_core.evidence.interfaces import OutcomeVerifier as OutcomeVerifier
    from mem_core.files import JOURNAL as JOURNAL
    from mem_core.files import SYMLINK as SYMLINK
    from mem_core.files import check_components as check_components
    from mem_core.files import is_normalized_relative as is_normalized_relative
    from mem_core.files import open_regular as open_regular
    from mem_core.files import os_error_message as os_error_message
    from mem_core.files import read_text as read_text
    from mem_core.files import safe_file as safe_file
    from mem_core.files.markdown import NOTE_DIRS as NOTE_DIRS
    from mem_core.files.markdown import NOTE_FILES as NOTE_FILES
    from mem_core.files.markdown import split_sections as split_sections
    from mem_core.hookspecs import hookimpl as hookimpl
    from mem_core.js.jsmath import js_log as js_log
    from mem_core.js.jsmath import js_pow as js_pow
    from mem_core.js.jsonfmt import JSONError as JSONError
    from mem_core.js.jsonfmt import dumps as _dumps
    from mem_core.js.jsonfmt import loads as _loads
    from mem_core.js.numbers import clamp01 as clamp01
    from mem_core.js.numbers import js_to_number as _js_to_number
    from mem_core.js.record import JSTypeError as JSTypeError
    from mem_core.js.record import digest as digest
    from mem_core.js.record import is_integer as _is_integer
    from mem_core.js.record import js_sorted as js_sorted
    from mem_core.js.record import opt as _opt
    from mem_core.js.record import parse as _parse
    from mem_core.js.record import prop as prop
    from mem_core.js.record import reorder as _reorder
    from mem_core.js.record import same as _same
    from mem_core.js.record import sha256 as _sha256
    from mem_core.js.record import strict_equal as strict_equal
    from mem_core.js.record import stringify as _stringify
    from mem_core.js.record import utf16_key as utf16_key
    from mem_core.js.strings import js_trim as js_trim
    from mem_core.js.strings import utf16_len as utf16_len
    from mem_core.js.values import UNDEFINED as UNDEFINED
    from mem_core.js.values import js_string as js_string
    from mem_core.js.values import truthy as truthy
    from mem_core.memories.interfaces import MemoryStore as MemoryStore
    from mem_core.memories.kinds import ACTIONS as _ACTIONS
    from mem_core.memories.kinds import CATEGORIES as _CATEGORIES
    from mem_core.memories.kinds import PRIORITIES as _PRIORITIES
    from mem_core.memories.kinds import SOURCES as _SOURCES
    from mem_core.memories.kinds import sql_in as sql_in
    from mem_core.memories.kinds import sql_priority_rank as sql_priority_rank
    from mem_core.memories.records import FIELDS as _FIELDS
    from mem_core.memories.records import PROJECT_STORE_DIR as PROJECT_STORE_DIR
    from mem_core.memories.records import MemoryFilter as MemoryFilter
    from mem_core.memories.records import fetched_rows as fetched_rows
    from mem_core.memories.records import project_store_dir as project_store_dir
    from mem_core.memories.records import recall_terms as recall_terms
    from mem_core.memories.records import recall_text as recall_text
    from mem_core.memories.records import sort_records as sort_records
    from mem_core.memories.records import sql_conditions as sql_conditions
    from mem_core.memories.sqlstore import M_MEMORY_COLUMNS as M_MEMORY_COLUMNS
    from mem_core.memories.sqlstore import MEMORY_COLUMNS as MEMORY_COLUMNS
    from mem_core.memories.sqlstore import SIGNATURE_COLUMNS as SIGNATURE_COLUMNS
    from mem_core.memories.sqlstore import SqlStore as SqlStore
    from mem_core.memories.trust import judge_records as judge_records
    from mem_core.memories.trust import terminal_signature as terminal_signature
    from mem_core.reinforcement.interfaces import RewardSignal as RewardSignal
    from mem_core.retrieval.analysis import fold as _fold
    from mem_core.retrieval.analysis import query_terms as _query_terms
    from mem_core.retrieval.analysis import search_words as search_words
    from mem_core.retrieval.analysis import stem as _stem
    from mem_core.retrieval.analysis import terms as _terms
    from mem_core.retrieval.diskindex import LEXICAL as LEXICAL
    from mem_core.retrieval.diskindex import Analyzer as Analyzer
    from mem_core.retrieval.diskindex import Built as Built
    from mem_core.retrieval.diskindex import DiskTermIndex as DiskTermIndex
    from mem_core.retrieval.diskindex import Doc as Doc
    from mem_core.retrieval.diskindex import IndexCorrupt as IndexCorrupt
    from mem_core.retrieval.diskindex import IndexedSource as IndexedSource
    from mem_core.retrieval.diskindex import Indexer as Indexer
    from mem_core.retrieval.diskindex import LazyCandidate as LazyCandidate
    from mem_core.retrieval.events import SignalsJSON as SignalsJSON
    from mem_core.retrieval.events import decay as decay
    from mem_core.retrieval.events import event_candidate as event_candidate
    from mem_core.retrieval.events import event_fields as event_fields
    from mem_core.retrieval.events import event_of_line as event_of_line
    from mem_core.retrieval.events import event_text as event_text
    from mem_core.retrieval.index import OnSecondUse as OnSecondUse
    from mem_core.retrieval.index import TermIndex as TermIndex
    from mem_core.retrieval.indexers import JOURNAL_INDEXER as JOURNAL_INDEXER
    from mem_core.retrieval.indexers import NOTE_INDEXER as NOTE_INDEXER
    from mem_core.retrieval.indexers import note_of_blob as note_of_blob
    from mem_core.retrieval.interfaces import IndexedNote as IndexedNote
    from mem_core.retrieval.interfaces import NoteSource as NoteSource
    from mem_core.retrieval.interfaces import RankContext as RankContext
    from mem_core.retrieval.interfaces import Ranker as Ranker
    from mem_core.retrieval.interfaces import SourceContext as SourceContext
    from mem_core.retrieval.query import Candidate as Candidate
    from mem_core.retrieval.query import CandidateBlock as CandidateBlock
    from mem_core.retrieval.query import Candidates as Candidates
    from mem_core.retrieval.query import Query as Query
    from mem_core.retrieval.query import Scored as Scored
    from mem_core.settings import Settings as Settings
    from mem_core.settings import load_settings as load_settings
    from mem_core.text import Terms as Terms
    from mem_core.text import query_tokens as query_tokens
    from mem_core.text import tokenize as tokenize

    # the names that differ from the defining module's (_ALIASES)
    MEMORY_FIELDS = _FIELDS
    to_number = _js_to_number
    json_dumps = _dumps
    json_loads = _loads
    search_terms = _terms
    search_query_terms = _query_terms
    fold_text = _fold
    search_stem = _stem
    MEMORY_CATEGORIES = _CATEGORIES
    MEMORY_PRIORITIES = _PRIORITIES
    MEMORY_SOURCES = _SOURCES
    HISTORY_ACTIONS = _ACTIONS
    js_is_integer = _is_integer
    js_opt = _opt
    js_reorder = _reorder
    json_parse = _parse
    json_same = _same
    json_stringify = _stringify
    sha256_hex = _sha256
    trust_label = _trust
    embeddings_missing = _missing
    EMBEDDINGS_MISSING = _MISSING
    EMBEDDINGS_BUILD_ENV = _BUILD_ENV
    embeddings_in_foreground = _in_foreground
    embedding_index_path = _index_path

#: public name -> module that defines it
_NAMES = {
    # pluggy's marker of a hook implementation (importing pluggy on first use)
    "hookimpl": "mem_core.hookspecs",
    # recall: the query, candidates, scores, sources and rankers
    "Query": "mem_core.retrieval.query",
    "Candidate": "mem_core.retrieval.query",
    "CandidateBlock": "mem_core.retrieval.query",
    "Candidates": "mem_core.retrieval.query",
    "Scored": "mem_core.retrieval.query",
    "NoteSource": "mem_core.retrieval.interfaces",
    "Ranker": "mem_core.retrieval.interfaces",
    "SourceContext": "mem_core.retrieval.interfaces",
    "RankContext": "mem_core.retrieval.interfaces",
    "tokenize": "mem_core.text",
    "Terms": "mem_core.text",
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
    "SignalsJSON": "mem_core.retrieval.events",
    "event_text": "mem_core.retrieval.events",
    "event_fields": "mem_core.retrieval.events",
    "event_of_line": "mem_core.retrieval.events",
    "event_candidate": "mem_core.retrieval.events",
    "decay": "mem_core.retrieval.events",
    "IndexedNote": "mem_core.retrieval.interfaces",
    "query_tokens": "mem_core.text",
    "search_terms": "mem_core.retrieval.analysis",
    "search_query_terms": "mem_core.retrieval.analysis",
    "fold_text": "mem_core.retrieval.analysis",
    "search_words": "mem_core.retrieval.analysis",
    "search_stem": "mem_core.retrieval.analysis",
    # what a result is worth as evidence (verified, receipt: accepted-current, unverified)
    "trust_label": "mem_core.api.trust",
    # local embeddings (the optional ``embeddings`` extra; the hybrid ranking)
    "embeddings_missing": "mem_core.embeddings",
    "EMBEDDINGS_MISSING": "mem_core.embeddings",
    "EMBEDDINGS_BUILD_ENV": "mem_core.embeddings",
    "embeddings_in_foreground": "mem_core.embeddings",
    "load_embedder": "mem_core.embeddings.model",
    "EmbeddingIndex": "mem_core.embeddings.store",
    "VectorTable": "mem_core.embeddings.store",
    "embedding_index_path": "mem_core.embeddings.store",
    # the other plugin kinds
    "RewardSignal": "mem_core.reinforcement.interfaces",
    "OutcomeVerifier": "mem_core.evidence.interfaces",
    "MemoryStore": "mem_core.memories.interfaces",
    "SqlStore": "mem_core.memories.sqlstore",
    "MEMORY_COLUMNS": "mem_core.memories.sqlstore",
    "M_MEMORY_COLUMNS": "mem_core.memories.sqlstore",
    "SIGNATURE_COLUMNS": "mem_core.memories.sqlstore",
    "Adapter": "mem_core.adapters.interfaces",
    # structured-memory records, for store backends
    "MemoryFilter": "mem_core.memories.records",
    "MEMORY_FIELDS": "mem_core.memories.records",
    "sort_records": "mem_core.memories.records",
    "recall_terms": "mem_core.memories.records",
    "recall_text": "mem_core.memories.records",
    "PROJECT_STORE_DIR": "mem_core.memories.records",
    "project_store_dir": "mem_core.memories.records",
    # the store's safety rules (docs/contract.md §8) and shared file formats
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
    # the memory stores: where each built-in store's file is, the values a record's fields take, SQL made from them, signatures
    "SQLITE_FILE": "mem_core.api.backend",
    "POSTGRES_MARKER": "mem_core.api.backend",
    "sqlite_store_at": "mem_core.api.backend",
    "postgres_store_at": "mem_core.api.backend",
    "SERVER_MARKER": "mem_core.api.backend",
    "server_store_at": "mem_core.api.backend",
    "MEMORY_CATEGORIES": "mem_core.memories.kinds",
    "MEMORY_PRIORITIES": "mem_core.memories.kinds",
    "MEMORY_SOURCES": "mem_core.memories.kinds",
    "HISTORY_ACTIONS": "mem_core.memories.kinds",
    "sql_in": "mem_core.memories.kinds",
    "sql_priority_rank": "mem_core.memories.kinds",
    "sql_conditions": "mem_core.memories.records",
    "fetched_rows": "mem_core.memories.records",
    "terminal_signature": "mem_core.memories.trust",
    "judge_records": "mem_core.memories.trust",
    "Settings": "mem_core.settings",
    "load_settings": "mem_core.settings",
    # assistant adapters: the edits they plan and the text they install
    "Target": "mem_core.adapters.interfaces",
    "Edit": "mem_core.adapters.edits",
    "Block": "mem_core.adapters.edits",
    "JsonItem": "mem_core.adapters.edits",
    "JsonMember": "mem_core.adapters.edits",
    "OwnedFile": "mem_core.adapters.edits",
    "TomlTable": "mem_core.adapters.edits",
    "YamlListItems": "mem_core.adapters.edits",
    "MCP_ARGS": "mem_core.adapters.instructions",
    "hook_command": "mem_core.adapters.instructions",
    "instructions": "mem_core.adapters.instructions",
    "is_hook_command": "mem_core.adapters.instructions",
    "brief_state": "mem_core.api.brief",
    "write_brief": "mem_core.api.brief",
    # outcome verifiers: project paths checked component by component, JavaScript's JSON and values
    "SYMLINK": "mem_core.files",
    "check_components": "mem_core.files",
    "is_normalized_relative": "mem_core.files",
    "os_error_message": "mem_core.files",
    "required_text": "mem_core.api.evidence",
    "JSTypeError": "mem_core.js.record",
    "js_is_integer": "mem_core.js.record",
    "js_opt": "mem_core.js.record",
    "js_reorder": "mem_core.js.record",
    "js_sorted": "mem_core.js.record",
    "json_parse": "mem_core.js.record",
    "json_same": "mem_core.js.record",
    "json_stringify": "mem_core.js.record",
    "sha256_hex": "mem_core.js.record",
    "utf16_key": "mem_core.js.record",
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
    "MEMORY_CATEGORIES": "CATEGORIES",
    "MEMORY_PRIORITIES": "PRIORITIES",
    "MEMORY_SOURCES": "SOURCES",
    "HISTORY_ACTIONS": "ACTIONS",
    "js_is_integer": "is_integer",
    "js_opt": "opt",
    "js_reorder": "reorder",
    "json_parse": "parse",
    "json_same": "same",
    "json_stringify": "stringify",
    "sha256_hex": "sha256",
    "trust_label": "trust",
    "embeddings_missing": "missing",
    "EMBEDDINGS_MISSING": "MISSING",
    "EMBEDDINGS_BUILD_ENV": "BUILD_ENV",
    "embeddings_in_foreground": "in_foreground",
    "embedding_index_path": "index_path",
}

__all__ = ["MemError", "TryAgain", *_NAMES]


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core.plugin' has no attribute {name!r}")
    value = getattr(import_module(module), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
