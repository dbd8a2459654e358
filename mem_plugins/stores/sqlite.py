"""The default plugin of the memory store ``sqlite``: registers
:class:`~mem_plugins.stores.sqlite_backend.SqliteStore` (the backend itself,
its schema and its migrations are in :mod:`mem_plugins.stores.sqlite_backend`,
which imports no pluggy: the structured-memory commands use it directly)."""

from __future__ import annotations

from mem_core import hookimpl
from mem_core.memories.interfaces import MemoryStore
from mem_plugins.stores.sqlite_backend import BUSY_TIMEOUT_SECONDS, FILE, MIGRATIONS, SCHEMA_VERSION, SqliteStore

__all__ = ["SqliteStore", "FILE", "MIGRATIONS", "SCHEMA_VERSION", "BUSY_TIMEOUT_SECONDS", "mem_register_stores"]


@hookimpl
def mem_register_stores() -> list[type[MemoryStore]]:
    return [SqliteStore]
