"""The :class:`Kernel`: a plugin manager with typed registries, one per
registration hook, safe to share between threads.

Every hook is called through pluggy's relay with keyword arguments, so an
implementation takes only the arguments it names and a hook can gain
arguments without breaking any plugin. Where only the default plugins can
take part, there is no hook to call: a registry holds the classes the table
of the defaults names (:data:`~mem_core.kernel.discovery.DEFAULT_PLUGINS`),
and no plugin manager is built. A plugin whose implementation raises,
or returns something that is not a list of proper classes, is *broken*: it
provides nothing to that registry, is reported by ``mem plugins``, and is
named when a command misses what it may have provided. The other plugins
are not affected.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from mem_core.errors import PluginError
from mem_core.kernel.registry import Registry

if TYPE_CHECKING:
    from typing import Any

    import pluggy

    from mem_core.adapters.interfaces import Adapter
    from mem_core.evidence.interfaces import OutcomeVerifier
    from mem_core.files.cache import FileCache
    from mem_core.hookspecs import PluginContext
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.reinforcement.interfaces import RewardSignal
    from mem_core.retrieval.interfaces import NoteSource, Ranker
    from mem_core.settings import Settings

__all__ = ["Kernel", "get_kernel", "project_settings", "resolve"]


def _base(kind: str) -> type:
    """The base class the classes of a registry must derive from."""
    if kind == "note source":
        from mem_core.retrieval.interfaces import NoteSource

        return NoteSource
    if kind == "ranker":
        from mem_core.retrieval.interfaces import Ranker

        return Ranker
    if kind == "reward signal":
        from mem_core.reinforcement.interfaces import RewardSignal

        return RewardSignal
    if kind == "outcome verifier":
        from mem_core.evidence.interfaces import OutcomeVerifier

        return OutcomeVerifier
    if kind == "memory store":
        from mem_core.memories.interfaces import MemoryStore

        return MemoryStore
    from mem_core.adapters.interfaces import Adapter

    return Adapter


#: registration hook -> the kind of class it returns
HOOKS = {
    "mem_register_note_sources": "note source",
    "mem_register_rankers": "ranker",
    "mem_register_reward_signals": "reward signal",
    "mem_register_outcome_verifiers": "outcome verifier",
    "mem_register_stores": "memory store",
    "mem_register_adapters": "adapter",
}


def _problem(value: Any, kind: str, base: type) -> str | None:
    """Why ``value`` is not a class a registry of ``kind`` can hold, or ``None``."""
    if not isinstance(value, type) or not issubclass(value, base):
        return f"returned {value!r}, not a {base.__name__} class"
    name = getattr(value, "name", None)
    if not isinstance(name, str) or not name:
        return f"returned {kind} {value.__name__} without a name"
    missing = getattr(value, "__abstractmethods__", ())  # what abc refuses to instantiate
    if missing:
        return f"returned {kind} {value.__name__}, which does not implement {', '.join(sorted(missing))}"
    return None


class Kernel:
    """A plugin manager (:func:`~mem_core.kernel.manager.make_plugin_manager`)
    and the typed registries built from its registration hooks.

    One kernel may serve many threads (``mem mcp``): registries are built once,
    under a lock, and are read-only afterwards.
    """

    def __init__(
        self,
        pm: pluggy.PluginManager | None = None,
        *,
        settings: Settings | None = None,
        cache: FileCache | None = None,
    ) -> None:
        self._settings = settings
        self._pm = pm
        self._registries: dict[str, Registry[Any]] = {}
        #: plugin name -> why one of its registration hooks failed
        self._failures: dict[str, str] = {}
        self._lock = _thread.RLock()
        self._cache: FileCache | None = cache

    @property
    def pm(self) -> pluggy.PluginManager:
        """The plugin manager: the one given to the constructor, else built
        (:func:`~mem_core.kernel.manager.make_plugin_manager`) on first use,
        so a kernel that needs no registry (``mem write`` without a signal)
        neither reads the installed entry points nor imports a plugin. The
        default plugins are imported only when a registry of their kind is
        first needed (:func:`~mem_core.kernel.manager.load_defaults`)."""
        pm = self._pm
        if pm is None:
            with self._lock:
                pm = self._pm
                if pm is None:
                    from mem_core.kernel.manager import make_plugin_manager

                    pm = self._pm = make_plugin_manager(settings=self.settings)
        return pm

    @property
    def settings(self) -> Settings:
        """The settings this kernel was built with (read on first use when
        none were given)."""
        if self._settings is None:
            from mem_core.settings import load_settings

            self._settings = load_settings()
        return self._settings

    def context(self) -> PluginContext:
        from mem_core.hookspecs import PluginContext
        from mem_core.version import __version__

        return PluginContext(self.settings, __version__)

    @property
    def cache(self) -> FileCache:
        """What sources built from project files, kept for this kernel's life
        and never stale (:class:`~mem_core.files.cache.FileCache`); the one
        given to the constructor, else made on first use, so a kernel that
        never recalls pays nothing."""
        cache = self._cache
        if cache is None:
            with self._lock:
                cache = self._cache
                if cache is None:
                    from mem_core.files.cache import FileCache

                    cache = self._cache = FileCache()
        return cache

    # -- registries --------------------------------------------------------

    def registry(self, hook_name: str) -> Registry[Any]:
        """The registry of one registration hook (built on first use)."""
        registry = self._registries.get(hook_name)
        if registry is None:
            with self._lock:
                registry = self._registries.get(hook_name)
                if registry is None:
                    registry = self._registries[hook_name] = self._collect(hook_name, HOOKS[hook_name])
        return registry

    def _collect(self, hook_name: str, kind: str) -> Registry[Any]:
        from mem_core.kernel.discovery import defaults_only

        if self._pm is None and defaults_only(self.settings):
            return self._defaults(hook_name, kind)
        from mem_core.kernel.manager import load_defaults

        pm = self.pm
        load_defaults(pm, hook_name)
        order = self._order()
        impls = getattr(pm.hook, hook_name).get_hookimpls()
        plain = sorted(
            (impl for impl in impls if not (impl.wrapper or impl.hookwrapper)),
            key=lambda impl: order.get(impl.plugin_name, len(order)),
        )
        everyone = [impl.plugin for impl in plain]
        context = self.context()
        broken = [(info.name, info.error) for info in self._infos() if info.error]
        # each plugin's classes through the relay (pluggy passes the arguments
        # the implementation names)
        calls: list[tuple[str, Any, Callable[[], list[Any]]]] = [
            (
                impl.plugin_name,
                impl.plugin,
                partial(
                    pm.subset_hook_caller(hook_name, [p for p in everyone if p is not impl.plugin]), context=context
                ),
            )
            for impl in plain
        ]
        entries, failed = self._call_each(hook_name, kind, calls, broken)
        if any(impl.wrapper or impl.hookwrapper for impl in impls):
            # wrappers may filter or add: the relay's answer decides what is in
            kept = [cls for result in pm.subset_hook_caller(hook_name, failed)(context=context) for cls in result]
            known = {cls for _provider, cls in entries}
            wrappers = ", ".join(impl.plugin_name for impl in impls if impl.wrapper or impl.hookwrapper)
            entries = [(provider, cls) for provider, cls in entries if cls in kept]
            for cls in kept:
                problem = _problem(cls, kind, _base(kind))
                if problem:
                    raise PluginError(f"a wrapper of {hook_name} ({wrappers}) {problem}")
                if cls not in known:
                    entries.append((wrappers, cls))
        return Registry(kind, entries, broken=broken)

    def _defaults(self, hook_name: str, kind: str) -> Registry[Any]:
        """The registry of ``hook_name`` where only the default plugins take
        part: the classes :data:`~mem_core.kernel.discovery.DEFAULT_PLUGINS`
        names for its kind, imported, checked and ordered as on a plugin
        manager, without building one."""
        from mem_core.kernel.discovery import DEFAULT_PLUGINS, default_class, default_hook, default_module, load_failure

        settings = self.settings
        broken: list[tuple[str, str]] = []
        calls: list[tuple[str, Any, Callable[[], list[Any]]]] = []
        for short, ref in DEFAULT_PLUGINS.items():
            if default_hook(ref) != hook_name or short in settings.disable_plugins:
                continue
            try:
                provided = default_class(ref)
            except Exception as exc:  # as a plugin manager records a default that fails to import
                broken.append((short, load_failure(short, default_module(ref), exc, settings.strict_plugins)))
                continue
            calls.append((short, None, partial(_provides, provided)))
        entries, _failed = self._call_each(hook_name, kind, calls, broken)
        return Registry(kind, entries, broken=broken)

    def _call_each(
        self,
        hook_name: str,
        kind: str,
        calls: list[tuple[str, Any, Callable[[], list[Any]]]],
        broken: list[tuple[str, str]],
    ) -> tuple[list[tuple[str, type]], list[Any]]:
        """The classes each plugin's registration hook gives (``calls``: plugin
        name, plugin, and the call returning its results), checked; a plugin
        whose hook raises or gives something else is broken (added to
        ``broken``, and returned among the failed plugins)."""
        base = _base(kind)
        entries: list[tuple[str, type]] = []
        failed: list[Any] = []
        for plugin_name, plugin, call in calls:
            try:
                classes = [cls for result in call() for cls in _as_list(result)]
                problem = next((p for p in (_problem(cls, kind, base) for cls in classes) if p), None)
                if problem:
                    raise PluginError(problem)
            except Exception as exc:  # a broken plugin breaks nothing else
                error = f"{hook_name}: {exc if isinstance(exc, PluginError) else f'{type(exc).__name__}: {exc}'}"
                if self.settings.strict_plugins:
                    raise PluginError(f"plugin '{plugin_name}' failed in {error}") from exc
                self._failures.setdefault(plugin_name, error)
                failed.append(plugin)
                broken.append((plugin_name, error))
                continue
            entries.extend((plugin_name, cls) for cls in classes)
        return entries, failed

    @property
    def note_sources(self) -> Registry[NoteSource]:
        return self.registry("mem_register_note_sources")

    @property
    def rankers(self) -> Registry[Ranker]:
        return self.registry("mem_register_rankers")

    @property
    def reward_signals(self) -> Registry[RewardSignal]:
        return self.registry("mem_register_reward_signals")

    @property
    def outcome_verifiers(self) -> Registry[OutcomeVerifier]:
        return self.registry("mem_register_outcome_verifiers")

    @property
    def stores(self) -> Registry[MemoryStore]:
        return self.registry("mem_register_stores")

    @property
    def adapters(self) -> Registry[Adapter]:
        return self.registry("mem_register_adapters")

    def report_failure(self, plugin_name: str, error: str) -> None:
        """Record that a hook of ``plugin_name`` failed outside the
        registries (``mem_register_commands``): :meth:`plugin_infos`, and so
        ``mem plugins``, then show the plugin as broken. The first error
        recorded for a plugin is kept."""
        with self._lock:
            self._failures.setdefault(plugin_name, error)

    def _order(self) -> dict[str, int]:
        """Plugin name -> its place: the default plugins first, in
        :data:`~mem_core.kernel.manager.DEFAULT_PLUGINS` order (they are
        imported lazily, so their registration order says nothing), then the
        others in registration order."""
        from mem_core.kernel.manager import DEFAULT_PLUGINS

        order = {name: index for index, name in enumerate(DEFAULT_PLUGINS)}
        for name, _plugin in self.pm.list_name_plugin():
            order.setdefault(name, len(order))
        return order

    def _infos(self) -> list[Any]:
        """The plugins loaded or broken so far, in :meth:`_order`; a plugin
        whose registration hook failed carries that error."""
        from mem_core.kernel.manager import PluginInfo

        infos = list(getattr(self.pm, "mem_plugin_info", []))
        listed = {info.name for info in infos}
        for name, plugin in self.pm.list_name_plugin():
            if name not in listed and plugin is not None:
                infos.append(PluginInfo(name, getattr(plugin, "__name__", type(plugin).__name__), "", "registered"))
        order = self._order()
        infos.sort(key=lambda info: order.get(info.name, len(order)))
        return [
            PluginInfo(i.name, i.provider, i.version, i.origin, error=self._failures[i.name])
            if i.error is None and i.name in self._failures
            else i
            for i in infos
        ]

    def plugin_infos(self) -> list[Any]:
        """Every plugin loaded or broken (``mem plugins``): the default plugins
        are all imported first. A plugin whose registration hook failed
        carries that error. Plugins registered on the manager directly (by a
        library caller or a test) are listed too, with origin ``registered``."""
        from mem_core.kernel.manager import load_defaults

        with self._lock:
            load_defaults(self.pm)
        return self._infos()


def _provides(cls: type) -> list[list[type]]:
    """What a default plugin's registration hook answers, as the relay gives it."""
    return [[cls]]


def _as_list(result: Any) -> list[Any]:
    if isinstance(result, (list, tuple)):
        return list(result)
    raise PluginError(f"returned {result!r}, not a list of classes")


def get_kernel(kernel: Kernel | None) -> Kernel:
    """The kernel to use: the one given, or a fresh one."""
    return kernel if kernel is not None else Kernel()


def project_settings(directory: str | None, kernel: Kernel | None) -> Settings:
    """The settings of one API call on the project of ``directory``: the
    given kernel's (re-read for another project), else read now."""
    if kernel is None:
        from mem_core.settings import load_settings

        return load_settings(directory)
    from mem_core.project import find_project

    return kernel.settings.for_project(find_project(directory))


def resolve(directory: str | None, kernel: Kernel | None) -> tuple[Kernel, Settings]:
    """The kernel and the settings of one API call on the project of
    ``directory``: a new kernel built from those settings when none is given."""
    settings = project_settings(directory, kernel)
    if kernel is None:
        kernel = Kernel(settings=settings)
    return kernel, settings
