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
    import typer

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


@hookspec
def mem_register_commands(app: typer.Typer) -> None:
    """Add commands to the ``mem`` command line.

    ``app`` is the :class:`typer.Typer` application of ``mem``; add a command
    with ``app.command()(function)`` (or a group with ``app.add_typer``). It is
    then reachable as ``mem <its name>`` and listed in ``mem --help``. The
    hook is called only when the typer application is built (``--help``,
    the commands beyond the five actions), never on the path of
    ``mem recall``/``mem write``. A command whose name is already taken, or an
    implementation that raises, is left out and reported for its plugin; the
    other commands are unaffected.

    :param app: the typer application to add commands to.

    .. versionadded:: 0.2
    """
