"""``mem plugins``: every plugin loaded or broken, and what it provides."""

from __future__ import annotations

from typing import Any

from mem_core.errors import MemError
from mem_core.kernel.kernel import HOOKS, Kernel, get_kernel

__all__ = ["PluginsReport", "plugins_report"]


class PluginsReport:
    """One row per plugin: name, provider, version, origin, what it provides, error."""

    def __init__(self, plugins: list[dict[str, Any]], problems: list[str] | None = None) -> None:
        self.plugins = plugins
        #: registry-level problems (a name provided twice …)
        self.problems = problems or []

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"count": len(self.plugins), "plugins": self.plugins}
        if self.problems:
            data["problems"] = self.problems
        return data

    @property
    def count(self) -> int:
        """How many plugins."""
        return len(self.plugins)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python values (:mod:`mem_core.plain`)."""
        from mem_core.plain import plain

        return plain(self.to_json())


def plugins_report(kernel: Kernel | None = None) -> PluginsReport:
    """Every plugin loaded (or broken) and what it provides."""
    kernel = get_kernel(kernel)
    provided: dict[str, list[dict[str, str]]] = {}
    problems: list[str] = []
    for hook_name, kind in HOOKS.items():
        try:
            registry = kernel.registry(hook_name)
        except MemError as exc:  # e.g. a duplicate name: shown, not fatal here
            problems.append(exc.message)
            continue
        for name in registry.names():
            provided.setdefault(registry.provider(name), []).append({"kind": kind, "name": name})
    rows = []
    for info in kernel.plugin_infos():
        rows.append(
            {
                "name": info.name,
                "provider": info.provider,
                "version": info.version,
                "origin": info.origin,
                "provides": provided.get(info.name, []),
                "error": info.error,
            }
        )
    return PluginsReport(rows, problems)
