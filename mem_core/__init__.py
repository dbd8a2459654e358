"""mem_core — the kernel of ``mem``: the public API of the five actions and
of structured memories, their result types, errors and ``hookimpl``.

Plugin authors import from :mod:`mem_core.plugin`. The API functions
(``recall``, ``write`` …) are imported on first use so that importing the
kernel stays cheap; no submodule of ``mem_core`` is named like an API
function, so ``from mem_core import outcomes`` is always the function.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

import pluggy

from mem_core.errors import ExitCode, MemError

if TYPE_CHECKING:
    from typing import Any

__version__ = "0.2.0"

#: marks a function as an implementation of a hook of :mod:`mem_core.hookspecs`
hookimpl = pluggy.HookimplMarker("mem")

#: public name -> module that defines it (loaded lazily)
_LAZY = {
    "recall": "mem_core.retrieval.api",
    "RecallResult": "mem_core.retrieval.api",
    "write": "mem_core.journal.api",
    "WriteResult": "mem_core.journal.api",
    "plugins_report": "mem_core.kernel.report",
    "PluginsReport": "mem_core.kernel.report",
    "reinforce": "mem_core.reinforcement.api",
    "ReinforceResult": "mem_core.reinforcement.api",
    "observe": "mem_core.evidence.api",
    "outcomes": "mem_core.evidence.api",
    "ObserveResult": "mem_core.evidence.api",
    "OutcomesResult": "mem_core.evidence.api",
    "Kernel": "mem_core.kernel",
    "make_plugin_manager": "mem_core.kernel",
    "DEFAULT_PLUGINS": "mem_core.kernel",
    "remember": "mem_core.memories.service",
    "list_memories": "mem_core.memories.service",
    "search_memories": "mem_core.memories.service",
    "expiring_memories": "mem_core.memories.service",
    "forget": "mem_core.memories.service",
    "verify": "mem_core.memories.service",
    "context_summary": "mem_core.memories.service",
    "memory_history": "mem_core.memories.service",
    "restore": "mem_core.memories.service",
    "list_minds": "mem_core.memories.service",
    "Memory": "mem_core.memories.results",
    "RememberResult": "mem_core.memories.results",
    "MemoriesResult": "mem_core.memories.results",
    "ForgetResult": "mem_core.memories.results",
    "VerifyResult": "mem_core.memories.results",
    "ContextSummary": "mem_core.memories.results",
    "HistoryResult": "mem_core.memories.results",
    "RestoreResult": "mem_core.memories.results",
    "MindsResult": "mem_core.memories.results",
    "HumanKey": "mem_core.humans.keys",
    "create_human": "mem_core.humans.api",
    "list_humans": "mem_core.humans.api",
    "revoke_human": "mem_core.humans.api",
}

__all__ = ["__version__", "hookimpl", "MemError", "ExitCode", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
