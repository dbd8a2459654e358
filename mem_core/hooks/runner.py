"""``mem hook <event> --assistant <name>``: read the assistant's hook JSON on
stdin, print what it expects (docs/brief.md).

Hooks **fail open**. Whatever goes wrong — an unknown event or assistant,
garbage on stdin, no project, a locked or broken store, an unreadable note,
a slow plugin — the hook exits 0 with nothing on stdout and appends one line
to the hooks log (:mod:`mem_core.files.hookslog`). A watchdog thread ends the
process (exit 0, nothing printed) once the ``hook_timeout`` setting (1 s by
default) has passed since the hook started, so a slow store cannot hold a
prompt; the output is written only after the work is done, in one piece,
and only if the watchdog has not fired.

The project is the one the hook JSON's ``cwd`` (Cursor: the first of
``workspace_roots``), else the working directory, belongs to — found as
every command finds it (:func:`mem_core.project.discover`); never a value
the model chooses. A directory with no ``.bmad/`` or ``.agents/`` above it
has no memory to give: the hook says nothing (and logs why).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from mem_core.errors import MemError
from mem_core.files.hookslog import log_line
from mem_core.hooks.formats import (
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    assistant_name,
    event_name,
    render,
    user_prompt,
)

if TYPE_CHECKING:
    from typing import Any, BinaryIO

__all__ = ["run_hook", "Watchdog", "STDIN_MAX", "DEFAULT_TIMEOUT"]

#: the most of stdin a hook reads (a prompt may be long; a transcript is not sent)
STDIN_MAX = 1024 * 1024
DEFAULT_TIMEOUT = 1.0
_TIMEOUT_ENV = "MEM_HOOK_TIMEOUT"


class Watchdog:
    """Calls ``on_timeout`` and ends the process with exit status 0 when
    :meth:`finish` has not been called ``seconds`` after :meth:`arm`."""

    def __init__(self, on_timeout: Callable[[float], None], *, exit: Callable[[int], Any] = os._exit) -> None:
        self._on_timeout = on_timeout
        self._exit = exit
        self._lock = threading.Lock()
        self._done = False
        self._timer: threading.Timer | None = None
        self._started = time.monotonic()
        self._seconds = 0.0

    def arm(self, seconds: float) -> None:
        """Fire ``seconds`` after the watchdog was made (re-arming moves the
        deadline; a deadline already past fires at once)."""
        with self._lock:
            if self._done:
                return
            if self._timer is not None:
                self._timer.cancel()
            self._seconds = seconds
            delay = max(0.0, seconds - (time.monotonic() - self._started))
            self._timer = threading.Timer(delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        try:
            self._on_timeout(self._seconds)
        finally:
            self._exit(0)

    def finish(self) -> bool:
        """Stop the watchdog; false when it has fired already (print nothing)."""
        with self._lock:
            if self._done:
                return False
            self._done = True
            if self._timer is not None:
                self._timer.cancel()
            return True


class _Hook:
    """One hook call: what it has learnt so far, for the log line."""

    def __init__(self, event: str, assistant: str) -> None:
        self.event = event
        self.assistant = assistant
        self.project: str | None = None

    @property
    def what(self) -> str:
        return f"hook {self.event} --assistant {self.assistant}"

    def log(self, message: str) -> None:
        project = self.project
        if project is None:  # not known yet (garbage on stdin …): the working directory's
            try:
                from mem_core.project import discover

                project = discover(os.getcwd())[0]
            except Exception:
                project = None
        log_line(project, self.what, message)


def _timeout_from_env(environ: Mapping[str, str]) -> float:
    raw = environ.get(_TIMEOUT_ENV, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 <= value < float("inf") else DEFAULT_TIMEOUT


def _read_input(stdin: BinaryIO) -> dict[str, Any]:
    data = stdin.read(STDIN_MAX + 1)
    if len(data) > STDIN_MAX:
        raise MemError(f"hook input larger than {STDIN_MAX // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError("hook input is not UTF-8") from None
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise MemError(f"hook input is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise MemError("hook input is not a JSON object")
    return value


def _string(data: Mapping[str, Any], *names: str) -> str | None:
    for name in names:
        value = data.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _start_directory(data: Mapping[str, Any]) -> str:
    cwd = _string(data, "cwd")
    if cwd is None:
        roots = data.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
            cwd = roots[0]
    if cwd is None:
        return os.getcwd()
    if not os.path.isabs(cwd):
        raise MemError(f"hook input cwd is not an absolute path: {cwd!r}")
    if not os.path.isdir(cwd):
        raise MemError(f"hook input cwd is not a directory: {cwd!r}")
    return cwd


def _work(hook: _Hook, data: dict[str, Any], watchdog: Watchdog) -> str:
    """The text for the assistant (``""``: nothing to say)."""
    from mem_core.project import discover

    start = _start_directory(data)
    root, _git = discover(start)
    if root is None:
        hook.project = None
        raise MemError(f"no project memory (.bmad/ or .agents/) at or above {start}")
    hook.project = root
    from mem_core.kernel import Kernel
    from mem_core.settings import load_settings

    settings = load_settings(root)
    watchdog.arm(settings.hook_timeout)
    kernel = Kernel(settings=settings)
    session = _string(data, "session_id", "sessionId", "conversation_id")
    if hook.event == SESSION_START:
        from mem_core.api.brief import brief

        result = brief(directory=root, kernel=kernel)
        if result.skipped:
            raise MemError("brief: skipped " + "; ".join(f"{s['path']}: {s['reason']}" for s in result.skipped))
        return "" if result.empty else result.text
    if hook.event == PROMPT_SUBMIT:
        prompt = user_prompt(hook.assistant, _string(data, "prompt", "user_prompt", "message") or "")
        if session is not None and prompt.strip() and settings.journal_sessions:
            from mem_core.hooks.session import record_prompt

            record_prompt(root, session, prompt)
        if hook.assistant == "cursor":
            return ""  # beforeSubmitPrompt cannot add context
        from mem_core.hooks.prompt import prompt_context

        context = prompt_context(prompt, project=root, budget=settings.prompt_budget, kernel=kernel)
        if context.skipped:
            raise MemError("recall: skipped " + "; ".join(f"{s['path']}: {s['reason']}" for s in context.skipped))
        return context.text
    assert hook.event == SESSION_END
    if session is None or not settings.journal_sessions:
        return ""
    from mem_core.hooks.session import claim_session

    state = claim_session(root, session)
    if state is None or not isinstance(state.get("first_prompt"), str):
        return ""
    from mem_core.api.write import write
    from mem_core.hooks.prompt import ECHO
    from mem_core.text import one_line

    task = one_line(state["first_prompt"])
    write(agent=hook.assistant, cli=hook.assistant, task=task, directory=root, kernel=kernel, via=ECHO)
    return ""


def run_hook(
    event: str,
    assistant: str | None,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    environ: Mapping[str, str] | None = None,
    exit: Callable[[int], Any] = os._exit,
) -> int:
    """Run one hook; always returns 0 (see the module's docstring). ``exit``
    ends the process when the watchdog fires (tests pass another)."""
    hook = _Hook(event, assistant or "-")
    watchdog = Watchdog(lambda seconds: hook.log(f"timed out after {seconds:g} s; printed nothing"), exit=exit)
    watchdog.arm(_timeout_from_env(os.environ if environ is None else environ))
    try:
        hook.event = event_name(event)
        hook.assistant = assistant_name(assistant)
        data = _read_input(stdin if stdin is not None else sys.stdin.buffer)
        text = _work(hook, data, watchdog)
        answer = render(hook.assistant, hook.event, text)
    except MemError as exc:
        if watchdog.finish():
            hook.log(exc.message)
        return 0
    except Exception as exc:  # fail open, whatever it was
        if watchdog.finish():
            hook.log(f"{type(exc).__name__}: {exc}")
        return 0
    if not watchdog.finish():
        return 0
    if answer:
        out = stdout if stdout is not None else sys.stdout.buffer
        try:
            out.write((answer + "\n").encode("utf-8", "replace"))
            out.flush()
        except (OSError, ValueError) as exc:
            hook.log(f"cannot write the answer: {exc}")
    return 0
