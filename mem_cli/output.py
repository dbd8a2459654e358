"""Writing results and errors: UTF-8 always, JSON as JavaScript writes it."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from mem_core.lazyre import lazy

if TYPE_CHECKING:
    from typing import Any

_LONE_SURROGATE = lazy("[\ud800-\udfff]")


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates print as U+FFFD, as in Node
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


_CONTROL = lazy("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def one_line(text: str) -> str:
    """``text`` with newlines and other control characters shown escaped
    (``\\n``, ``\\x1b``): an error echoing a user's value stays one line,
    and the value cannot forge a second one or drive the terminal."""
    return _CONTROL.sub(_escape_one, text) if _CONTROL.search(text) else text


def out(text: str) -> None:
    """One or more lines on stdout (a final newline is added)."""
    stream = sys.stdout
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # captured by a test runner
        stream.write(text + "\n")
    else:
        buffer.write(_encode(text + "\n"))
        buffer.flush()


def err(text: str) -> None:
    """One line on stderr."""
    stream = sys.stderr
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text + "\n")
    else:
        stream.flush()
        buffer.write(_encode(text + "\n"))
        buffer.flush()


def out_json(value: Any) -> None:
    """Indented JSON (``JSON.stringify(value, null, 2)``) on stdout."""
    from mem_core.js.jsonfmt import dumps  # not at start-up: text output needs no json

    out(dumps(value.to_json() if hasattr(value, "to_json") else value, 2))


def show(value: Any, json_mode: bool, text: Callable[[Any], str]) -> None:
    """A command's answer: ``value`` as JSON (:func:`out_json`), or the text
    ``text(value)`` renders."""
    if json_mode:
        out_json(value)
    else:
        out(text(value))


def error(action: str, message: str, json_mode: bool) -> None:
    """The one error line of a failed command (mem-cli.md §0)."""
    if json_mode:
        from mem_core.js.jsonfmt import dumps

        out(dumps({"error": message}))
    else:
        err(f"mem {action}: {one_line(message)}" if action else f"mem: {one_line(message)}")


def broken_pipe() -> int:
    """The reader of stdout went away (``| head``): stop quietly, exit 1, and
    keep Python from complaining about the closed stream at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1
