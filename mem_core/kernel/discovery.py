"""Plugin discovery without pluggy: the default plugins, the registration
hook of each, and the ``mem.plugins`` entry points of the installed
distributions. The kernel reads these before it decides whether it needs a
plugin manager at all (:meth:`mem_core.kernel.Kernel.registry`): importing
pluggy costs more than a whole ``mem write``.
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
    "default_hook",
    "defaults_only",
    "entry_points",
]


#: Built-in behaviour, registered by the same path as third-party plugins.
DEFAULT_PLUGINS: dict[str, str] = {
    "journal": "mem_plugins.sources.journal",
    "markdown_notes": "mem_plugins.sources.notes",
    "portfolio": "mem_plugins.sources.portfolio",
    "lexical": "mem_plugins.rankers.lexical",
    "bm25": "mem_plugins.rankers.bm25",
    "signal_eval": "mem_plugins.signals.eval",
    "signal_accept": "mem_plugins.signals.accept",
    "signal_ci": "mem_plugins.signals.ci",
    "sqlite_store": "mem_plugins.stores.sqlite",
    "postgres_store": "mem_plugins.stores.postgres",
    "memories_source": "mem_plugins.sources.memories",
    "evidence": "mem_plugins.rankers.evidence",
    "nexus": "mem_plugins.verifiers.nexus",
    "junit": "mem_plugins.verifiers.junit",
    "adapter_claude_code": "mem_plugins.adapters.claude_code",
    "adapter_codex_cli": "mem_plugins.adapters.codex_cli",
    "adapter_gemini_cli": "mem_plugins.adapters.gemini_cli",
    "adapter_cursor": "mem_plugins.adapters.cursor",
    "adapter_opencode": "mem_plugins.adapters.opencode",
    "adapter_aider": "mem_plugins.adapters.aider",
    "adapter_antigravity": "mem_plugins.adapters.antigravity",
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


#: the registration hook each kind of default plugin implements: a default
#: plugin ``mem_plugins.<kind>.<name>`` implements that hook only
KIND_HOOKS: dict[str, str] = {
    "sources": "mem_register_note_sources",
    "rankers": "mem_register_rankers",
    "signals": "mem_register_reward_signals",
    "verifiers": "mem_register_outcome_verifiers",
    "stores": "mem_register_stores",
    "adapters": "mem_register_adapters",
}


def default_hook(module_name: str) -> str:
    """The registration hook of the default plugin module ``module_name``."""
    return KIND_HOOKS[module_name.split(".")[1]]


class _EntryPoint:
    __slots__ = ("name", "value", "version")

    def __init__(self, name: str, value: str, version: str) -> None:
        self.name = name
        self.value = value
        self.version = version

    def load(self) -> Any:
        module_name, _, attr = self.value.partition(":")
        obj = import_module(module_name.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj


def defaults_only(settings: Any) -> bool:
    """Whether no plugin but the default ones can take part under
    ``settings``: no ``plugins`` setting, and every ``mem.plugins`` entry
    point installed is blocked by ``disable_plugins``. The kernel then needs
    no plugin manager (:meth:`mem_core.kernel.Kernel.registry`), and the
    structured-memory fast path no kernel at all."""
    disabled = settings.disable_plugins
    return not settings.plugins and all(ep.name in disabled for ep in entry_points())


#: the last scan: what it was read from (``sys.path`` and its directories'
#: modification times) and what it found
_scanned: tuple[tuple[object, ...], list[_EntryPoint]] | None = None


def entry_points() -> list[_EntryPoint]:
    """The ``mem.plugins`` entry points of the distributions on ``sys.path``,
    read once per process while ``sys.path`` and its directories stay as
    they were (a distribution installed or removed changes a directory's
    modification time).

    Reads each ``*.dist-info/entry_points.txt`` directly: importing
    :mod:`importlib.metadata` (which pulls in :mod:`email`) costs 14-20 ms,
    a tenth of the start-up budget of ``mem write`` (benchmarks/). As with
    importlib.metadata, the first distribution found on ``sys.path`` wins.
    """
    global _scanned
    stamp: list[object] = []
    for base in sys.path:
        try:
            stamp.append((base, os.stat(base or ".").st_mtime_ns))
        except OSError:
            stamp.append((base, None))
    key = tuple(stamp)
    if _scanned is None or _scanned[0] != key:
        _scanned = (key, _scan())
    return list(_scanned[1])


def _scan() -> list[_EntryPoint]:
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
