"""The kernel: plugin discovery (:mod:`.manager`), typed registries
(:mod:`.registry`) and the :class:`Kernel` that ties them together (:mod:`.kernel`)."""

from __future__ import annotations

from mem_core.kernel.kernel import Kernel, PluginContext, get_kernel
from mem_core.kernel.manager import DEFAULT_PLUGINS, ENTRY_POINT_GROUP, PluginInfo, make_plugin_manager
from mem_core.kernel.registry import Registry

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "Kernel",
    "PluginContext",
    "PluginInfo",
    "Registry",
    "get_kernel",
    "make_plugin_manager",
]
