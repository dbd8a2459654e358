"""Plugin discovery and the typed registries built from the hooks.

There is no plugin manager at import time: :func:`make_plugin_manager` builds
one (tests get a fresh one each), and :class:`Kernel` wraps it with typed
registries.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import pluggy

from mem_core import hookimpl, hookspecs
from mem_core.errors import PluginError

if TYPE_CHECKING:
    from mem_core.settings import Settings

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
DEFAULT_PLUGINS: dict[str, str] = {
    "journal": "mem_plugins.sources.journal",
    "markdown_notes": "mem_plugins.sources.notes",
    "portfolio": "mem_plugins.sources.portfolio",
    "lexical": "mem_plugins.rankers.lexical",
    "signal_eval": "mem_plugins.signals.eval",
    "signal_accept": "mem_plugins.signals.accept",
    "signal_ci": "mem_plugins.signals.ci",
    "sqlite_store": "mem_plugins.stores.sqlite",
    "postgres_store": "mem_plugins.stores.postgres",
    "memories_source": "mem_plugins.sources.memories",
    "evidence": "mem_plugins.rankers.evidence",
    "nexus": "mem_plugins.verifiers.nexus",
    "junit": "mem_plugins.verifiers.junit",
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


def _mem_version() -> str:
    from mem_core import __version__

    return __version__


def make_plugin_manager(
    settings: Settings | None = None, *, defaults: bool = True, entry_points: bool = True
) -> pluggy.PluginManager:
    """Build a plugin manager with the default plugins, the plugins of the
    ``plugins`` setting (``MEM_PLUGINS`` or a config file) and the third-party
    plugins of the ``mem.plugins`` entry-point group.

    ``settings`` (default: :func:`mem_core.settings.load_settings`) also
    names the plugins blocked by name before import (``disable_plugins``,
    ``MEM_DISABLE_PLUGINS=a,b``); a plugin that fails to import is recorded
    (``pm.mem_plugin_info``) and skipped, unless ``strict_plugins``
    (``MEM_STRICT_PLUGINS=1``).
    """
    if settings is None:
        from mem_core.settings import load_settings

        settings = load_settings()
    pm = pluggy.PluginManager("mem")
    pm.add_hookspecs(hookspecs)
    infos: list[PluginInfo] = []
    pm.mem_plugin_info = infos  # type: ignore[attr-defined]
    disabled = settings.disable_plugins
    strict = settings.strict_plugins
    for name in disabled:
        pm.set_blocked(name)
    if defaults:
        for short, module_name in DEFAULT_PLUGINS.items():
            if short in disabled:
                continue
            _load(
                pm,
                short,
                partial(importlib.import_module, module_name),
                module_name,
                _mem_version(),
                "default",
                infos,
                strict,
            )
    origin = "env" if settings.layer("plugins") == "env" else "config"
    for name, provider, loader in _named_plugins(settings.plugins):
        if name not in disabled:
            _load(pm, name, loader, provider, "", origin, infos, strict)
    if entry_points:
        for ep in _entry_points():
            if ep.name in disabled:
                continue
            _load(pm, ep.name, ep.load, ep.value, ep.version, "entry-point", infos, strict)
    return pm


class _EntryPoint:
    __slots__ = ("name", "value", "version")

    def __init__(self, name: str, value: str, version: str) -> None:
        self.name = name
        self.value = value
        self.version = version

    def load(self) -> Any:
        module_name, _, attr = self.value.partition(":")
        obj = importlib.import_module(module_name.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj


def _named_plugins(names: Iterable[str]) -> list[tuple[str, str, Callable[[], Any]]]:
    """Plugins named by the ``plugins`` setting: module names
    (``team_rankers``) or paths of Python files (``tools/mem_local.py``), for a
    team's plugins that are not packaged. Opt-in by a setting only: a file in
    a project is never loaded because it is there."""
    found: list[tuple[str, str, Callable[[], Any]]] = []
    for part in names:
        if part.endswith(".py"):
            path = os.path.abspath(part)
            name = os.path.basename(path)[:-3]
            found.append((name, path, partial(_load_file, name, path)))
        else:
            found.append((part.rsplit(".", 1)[-1], part, partial(importlib.import_module, part)))
    return found


def _load_file(name: str, path: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mem_local_plugin_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry_points() -> list[_EntryPoint]:
    """The ``mem.plugins`` entry points of the distributions on ``sys.path``.

    Reads each ``*.dist-info/entry_points.txt`` directly: importing
    :mod:`importlib.metadata` (which pulls in :mod:`email`) costs 14-20 ms,
    a tenth of the start-up budget of ``mem write`` (benchmarks/). As with
    importlib.metadata, the first distribution found on ``sys.path`` wins.
    """
    found: dict[str, _EntryPoint] = {}
    for base in sys.path:
        try:
            entries = sorted(os.listdir(base or "."))
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(base or ".", entry, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            if f"[{ENTRY_POINT_GROUP}]" not in text:
                continue
            version = entry.rsplit(".", 1)[0].partition("-")[2]
            for name, value in _group_lines(text):
                found.setdefault(name, _EntryPoint(name, value, version))
    return [found[name] for name in sorted(found)]


def _group_lines(text: str) -> list[tuple[str, str]]:
    lines = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{ENTRY_POINT_GROUP}]"
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            lines.append((name.strip(), value.strip()))
    return lines


def _load(
    pm: pluggy.PluginManager,
    name: str,
    loader: Callable[[], Any],
    provider: str,
    version: str,
    origin: str,
    infos: list[PluginInfo],
    strict: bool,
) -> None:
    try:
        plugin = loader()
        if pm.is_registered(plugin) or pm.get_plugin(name) is not None:
            raise PluginError(f"plugin name '{name}' is already registered")
        pm.register(plugin, name=name)
    except Exception as exc:  # a broken plugin must not take down the CLI
        if strict:
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

    def __init__(self, pm: pluggy.PluginManager | None = None, *, settings: Settings | None = None) -> None:
        self._settings = settings
        self.pm = pm if pm is not None else make_plugin_manager(settings=self.settings)
        self._cache: dict[str, Registry[Any]] = {}

    @property
    def settings(self) -> Settings:
        """The settings this kernel was built with (read on first use when none were given)."""
        if self._settings is None:
            from mem_core.settings import load_settings

            self._settings = load_settings()
        return self._settings

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
