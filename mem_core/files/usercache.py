"""mem's user cache directory: where the caches that are never a second
truth live — the recall index (:mod:`mem_core.retrieval.diskindex`) and the
score-file certificates (:mod:`mem_core.reinforcement.scorefile`). Deleting
it loses nothing.

``<cache>`` is the ``cache_dir`` setting, else the user cache directory of
``mem`` (platformdirs' ``user_cache_dir``: ``$XDG_CACHE_HOME/mem`` or
``~/.cache/mem`` on Linux). A project (or portfolio) is keyed by a SHA-1
prefix of its real path. Never under ``.bmad/memory/``.
"""

from __future__ import annotations

__all__ = ["APP_NAME", "cache_base", "checked_name", "name_key", "root_key", "user_cache_dir", "user_config_dir"]

APP_NAME = "mem"


def cache_base(cache_dir: str | None) -> str:
    """mem's cache directory (see the module)."""
    return cache_dir or user_cache_dir()


def user_cache_dir() -> str:
    """The user cache directory of ``mem``, as platformdirs places it."""
    from platformdirs import user_cache_dir as platform_cache_dir

    return platform_cache_dir(APP_NAME, appauthor=False)


def user_config_dir() -> str:
    """The user config directory of ``mem``, as platformdirs places it."""
    from platformdirs import user_config_dir as platform_config_dir

    return platform_config_dir(APP_NAME, appauthor=False)


def root_key(root_real: str) -> str:
    """The key of a project or portfolio root (its real path) in the cache."""
    return name_key(root_real)


def checked_name(text: str) -> str:
    """A file name for ``text`` in the cache, for a cache file that records
    what it was made for and is used only when that matches (the recall
    indexes, the entry-point list): the CRC-32 of ``text``. Two texts
    sharing a name only make each other rebuild, so a checksum is enough,
    and it spares a one-shot command hashlib, which loads OpenSSL: about
    11 M instructions, a sixteenth of a ``mem recall``."""
    import zlib

    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}"


def name_key(text: str) -> str:
    """A file name for ``text`` in the cache: the first 24 hex digits of its
    SHA-1."""
    import hashlib

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
