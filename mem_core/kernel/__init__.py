"""The kernel: plugin discovery (:mod:`.manager`), typed registries
(:mod:`.registry`) and the :class:`Kernel` that ties them together (:mod:`.kernel`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.kernel.kernel import Kernel, get_kernel, project_settings, resolve
from mem_core.kernel.registry import Registry

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel.manager import DEFAULT_PLUGINS, ENTRY_POINT_GROUP, PluginInfo, make_plugin_manager

#: what :mod:`.manager` defines, imported on first use: it imports pluggy,
#: which a kernel that builds no registry never needs
_MANAGER = frozenset({"DEFAULT_PLUGINS", "ENTRY_POINT_GROUP", "PluginInfo", "make_plugin_manager"})

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "Kernel",
    "PluginInfo",
    "Registry",
    "get_kernel",
    "make_plugin_manager",
    "project_settings",
    "resolve",
]


def __getattr__(name: str) -> Any:
    if name in _MANAGER:
        from mem_core.kernel import manager

        value = getattr(manager, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mem_core.kernel' has no attribute {name!r}")
