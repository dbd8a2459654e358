"""Plugin discovery: the default plugins, ``MEM_PLUGINS`` and the
``mem.plugins`` entry points, loaded into a fresh plugin manager.

A kernel builds one only where a plugin other than the default ones can
take part (:meth:`mem_core.kernel.Kernel.registry`).

There is no plugin manager at import time: :func:`make_plugin_manager` builds
one (tests get a fresh one each); :class:`~mem_core.kernel.Kernel` wraps it
with typed registries.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

import pluggy

from mem_core import hookspecs
from mem_core.errors import PluginError
from mem_core.kernel.discovery import (
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    KIND_HOOKS,
    PluginInfo,
    default_class,
    default_hook,
    default_module,
    load_failure,
)
from mem_core.kernel.discovery import entry_points as _entry_points

if TYPE_CHECKING:
    from mem_core.settings import Settings

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "KIND_HOOKS",
    "PluginInfo",
    "load_defaults",
    "make_plugin_manager",
]


def _mem_version() -> str:
    from mem_core.version import __version__

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
    # default plugins are imported when a registry of their kind is first
    # needed (load_defaults): `mem write` never imports a verifier or an adapter
    pm.mem_pending = {  # type: ignore[attr-defined]
        short: module for short, module in (DEFAULT_PLUGINS.items() if defaults else ()) if short not in disabled
    }
    pm.mem_strict = strict  # type: ignore[attr-defined]
    origin = "env" if settings.layer("plugins") == "env" else "config"
    for name, provider, loader in _named_plugins(settings.plugins):
        if name not in disabled:
            _load(pm, name, loader, provider, "", origin, infos, strict)
    if entry_points:
        for ep in _entry_points():
            if ep.name in disabled:
                continue
            _load(pm, ep.name, ep.load, ep.value, ep.version, "entry-point", infos, strict)
    _check_pending(pm, infos, strict)
    return pm


def load_defaults(pm: pluggy.PluginManager, hook: str | None = None) -> None:
    """Import and register the default plugins not loaded yet that answer
    ``hook`` (every one of them with ``None``), in :data:`DEFAULT_PLUGINS` order."""
    pending: dict[str, str] = getattr(pm, "mem_pending", {})
    chosen = [(short, ref) for short, ref in pending.items() if hook is None or default_hook(ref) == hook]
    if not chosen:
        return
    infos: list[PluginInfo] = pm.mem_plugin_info  # type: ignore[attr-defined]
    strict: bool = pm.mem_strict  # type: ignore[attr-defined]
    for short, ref in chosen:
        del pending[short]
        _load(pm, short, partial(_default_plugin, ref), default_module(ref), _mem_version(), "default", infos, strict)
    _check_pending(pm, infos, strict)


class _DefaultPlugin:
    """A default plugin as pluggy sees it: its registration hook (an
    attribute named after the hook) returns the class it provides."""

    def __init__(self, hook: str, provided: type) -> None:
        from mem_core.hookspecs import hookimpl

        def register() -> list[type]:
            return [provided]

        setattr(self, hook, hookimpl(register))


def _default_plugin(ref: str) -> _DefaultPlugin:
    """The default plugin ``ref`` (``module:Class``), its module imported."""
    return _DefaultPlugin(default_hook(ref), default_class(ref))


def _check_pending(pm: pluggy.PluginManager, infos: list[PluginInfo], strict: bool) -> None:
    """pluggy's ``check_pending``, plugin by plugin: a plugin with a hook
    implementation that matches no specification (a misspelled hook) is
    broken — unregistered and reported — and the others stay."""
    while True:
        try:
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            name = pm.get_name(exc.plugin) or str(exc.plugin)
            if strict:
                raise PluginError(f"plugin '{name}' is broken: {exc}") from exc
            pm.unregister(exc.plugin)
            for index, info in enumerate(infos):
                if info.name == name and info.error is None:
                    infos[index] = PluginInfo(info.name, info.provider, info.version, info.origin, error=str(exc))
            continue
        return


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
        infos.append(PluginInfo(name, provider, version, origin, error=load_failure(name, provider, exc, strict)))
        return
    infos.append(PluginInfo(name, provider, version, origin))
