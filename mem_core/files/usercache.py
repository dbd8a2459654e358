"""mem's user cache directory: where the caches that are never a second
truth live — the recall index (:mod:`mem_core.retrieval.diskindex`) and the
score-file certificates (:mod:`mem_core.reinforcement.scorefile`). Deleting
it loses nothing.

``<cache>`` is the ``cache_dir`` setting, else the user cache directory of
``mem`` (platformdirs' ``user_cache_dir``; ``$XDG_CACHE_HOME/mem`` or
``~/.cache/mem`` on Linux, computed without importing platformdirs). A
project (or portfolio) is keyed by a SHA-1 prefix of its real path. Never
under ``.bmad/memory/``.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["APP_NAME", "cache_base", "name_key", "root_key", "user_dir"]

APP_NAME = "mem"


def cache_base(cache_dir: str | None, environ: Any = None) -> str:
    """mem's cache directory (see the module)."""
    if cache_dir:
        return cache_dir
    return user_dir("XDG_CACHE_HOME", "~/.cache", "user_cache_dir", os.environ if environ is None else environ)


def user_dir(variable: str, default: str, platform_function: str, env: Any) -> str:
    """mem's directory of one kind for this user: on Linux ``$<variable>/mem``,
    else ``<default>/mem`` (without importing platformdirs); elsewhere
    platformdirs' ``<platform_function>`` (``user_cache_dir``,
    ``user_config_dir``)."""
    if sys.platform.startswith("linux") and not hasattr(sys, "getandroidapilevel"):
        xdg = env.get(variable, "")
        if os.path.isabs(xdg):
            return os.path.join(xdg, APP_NAME)
        home = env.get("HOME")
        if home is None or os.path.isabs(home):
            return os.path.join(os.path.expanduser(default), APP_NAME)
    import platformdirs

    return getattr(platformdirs, platform_function)(APP_NAME, appauthor=False)  # type: ignore[no-any-return]


def root_key(root_real: str) -> str:
    """The key of a project or portfolio root (its real path) in the cache."""
    return name_key(root_real)


def name_key(text: str) -> str:
    """A file name for ``text`` in the cache: the first 24 hex digits of its
    SHA-1."""
    import hashlib

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
