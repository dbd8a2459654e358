"""The prompt hook's ``hybrid`` ranking, served by a long-lived process.

Loading the embedding model takes 0.3 to 1.2 s here, several times the
prompt hook's whole budget (docs/recall.md), so the hook cannot rank
``hybrid`` itself. ``mem mcp``, which an assistant keeps running for the
whole session, loads the model once and listens on a unix socket of the
user's runtime directory, one per project (:func:`socket_path`); the
prompt hook asks it for the prompt's context (:func:`ask`) and ranks
``bm25`` itself when nobody answers in time; :mod:`mem_core.hooks.server`
is the listener.

The protocol is one JSON line each way: ``{"prompt": …, "budget": …}``,
then ``{"text": …, "query": …, "floor": …, "results": […]}`` (what
:class:`~mem_core.hooks.prompt.PromptContext` says of the prompt, ranked
``hybrid``). A request is at most :data:`LIMIT` bytes. The socket is the
user's alone (mode 0600 in a directory of mode 0700); a missing or stale
socket, a slow or broken answer, are a fallback to ``bm25``, never an
error.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from typing import Any

#: the longest request or answer read, in bytes
LIMIT = 1 << 20
#: how long the hook waits to connect (a live server accepts at once)
CONNECT_TIMEOUT = 0.05
#: how long the hook waits for the answer (the server only listens when
#: it ranks within :data:`SERVE_WITHIN`; this leaves room for a busy
#: machine, within the hook's own time limit)
ANSWER_TIMEOUT = 0.5


def socket_path(project: str, *, create: bool = False) -> str:
    """Where the server of ``project`` listens: the user's runtime
    directory (``$XDG_RUNTIME_DIR/mem``), one socket per project, named by
    a hash of its real path (a path a unix socket can bind: short).

    ``create`` (the listener) makes the directory. Without
    ``XDG_RUNTIME_DIR`` (a container, an ssh session, CI) platformdirs
    names its fallback in the temporary directory, which nobody else
    creates: it makes that one too, mode 0700, and refuses one another
    user owns."""
    import warnings

    import platformdirs

    key = hashlib.sha256(os.path.realpath(project).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    with warnings.catch_warnings():
        # a runtime directory missing or open to others: platformdirs falls back to its own, and says so
        warnings.simplefilter("ignore")
        directory = platformdirs.user_runtime_dir("mem", ensure_exists=create)
    return os.path.join(directory, f"hybrid-{key}.sock")


def ask(project: str, prompt: str, budget: int) -> dict[str, Any] | None:
    """The served context of ``prompt``, or ``None``: nobody listens, or
    the answer is late or malformed (the hook then ranks by itself)."""
    path = socket_path(project)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(CONNECT_TIMEOUT)
        client.connect(path)
        client.settimeout(ANSWER_TIMEOUT)
        client.sendall(json.dumps({"prompt": prompt, "budget": budget}).encode("utf-8") + b"\n")
        answer = read_line(client)
    except OSError:  # no socket, a stale one (refused), a timeout
        return None
    finally:
        client.close()
    try:
        data = json.loads(answer) if answer else None
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    return data


def listening(path: str) -> bool:
    """Whether a process accepts connections on the socket ``path`` (a
    socket file whose server is gone refuses them)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(CONNECT_TIMEOUT)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def serving(project: str) -> bool:
    """Whether a long-lived process serves ``project``'s prompt hook now."""
    return listening(socket_path(project))


def read_line(conn: socket.socket) -> bytes | None:
    """One line of at most :data:`LIMIT` bytes (``None``: longer, or cut)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk:
            return b"".join(chunks).split(b"\n", 1)[0]
        if size > LIMIT:
            return None
