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

    import pluggy

    #: marks a function as an implementation of a hook of :mod:`mem_core.hookspecs`
    hookimpl: pluggy.HookimplMarker

    from mem_core.evidence.api import ObserveResult as ObserveResult
    from mem_core.evidence.api import OutcomesResult as OutcomesResult

    # the names the module's __getattr__ loads on first use, for type checkers
    from mem_core.evidence.api import observe as observe
    from mem_core.evidence.api import outcomes as outcomes
    from mem_core.humans.api import create_human as create_human
    from mem_core.humans.api import list_humans as list_humans
    from mem_core.humans.api import revoke_human as revoke_human
    from mem_core.humans.keys import HumanKey as HumanKey
    from mem_core.journal.api import WriteResult as WriteResult
    from mem_core.journal.api import write as write
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
    from mem_core.memories.service import context_summary as context_summary
    from mem_core.memories.service import expiring_memories as expiring_memories
    from mem_core.memories.service import forget as forget
    from mem_core.memories.service import list_memories as list_memories
    from mem_core.memories.service import list_minds as list_minds
    from mem_core.memories.service import memory_history as memory_history
    from mem_core.memories.service import remember as remember
    from mem_core.memories.service import restore as restore
    from mem_core.memories.service import search_memories as search_memories
    from mem_core.memories.service import verify as verify
    from mem_core.reinforcement.api import ReinforceResult as ReinforceResult
    from mem_core.reinforcement.api import reinforce as reinforce
    from mem_core.retrieval.api import RecallResult as RecallResult
    from mem_core.retrieval.api import recall as recall

__version__ = "0.2.0"

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
    if name == "hookimpl":
        # made on first use: importing pluggy costs more than a whole `mem
        # write`, and only a plugin manager's plugins need the marker
        import pluggy

        return globals().setdefault("hookimpl", pluggy.HookimplMarker("mem"))
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mem_core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
