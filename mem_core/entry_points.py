"""The ``mem.plugins`` entry points of the installed distributions, read
without pluggy and without :mod:`importlib.metadata`: the plugin manager
(:mod:`mem_core.kernel.manager`) loads them, and the structured-memory
commands' fast path (:mod:`mem_core.memories.core`) asks whether there are
any before it leaves the plugin manager out."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

__all__ = ["ENTRY_POINT_GROUP", "EntryPoint", "plugin_entry_points"]

ENTRY_POINT_GROUP = "mem.plugins"


class EntryPoint:
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


def plugin_entry_points() -> list[EntryPoint]:
    """The ``mem.plugins`` entry points of the distributions on ``sys.path``.

    Reads each ``*.dist-info/entry_points.txt`` directly: importing
    :mod:`importlib.metadata` (which pulls in :mod:`email`) costs 14-20 ms,
    a tenth of the start-up budget of ``mem write`` (benchmarks/). As with
    importlib.metadata, the first distribution found on ``sys.path`` wins.
    """
    found: dict[str, EntryPoint] = {}
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
                found.setdefault(name, EntryPoint(name, value, version))
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
