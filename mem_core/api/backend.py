"""Which memory store backend a store directory uses: the one place that
chooses (the structured-memory API and the recall source both ask here).

* The ``store`` setting, when a config file or ``MEM_STORE`` sets it, names
  the backend; for the user-level store only the user config and the
  environment count (a project's config speaks for the project's store).
* Otherwise the backend whose store already exists in the directory (the
  ``postgres`` marker, the SQLite file …), so that a project whose store is
  PostgreSQL uses it from every shell; with none, the default (``sqlite``).
* A setting that names another backend than the one whose store is already
  there is refused: ``mem`` never starts a second store beside the first.

Asking costs one ``exists`` per registered backend (a file check, no
database driver), so recall stays cheap in a project without a store.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.memories.kinds import BACKENDS
from mem_core.settings import default_value

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Registry
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.settings import Settings

__all__ = ["choose_store", "plugins_free", "postgres_store_at", "server_store_at", "sqlite_store_at", "store_absent"]


def choose_store(settings: Settings, stores: Registry[Any], directory: str, *, user: bool = False) -> type[MemoryStore]:
    """The backend class for the store in ``directory``, configured by
    ``settings`` (see the module's docstring). Failures are one-line
    ``MemError``\\ s that change nothing."""
    setting = _chosen(settings, user)
    chosen = setting is not None
    name = setting if setting is not None else default_value("store")
    if chosen and name not in stores:
        known = ", ".join(stores.names()) or "none (no store plugin is loaded)"
        raise MemError(f"unknown memory store '{name}' (set {settings.where('store')} to one of: {known})")
    existing = [other for other in stores.names() if stores.get(other).exists(directory)]
    if chosen:
        if existing and name not in existing:
            raise MemError(
                f"the memory store in {directory} is {existing[0]}, but {settings.where('store')} selects {name}: "
                f"select {existing[0]} (or move that store away); mem does not start a second store beside it"
            )
    elif len(existing) == 1:
        name = existing[0]
    elif existing:
        raise MemError(
            f"{directory} holds stores of {' and '.join(existing)}: choose one with "
            f"`mem config set store NAME`{' --user' if user else ''} (or MEM_STORE)"
        )
    elif name not in stores:
        known = ", ".join(stores.names()) or "none (no store plugin is loaded)"
        raise MemError(f"unknown memory store '{name}' (set {settings.where('store')} to one of: {known})")
    return stores.get(name).configure(settings)  # type: ignore[no-any-return]


# -- the built-in stores, without importing them ---------------------------
#
# Whether a project holds a store at all is known without importing a store
# plugin when only the default plugins are registered: ``recall`` in a
# project without a store asks here first. Where each built-in store's file
# is, and whether it is there, is said here once: the stores' ``exists`` ask
# these too. A test holds the names of their plugins equal to the stores'.

#: the default plugins that register the built-in stores
_STORE_PLUGINS = ("sqlite_store", "postgres_store", "server_store")
#: the file of a ``sqlite`` store (:data:`mem_plugins.stores.sqlite.FILE`)
SQLITE_FILE = "memories.sqlite3"
#: the marker of a ``postgres`` store (:data:`mem_plugins.stores.postgres.MARKER`)
POSTGRES_MARKER = "memories.postgres.json"
#: the marker of a ``server`` store (:data:`mem_plugins.stores.server.MARKER`)
SERVER_MARKER = "memories.server.json"


def sqlite_store_at(directory: str) -> bool:
    """Whether a ``sqlite`` store is in ``directory``: anything at its path
    counts (a directory, a FIFO …: opening it is then an error, never an
    empty store)."""
    return os.path.lexists(os.path.join(directory, SQLITE_FILE))


def postgres_store_at(directory: str) -> bool:
    """Whether a ``postgres`` store is in ``directory``: its marker file."""
    return os.path.isfile(os.path.join(directory, POSTGRES_MARKER))


def server_store_at(directory: str) -> bool:
    """Whether a ``server`` store is in ``directory``: its marker file."""
    return os.path.isfile(os.path.join(directory, SERVER_MARKER))


def plugins_free(settings: Settings) -> bool:
    """Whether a kernel built from ``settings`` holds the default plugins
    only (:func:`mem_core.kernel.discovery.defaults_only`), both built-in
    stores among them."""
    from mem_core.kernel.discovery import defaults_only

    return not any(name in settings.disable_plugins for name in _STORE_PLUGINS) and defaults_only(settings)


def _chosen(settings: Settings, user: bool) -> str | None:
    """The store the ``store`` setting names where it counts (see the
    module's docstring), else ``None``."""
    layer = settings.layer("store")
    return settings.store if layer != "default" and not (user and layer == "project") else None


def store_absent(kernel_settings: Settings, settings: Settings, directory: str, *, user: bool = False) -> bool:
    """Whether ``directory`` provably holds no store that ``choose_store``
    would open, asked without importing a store plugin: the kernel (built
    from ``kernel_settings``) registers the built-in stores only
    (:func:`plugins_free`), ``settings`` choose one of them or none, and
    neither's file is there. ``False`` says nothing: ask :func:`choose_store`."""
    if _chosen(settings, user) not in (None, *BACKENDS) or not plugins_free(kernel_settings):
        return False
    return not sqlite_store_at(directory) and not postgres_store_at(directory) and not server_store_at(directory)
