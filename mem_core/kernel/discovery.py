"""What plugins exist, before any is imported: the default plugins, the
registration hook and the class of each, and the ``mem.plugins`` entry
points of the installed distributions (:mod:`importlib.metadata`).
"""

from __future__ import annotations

import os
import sys
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "KIND_HOOKS",
    "PluginInfo",
    "default_class",
    "default_hook",
    "default_module",
    "defaults_only",
    "entry_points",
    "load_failure",
]


#: Built-in behaviour: each default plugin's name and the class it provides,
#: named as an entry point names an object (``module:Class``). Its module is
#: imported when a registry of its kind is first needed. On a plugin manager
#: each is a plugin whose registration hook returns that class
#: (:func:`mem_core.kernel.manager.load_defaults`); when no other plugin can
#: take part (:func:`defaults_only`) the kernel reads its registries from
#: here and builds no plugin manager (:meth:`mem_core.kernel.Kernel.registry`).
DEFAULT_PLUGINS: dict[str, str] = {
    "journal": "mem_plugins.sources.journal:JournalSource",
    "markdown_notes": "mem_plugins.sources.notes:MarkdownNotes",
    "portfolio": "mem_plugins.sources.portfolio:PortfolioBrain",
    "lexical": "mem_plugins.rankers.lexical:LexicalRanker",
    "bm25": "mem_plugins.rankers.bm25:Bm25Ranker",
    "signal_eval": "mem_plugins.signals.eval:EvalSignal",
    "signal_accept": "mem_plugins.signals.accept:AcceptSignal",
    "signal_ci": "mem_plugins.signals.ci:CiSignal",
    "sqlite_store": "mem_plugins.stores.sqlite:SqliteStore",
    "postgres_store": "mem_plugins.stores.postgres:PostgresStore",
    "server_store": "mem_plugins.stores.server:ServerStore",
    "memories_source": "mem_plugins.sources.memories:StructuredMemories",
    "evidence": "mem_plugins.rankers.evidence:EvidenceRanker",
    "hybrid": "mem_plugins.rankers.hybrid:HybridRanker",
    "nexus": "mem_plugins.verifiers.nexus:NexusVerifier",
    "junit": "mem_plugins.verifiers.junit:JUnitVerifier",
    "adapter_claude_code": "mem_plugins.adapters.claude_code:ClaudeCode",
    "adapter_codex_cli": "mem_plugins.adapters.codex_cli:CodexCli",
    "adapter_gemini_cli": "mem_plugins.adapters.gemini_cli:GeminiCli",
    "adapter_cursor": "mem_plugins.adapters.cursor:Cursor",
    "adapter_opencode": "mem_plugins.adapters.opencode:OpenCode",
    "adapter_aider": "mem_plugins.adapters.aider:Aider",
    "adapter_antigravity": "mem_plugins.adapters.antigravity:Antigravity",
}

ENTRY_POINT_GROUP = "mem.plugins"


class PluginInfo:
    """What ``mem plugins`` shows about one plugin."""

    __slots__ = ("name", "provider", "version", "origin", "error")

    def __init__(self, name: str, provider: str, version: str, origin: str, error: str | None = None) -> None:
        self.name = name
        self.provider = provider
        self.version = version
        self.origin = origin  # "default" | "env" (MEM_PLUGINS) | "config" (a config file) | "entry-point"
        self.error = error


#: the registration hook each kind of default plugin answers: the class of a
#: default plugin ``mem_plugins.<kind>.<name>:Class`` is returned by that hook only
KIND_HOOKS: dict[str, str] = {
    "sources": "mem_register_note_sources",
    "rankers": "mem_register_rankers",
    "signals": "mem_register_reward_signals",
    "verifiers": "mem_register_outcome_verifiers",
    "stores": "mem_register_stores",
    "adapters": "mem_register_adapters",
}


def default_hook(ref: str) -> str:
    """The registration hook of the default plugin ``ref`` (``module:Class``)."""
    return KIND_HOOKS[ref.split(".")[1]]


def default_module(ref: str) -> str:
    """The module of the default plugin ``ref``: its provider in ``mem plugins``."""
    return ref.partition(":")[0]


def default_class(ref: str) -> type:
    """The class the default plugin ``ref`` provides, its module imported."""
    module, _, name = ref.partition(":")
    value: type = getattr(import_module(module), name)
    return value


class _EntryPoint:
    """One ``mem.plugins`` entry point: its name, its object reference
    (``module:attr``) and its distribution's version."""

    __slots__ = ("name", "value", "version")

    def __init__(self, name: str, value: str, version: str) -> None:
        self.name = name
        self.value = value
        self.version = version

    def load(self) -> Any:
        from importlib.metadata import EntryPoint

        return EntryPoint(self.name, self.value, ENTRY_POINT_GROUP).load()


def load_failure(name: str, provider: str, exc: Exception, strict: bool) -> str:
    """Why plugin ``name`` (from ``provider``) failed to load, as ``mem
    plugins`` shows it; under ``strict_plugins`` the failure is raised."""
    if strict:
        from mem_core.errors import PluginError

        raise PluginError(f"plugin '{name}' ({provider}) failed to load: {exc}") from exc
    return f"{type(exc).__name__}: {exc}"


def defaults_only(settings: Any) -> bool:
    """Whether no plugin but the default ones can take part under
    ``settings``: no ``plugins`` setting, and every ``mem.plugins`` entry
    point installed is blocked by ``disable_plugins``. The kernel then needs
    no plugin manager (:meth:`mem_core.kernel.Kernel.registry`), and the
    structured-memory fast path no kernel at all."""
    disabled = settings.disable_plugins
    return not settings.plugins and all(ep.name in disabled for ep in entry_points())


#: ``sys.version``, then each ``sys.path`` entry with its modification time
_Stamp = tuple["str | tuple[str, int | None]", ...]

#: the last scan in this process: the state of ``sys.path`` it was read
#: from (:func:`_stamp`) and what it found
_scanned: tuple[_Stamp, list[_EntryPoint]] | None = None


def entry_points() -> list[_EntryPoint]:
    """The ``mem.plugins`` entry points of the distributions on ``sys.path``,
    sorted by name (the first distribution found on ``sys.path`` wins).

    :mod:`importlib.metadata` reads every installed distribution's metadata,
    several times the work of a whole ``mem recall``; its answer changes only
    when a distribution is installed or removed, which changes a ``sys.path``
    directory's modification time. So the answer is kept, with that state,
    for this process and in mem's user cache for the next one, and asked
    again only when the state differs.
    """
    global _scanned
    stamp = _stamp()
    if _scanned is None or _scanned[0] != stamp:
        found = _read_cached(stamp)
        if found is None:
            found = _scan()
            _write_cached(stamp, found)
        _scanned = (stamp, found)
    return list(_scanned[1])


def _stamp() -> _Stamp:
    """``sys.path`` and each directory's modification time."""
    stamp: list[str | tuple[str, int | None]] = [sys.version]
    for base in sys.path:
        try:
            stamp.append((base, os.stat(base or ".").st_mtime_ns))
        except OSError:
            stamp.append((base, None))
    return tuple(stamp)


def _scan() -> list[_EntryPoint]:
    from importlib.metadata import entry_points as installed

    found: dict[str, _EntryPoint] = {}
    for ep in installed(group=ENTRY_POINT_GROUP):
        version = (ep.dist.version if ep.dist is not None else None) or ""
        found.setdefault(ep.name, _EntryPoint(ep.name, ep.value, version))
    return [found[name] for name in sorted(found)]


def _cache_file() -> str:
    """One file per environment. Named by a checksum, not a cryptographic
    hash: the file holds the state it was made for and is only used when
    that state is this one, so two environments sharing a name only scan
    again, and every command (``mem --help`` too) reads this name before
    anything else would load OpenSSL."""
    from mem_core.files.usercache import cache_base, checked_name

    return os.path.join(cache_base(None), "entry-points", checked_name(sys.prefix))


def _read_cached(stamp: _Stamp) -> list[_EntryPoint] | None:
    """The entry points cached for ``stamp``, or ``None``."""
    import marshal

    try:
        with open(_cache_file(), "rb") as fh:
            cached_stamp, rows = marshal.load(fh)
        if cached_stamp != stamp:
            return None
        return [_EntryPoint(name, value, version) for name, value, version in rows]
    except (OSError, EOFError, ValueError, TypeError):  # absent, unreadable or not ours: scan
        return None


def _write_cached(stamp: _Stamp, found: list[_EntryPoint]) -> None:
    """Keep ``found`` for ``stamp``; a cache that cannot be written is no failure."""
    import marshal

    path = _cache_file()
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as fh:
            marshal.dump((stamp, [(ep.name, ep.value, ep.version) for ep in found]), fh)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
