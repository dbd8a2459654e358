"""Hook specifications: the public plugin API of ``mem``.

Every behaviour of ``mem`` is contributed through these hooks: by
third-party plugins, and by the default plugins in :mod:`mem_plugins`, each
a class that :data:`mem_core.kernel.discovery.DEFAULT_PLUGINS` names and the
kernel registers as the answer of its kind's registration hook. Registration
hooks return *classes* (each with a unique ``name`` ClassVar, deriving from
the base class of :mod:`mem_core.plugin` that the hook names); the kernel
collects them into registries and chooses among them by configured name,
never by registration order.

The kernel calls every hook through pluggy's relay with keyword arguments:
an implementation names only the arguments it wants (``def
mem_register_rankers():`` is fine), and a hook may gain arguments without
breaking any plugin. ``context`` is a read-only
:class:`PluginContext` (``settings``, ``project``,
``version``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import typer

    from mem_core.adapters.interfaces import Adapter
    from mem_core.evidence.interfaces import OutcomeVerifier
    from mem_core.memories.interfaces import MemoryStore
    from mem_core.reinforcement.interfaces import RewardSignal
    from mem_core.retrieval.interfaces import NoteSource, Ranker
    from mem_core.settings import Settings

hookspec = pluggy.HookspecMarker("mem")
#: marks a function as an implementation of one of these hooks (plugins
#: import it from :mod:`mem_core.plugin`)
hookimpl = pluggy.HookimplMarker("mem")


class PluginContext:
    """What every hook receives as ``context``: the settings, the project and
    the ``mem`` version, read-only."""

    __slots__ = ("_settings", "_version")

    def __init__(self, settings: Settings, version: str) -> None:
        self._settings = settings
        self._version = version

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def project(self) -> str:
        return self._settings.project

    @property
    def version(self) -> str:
        return self._version


@hookspec
def mem_register_note_sources(context: PluginContext) -> list[type[NoteSource]]:
    """Return the :class:`~mem_core.plugin.NoteSource` classes this plugin
    provides.

    A note source yields recall candidates (journal events, Markdown sections,
    structured memories …) for a read-only :class:`~mem_core.plugin.Query`,
    reading files through its :class:`~mem_core.plugin.SourceContext`.
    Sources are queried in ascending ``order``; ties in the final ranking keep
    that order.

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2 ``context``; sources receive ``(query, context)``.
    """


@hookspec
def mem_register_rankers(context: PluginContext) -> list[type[Ranker]]:
    """Return the :class:`~mem_core.plugin.Ranker` classes this plugin
    provides.

    ``mem recall --ranking <name>`` selects a ranker by its ``name``; the
    ranker returns :class:`~mem_core.plugin.Scored` entries for the candidates
    of every active source, best first, and never changes a candidate.

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2 ``context``; rankers return scores.
    """


@hookspec
def mem_register_reward_signals(context: PluginContext) -> list[type[RewardSignal]]:
    """Return the :class:`~mem_core.plugin.RewardSignal` classes this plugin
    provides.

    Each signal owns its command-line option of ``mem write`` and
    ``mem reinforce`` (``--<name>``, and ``--signal <name>=VALUE``), the
    parsing of its value and its weight in the reward (weights are
    renormalised over the signals given).

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_outcome_verifiers(context: PluginContext) -> list[type[OutcomeVerifier]]:
    """Return the :class:`~mem_core.plugin.OutcomeVerifier` classes this
    plugin provides.

    A verifier confirms that named work was accepted with current,
    independently verified evidence, and describes it as the ``source`` of an
    evidence receipt (``mem observe``, ``mem outcomes``).

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_stores(context: PluginContext) -> list[type[MemoryStore]]:
    """Return the :class:`~mem_core.plugin.MemoryStore` backend classes
    this plugin provides for structured memories.

    The backend is chosen by name (setting ``store``, default ``sqlite``).
    Every backend must pass the contract suite of :mod:`mem_core.testing`.

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.1
    """


@hookspec
def mem_register_adapters(context: PluginContext) -> list[type[Adapter]]:
    """Return the :class:`~mem_core.plugin.Adapter` classes this plugin
    provides: each wires ``mem`` into one coding assistant (its instruction
    file, lifecycle hooks and MCP server entry), chosen by ``name`` with
    ``--assistant <name>``.

    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.2
    """


@hookspec
def mem_register_commands(app: typer.Typer, context: PluginContext) -> None:
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
    :param context: the settings, the project and the ``mem`` version.

    .. versionadded:: 0.2
    """
