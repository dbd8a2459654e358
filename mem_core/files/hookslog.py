"""The hooks log: one line per hook that failed open, or per brief refresh
that failed (docs/brief.md).

``<project>/.bmad/memory/hooks.log`` when the project has that directory,
else ``hooks.log`` in the user cache directory of ``mem``
(``$XDG_CACHE_HOME/mem`` or ``~/.cache/mem`` on Linux). Bounded: past
:data:`MAX_BYTES` the file is moved to ``hooks.log.1`` (replacing the
previous one) and a new one begun. Writing it never raises: a hook that
cannot log still exits 0 with nothing on stdout.
"""

from __future__ import annotations

import os
import re
import time

__all__ = ["LOG", "MAX_BYTES", "log_line", "log_path"]

#: the project's hooks log, project-relative
LOG = ".bmad/memory/hooks.log"
#: past this size the log is rotated
MAX_BYTES = 256 * 1024
_LINE_MAX = 2000
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def log_path(project: str | None) -> str:
    """Where a line about ``project`` goes (see the module's docstring)."""
    if project:
        memory = os.path.join(project, ".bmad", "memory")
        if os.path.isdir(memory) and not os.path.islink(memory):
            return os.path.join(project, LOG)
    from mem_core.files.usercache import user_cache_dir

    return os.path.join(user_cache_dir(), "hooks.log")


def _now() -> str:
    seconds = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}Z"


def log_line(project: str | None, what: str, message: str) -> None:
    """Append ``<time> <what>: <message>`` (one line, at most 2000
    characters) to the log of ``project``; never raises."""
    try:
        text = _CONTROL.sub(" ", f"{_now()} {what}: {message}")[:_LINE_MAX] + "\n"
        path = log_path(project)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if os.lstat(path).st_size + len(text) > MAX_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        # O_NONBLOCK: a FIFO planted at the log never blocks a hook (ENXIO, then skipped)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o666)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log is best effort
        pass
