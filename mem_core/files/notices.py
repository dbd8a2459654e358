"""Where the one-line notices of the file layer go (a stale writer lock
taken over, :mod:`mem_core.files.lock`): a command routes them through its
own output while it runs, without importing the lock module, which a
command that only reads never needs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["say", "set_notifier"]

_notify: Any = None


def set_notifier(notify: Any) -> Any:
    """Route the notices to ``notify(text)``; returns the previous notifier.
    Without one they go to stderr as ``mem: <text>``."""
    global _notify
    previous, _notify = _notify, notify
    return previous


def say(text: str) -> None:
    """One notice, to the notifier (or stderr)."""
    if _notify is not None:
        _notify(text)
        return
    sys.stderr.write(f"mem: {text}\n")
    sys.stderr.flush()
