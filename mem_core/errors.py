"""Errors and exit codes: one place that maps failures to messages."""

from __future__ import annotations

import enum

__all__ = ["ExitCode", "MemError", "UsageError", "PluginError", "TryAgain"]


class ExitCode(enum.IntEnum):
    """Process exit codes of every ``mem`` command (docs/contract.md §0)."""

    OK = 0
    #: unknown action, missing or invalid option, lock held, store full, any failure
    FAILURE = 1


class MemError(Exception):
    """A failure with a one-line message meant for the user (never a traceback).

    The CLI prints ``mem <action>: <message>`` (or ``{"error": <message>}``
    with ``--json``) and exits with :attr:`exit_code`.
    """

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str, *, notes: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        #: lines printed on stderr before the error (e.g. the broken plugin
        #: that may have provided what was missing)
        self.notes = tuple(notes)

    def __str__(self) -> str:
        return self.message


class UsageError(MemError):
    """The command line itself is wrong (unknown option, missing value …)."""


class PluginError(MemError):
    """A plugin could not be loaded or registered (duplicate name, import error)."""


class TryAgain(MemError):
    """A passing failure: the store stayed locked, or its database could not be
    reached or cut the connection. Nothing was changed, and the same call may
    succeed later (a server answers 503, not 400)."""
