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

from mem_core.errors import ExitCode, MemError

if TYPE_CHECKING:
    from typing import Any

    from mem_core.api.evidence import ObserveResult as ObserveResult
    from mem_core.api.evidence import OutcomesResult as OutcomesResult

    # the names the module's __getattr__ loads on first use, for type checkers
    from mem_core.api.evidence import observe as observe
    from mem_core.api.evidence import outcomes as outcomes
    from mem_core.api.memories import context_summary as context_summary
    from mem_core.api.memories import expiring_memories as expiring_memories
    from mem_core.api.memories import forget as forget
    from mem_core.api.memories import list_memories as list_memories
    from mem_core.api.memories import list_minds as list_minds
    from mem_core.api.memories import memory_history as memory_history
    from mem_core.api.memories import remember as remember
    from mem_core.api.memories import restore as restore
    from mem_core.api.memories import search_memories as search_memories
    from mem_core.api.memories import verify as verify
    from mem_core.api.recall import recall as recall
    from mem_core.api.reinforce import ReinforceResult as ReinforceResult
    from mem_core.api.reinforce import reinforce as reinforce
    from mem_core.api.write import WriteResult as WriteResult
    from mem_core.api.write import write as write
    from mem_core.hookspecs import hookimpl as hookimpl
    from mem_core.humans.api import create_human as create_human
    from mem_core.humans.api import list_humans as list_humans
    from mem_core.humans.api import revoke_human as revoke_human
    from mem_core.humans.keys import HumanKey as HumanKey
    from mem_core.kernel import DEFAULT_PLUGINS as DEFAULT_PLUGINS
    from mem_core.kernel import Kernel as Kernel
    from mem_core.kernel import make_plugin_manager as make_plugin_manager
    from mem_core.kernel.report import PluginsReport as PluginsReport
    from mem_core.kernel.report import plugins_report as plugins_report
    from mem_core.memories.results import ContextSummary as ContextSummary
    from mem_core.memories.results import ForgetResult as ForgetResult
    from mem_core.memories.results import HistoryResult as HistoryResult
    from mem_core.memories.results import MemoriesResult as MemoriesResult
    from mem_core.memories.results import Memory as Memory
    from mem_core.memories.results import MindsResult as MindsResult
    from mem_core.memories.results import RememberResult as RememberResult
    from mem_core.memories.results import RestoreResult as RestoreResult
    from mem_core.memories.results import VerifyResult as VerifyResult
    from mem_core.retrieval.results import RecallResult as RecallResult
    from mem_core.version import __version__ as __version__

#: public name -> module that defines it (loaded lazily)
_LAZY = {
    "__version__": "mem_core.version",
    "recall": "mem_core.api.recall",
    "RecallResult": "mem_core.retrieval.results",
    "write": "mem_core.api.write",
    "WriteResult": "mem_core.api.write",
    "plugins_report": "mem_core.kernel.report",
    "PluginsReport": "mem_core.kernel.report",
    "reinforce": "mem_core.api.reinforce",
    "ReinforceResult": "mem_core.api.reinforce",
    "observe": "mem_core.api.evidence",
    "outcomes": "mem_core.api.evidence",
    "ObserveResult": "mem_core.api.evidence",
    "OutcomesResult": "mem_core.api.evidence",
    "Kernel": "mem_core.kernel",
    "make_plugin_manager": "mem_core.kernel",
    "DEFAULT_PLUGINS": "mem_core.kernel",
    "remember": "mem_core.api.memories",
    "list_memories": "mem_core.api.memories",
    "search_memories": "mem_core.api.memories",
    "expiring_memories": "mem_core.api.memories",
    "forget": "mem_core.api.memories",
    "verify": "mem_core.api.memories",
    "context_summary": "mem_core.api.memories",
    "memory_history": "mem_core.api.memories",
    "restore": "mem_core.api.memories",
    "list_minds": "mem_core.api.memories",
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

__all__ = ["hookimpl", "MemError", "ExitCode", *_LAZY]


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        # imported on first use: importing pluggy costs more than a whole
        # `mem write`, and only a plugin manager's plugins need the marker
        from mem_core.hookspecs import hookimpl

        globals()["hookimpl"] = hookimpl
        return hookimpl
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
