"""Per-session state of the hooks: the session's first prompt, kept from the
first ``prompt-submit`` to ``session-end`` (docs/brief.md).

One small JSON file per session in ``sessions/`` of the user cache directory
(:func:`mem_core.files.usercache.user_cache_dir`), named by a hash of the project
and the assistant's ``session_id`` — never inside the project, whose memory
directory is committed. The first prompt wins (the file is linked into place,
which fails if it exists); ``session-end`` claims the file by renaming it, so
that two end events of one session (Codex and Cursor fire ``stop`` after
every turn) journal it once. Files older than a week are removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any

from mem_core.files.usercache import user_cache_dir

__all__ = ["record_prompt", "claim_session", "state_dir", "MAX_AGE_SECONDS"]

MAX_AGE_SECONDS = 7 * 86_400
#: a prompt kept longer than this is cut (the journal keeps 120 characters)
PROMPT_MAX = 4000


def state_dir() -> str:
    return os.path.join(user_cache_dir(), "sessions")


def _name(project: str, session_id: str) -> str:
    return hashlib.sha256(f"{project}\0{session_id}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def record_prompt(project: str, session_id: str, prompt: str) -> bool:
    """Keep ``prompt`` as the first prompt of the session, unless one is kept
    (or the session was journalled) already; true when it was kept."""
    directory = state_dir()
    name = _name(project, session_id)
    path = os.path.join(directory, name + ".json")
    if os.path.exists(path) or os.path.exists(os.path.join(directory, name + ".ended")):
        return False
    os.makedirs(directory, exist_ok=True)
    data = json.dumps(
        {"project": project, "session_id": session_id, "first_prompt": prompt[:PROMPT_MAX], "at": time.time()},
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    temporary = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)  # fails if another prompt of the session won
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(temporary)


def claim_session(project: str, session_id: str) -> dict[str, Any] | None:
    """The state of the session, taken by this call alone (the file is
    renamed to ``.ended``); ``None`` when no prompt was kept or another end
    event took it. Old state files are removed on the way."""
    directory = state_dir()
    name = _name(project, session_id)
    path = os.path.join(directory, name + ".json")
    ended = os.path.join(directory, name + ".ended")
    _prune(directory)
    try:
        os.rename(path, ended)
    except FileNotFoundError:
        return None
    try:
        with open(ended, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _prune(directory: str) -> None:
    limit = time.time() - MAX_AGE_SECONDS
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_mtime < limit:
                os.unlink(entry.path)
        except OSError:
            continue
