"""mem_core — the kernel of ``mem``: hookspecs, plugin manager, store
primitives, errors and the public API.

Plugin authors need only::

    from mem_core import hookimpl

The API functions (``recall``, ``write`` …) are imported on first use so that
importing the kernel stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

import pluggy

from .errors import ExitCode, MemError

__version__ = "0.1.0"

hookimpl = pluggy.HookimplMarker("mem")

#: public name -> module that defines it (loaded lazily)
_LAZY = {
    "recall": "mem_core.api",
    "write": "mem_core.api",
    "plugins_report": "mem_core.api",
    "RecallResult": "mem_core.api",
    "WriteResult": "mem_core.api",
    "reinforce": "mem_core.reinforcement",
    "ReinforceResult": "mem_core.reinforcement",
    "observe": "mem_core.outcomes",
    "outcomes": "mem_core.outcomes",
    "ObserveResult": "mem_core.outcomes",
    "OutcomesResult": "mem_core.outcomes",
    "Kernel": "mem_core.plugins",
    "make_plugin_manager": "mem_core.plugins",
    "DEFAULT_PLUGINS": "mem_core.plugins",
    "Candidate": "mem_core.interfaces",
    "RecallRequest": "mem_core.interfaces",
    "NoteSource": "mem_core.interfaces",
    "Ranker": "mem_core.interfaces",
    "RewardSignal": "mem_core.interfaces",
    "OutcomeVerifier": "mem_core.interfaces",
    "MemoryStore": "mem_core.interfaces",
    "remember": "mem_core.memories",
    "list_memories": "mem_core.memories",
    "search_memories": "mem_core.memories",
    "expiring_memories": "mem_core.memories",
    "forget": "mem_core.memories",
    "verify": "mem_core.memories",
    "context_summary": "mem_core.memories",
    "memory_history": "mem_core.memories",
    "Memory": "mem_core.memories",
    "RememberResult": "mem_core.memories",
    "MemoriesResult": "mem_core.memories",
    "ForgetResult": "mem_core.memories",
    "VerifyResult": "mem_core.memories",
    "ContextSummary": "mem_core.memories",
}

__all__ = ["__version__", "hookimpl", "MemError", "ExitCode", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
