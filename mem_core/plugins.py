"""Plugin discovery and the typed registries built from the hooks.

There is no plugin manager at import time: :func:`make_plugin_manager` builds
one (tests get a fresh one each), and :class:`Kernel` wraps it with typed
registries.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pluggy

from . import hookimpl, hookspecs
from .errors import PluginError

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "PluginInfo",
    "Registry",
    "Kernel",
    "make_plugin_manager",
    "hookimpl",
]


#: Built-in behaviour, registered by the same path as third-party plugins.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "mem_plugins.journal",
    "mem_plugins.markdown_notes",
    "mem_plugins.portfolio",
    "mem_plugins.lexical",
    "mem_plugins.signal_eval",
    "mem_plugins.signal_accept",
    "mem_plugins.signal_ci",
)

ENTRY_POINT_GROUP = "mem.plugins"


@dataclass
class PluginInfo:
    """What ``mem plugins`` shows about one plugin."""

    name: str
    provider: str
    version: str
    origin: str  # "default" | "entry-point" | "test"
    error: str | None = None


def _disabled() -> set[str]:
    raw = os.environ.get("MEM_DISABLE_PLUGINS", "")
    return {part.strip() for part in raw.split(",") if part.strip()}


def _strict() -> bool:
    return os.environ.get("MEM_STRICT_PLUGINS", "") not in ("", "0")


def _mem_version() -> str:
    from . import __version__

    return __version__


def make_plugin_manager(*, defaults: bool = True, entry_points: bool = True) -> pluggy.PluginManager:
    """Build a plugin manager with the default plugins and the third-party
    plugins of the ``mem.plugins`` entry-point group.

    ``MEM_DISABLE_PLUGINS=a,b`` blocks plugins by name before import; a plugin
    that fails to import is recorded (``pm.mem_plugin_info``) and skipped,
    unless ``MEM_STRICT_PLUGINS=1``.
    """
    pm = pluggy.PluginManager("mem")
    pm.add_hookspecs(hookspecs)
    infos: list[PluginInfo] = []
    pm.mem_plugin_info = infos  # type: ignore[attr-defined]
    disabled = _disabled()
    for name in disabled:
        pm.set_blocked(name)
    if defaults:
        for module_name in DEFAULT_PLUGINS:
            short = module_name.rsplit(".", 1)[1]
            if short in disabled:
                continue
            _load(pm, short, lambda m=module_name: importlib.import_module(m), module_name, _mem_version(), "default", infos)
    if entry_points:
        for ep in _entry_points():
            if ep.name in disabled:
                continue
            dist = getattr(ep, "dist", None)
            version = getattr(dist, "version", "") or ""
            _load(pm, ep.name, ep.load, ep.value, version, "entry-point", infos)
    return pm


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    seen: set[str] = set()
    found = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name not in seen:  # the same distribution on sys.path twice
            seen.add(ep.name)
            found.append(ep)
    return found


def _load(
    pm: pluggy.PluginManager,
    name: str,
    loader: Callable[[], Any],
    provider: str,
    version: str,
    origin: str,
    infos: list[PluginInfo],
) -> None:
    try:
        plugin = loader()
        if pm.is_registered(plugin) or pm.get_plugin(name) is not None:
            raise PluginError(f"plugin name '{name}' is already registered")
        pm.register(plugin, name=name)
    except Exception as exc:  # a broken plugin must not take down the CLI
        if _strict():
            raise PluginError(f"plugin '{name}' ({provider}) failed to load: {exc}") from exc
        infos.append(PluginInfo(name, provider, version, origin, error=f"{type(exc).__name__}: {exc}"))
        return
    infos.append(PluginInfo(name, provider, version, origin))


T = TypeVar("T")


class Registry(Generic[T]):
    """Classes collected from one registration hook, keyed by unique name."""

    def __init__(self, kind: str, entries: Iterable[tuple[str, type[T]]]) -> None:
        self.kind = kind
        self._classes: dict[str, type[T]] = {}
        self._providers: dict[str, str] = {}
        for provider, cls in entries:
            name = getattr(cls, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginError(f"{kind} {cls!r} from plugin '{provider}' has no name")
            if name in self._classes:
                raise PluginError(
                    f"duplicate {kind} name '{name}': provided by plugin '{self._providers[name]}' "
                    f"and plugin '{provider}'"
                )
            self._classes[name] = cls
            self._providers[name] = provider

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def names(self) -> list[str]:
        return list(self._classes)

    def get(self, name: str) -> type[T]:
        return self._classes[name]

    def provider(self, name: str) -> str:
        return self._providers[name]

    def items(self) -> list[tuple[str, type[T]]]:
        return list(self._classes.items())


class Kernel:
    """A typed view of a plugin manager: one registry per registration hook."""

    def __init__(self, pm: pluggy.PluginManager | None = None) -> None:
        self.pm = pm if pm is not None else make_plugin_manager()
        self._cache: dict[str, Registry[Any]] = {}

    def _collect(self, hook_name: str, kind: str) -> Registry[Any]:
        if hook_name not in self._cache:
            hook = getattr(self.pm.hook, hook_name)
            entries: list[tuple[str, Any]] = []
            # registration order (oldest first), not pluggy's LIFO call order
            for impl in hook.get_hookimpls():
                try:
                    result = impl.function()
                except Exception as exc:
                    raise PluginError(f"plugin '{impl.plugin_name}' failed in {hook_name}: {exc}") from exc
                for cls in result or ():
                    entries.append((impl.plugin_name, cls))
            self._cache[hook_name] = Registry(kind, entries)
        return self._cache[hook_name]

    @property
    def note_sources(self):  # type: ignore[no-untyped-def]
        return self._collect("mem_register_note_sources", "note source")

    @property
    def rankers(self):  # type: ignore[no-untyped-def]
        return self._collect("mem_register_rankers", "ranker")

    @property
    def reward_signals(self):  # type: ignore[no-untyped-def]
        return self._collect("mem_register_reward_signals", "reward signal")

    @property
    def outcome_verifiers(self):  # type: ignore[no-untyped-def]
        return self._collect("mem_register_outcome_verifiers", "outcome verifier")

    @property
    def stores(self):  # type: ignore[no-untyped-def]
        return self._collect("mem_register_stores", "memory store")

    def plugin_infos(self) -> list[PluginInfo]:
        return list(getattr(self.pm, "mem_plugin_info", []))


def get_kernel(kernel: Kernel | None) -> Kernel:
    """The kernel to use: the one given, or a fresh one."""
    return kernel if kernel is not None else Kernel()
