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

from mem_core.errors import MemError
from mem_core.settings import default_value

TYPE_CHECKING = False  # not typing's: importing typing costs every command's start-up (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Registry
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.settings import Settings

__all__ = ["choose_store"]


def choose_store(settings: Settings, stores: Registry[Any], directory: str, *, user: bool = False) -> type[MemoryStore]:
    """The backend class for the store in ``directory``, configured by
    ``settings`` (see the module's docstring). Failures are one-line
    ``MemError``\\ s that change nothing."""
    layer = settings.layer("store")
    chosen = layer != "default" and not (user and layer == "project")
    name = settings.store if chosen else default_value("store")
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
