"""Hook specifications: the public plugin API of ``mem``.

Every behaviour of ``mem`` is contributed through these hooks, by the default
plugins in :mod:`mem_plugins` exactly as by third-party ones. Registration
hooks return *classes* (each with a unique ``name`` ClassVar); the kernel
collects them into registries and chooses among them by configured name,
never by registration order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from mem_core.interfaces import MemoryStore, NoteSource, OutcomeVerifier, Ranker, RewardSignal

hookspec = pluggy.HookspecMarker("mem")


@hookspec
def mem_register_note_sources() -> list[type[NoteSource]]:
    """Return the :class:`~mem_core.interfaces.NoteSource` classes this plugin
    provides.

    A note source yields recall candidates (journal events, Markdown sections,
    structured memories …) for a :class:`~mem_core.interfaces.RecallRequest`.
    Sources are queried in ascending ``order``; ties in the final ranking keep
    that order.

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_rankers() -> list[type[Ranker]]:
    """Return the :class:`~mem_core.interfaces.Ranker` classes this plugin
    provides.

    ``mem recall --ranking <name>`` selects a ranker by its ``name``; the
    ranker scores, filters and orders the candidates of every active source.

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_reward_signals() -> list[type[RewardSignal]]:
    """Return the :class:`~mem_core.interfaces.RewardSignal` classes this
    plugin provides.

    Each signal owns its command-line option of ``mem write`` and
    ``mem reinforce``, the parsing of its value and its weight in the reward
    (weights are renormalised over the signals given).

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_outcome_verifiers() -> list[type[OutcomeVerifier]]:
    """Return the :class:`~mem_core.interfaces.OutcomeVerifier` classes this
    plugin provides.

    A verifier confirms that named work was accepted with current,
    independently verified evidence, and describes it as the ``source`` of an
    evidence receipt (``mem observe``, ``mem outcomes``).

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_stores() -> list[type[MemoryStore]]:
    """Return the :class:`~mem_core.interfaces.MemoryStore` backend classes
    this plugin provides for structured memories.

    The backend is chosen by name (``MEM_STORE``, default ``sqlite``).

    .. versionadded:: 0.1
    """
