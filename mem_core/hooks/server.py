"""The listener of :mod:`mem_core.hooks.service`'s protocol: ``mem mcp``
loads the embedding model once and answers the prompt hook's requests with
:func:`~mem_core.hooks.prompt.prompt_context` ranked ``hybrid``."""

from __future__ import annotations

import json
import os
import socket
import threading
from typing import TYPE_CHECKING

from mem_core.hooks.service import listening, read_line, socket_path

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

#: the server listens only when its warm ranking of a prompt takes at most
#: this (the best of :data:`TRIALS`): the hook has 150 ms for its whole
#: process, about 50 of which Python's start and mem's imports take, and a
#: served answer is slower than the trial while the machine is busy; a
#: slower one costs the hook more than ranking bm25 itself (docs/recall.md:
#: 0.24-0.73 s on the 2 MB corpus of benchmarks/run.py; on npm's docs a
#: server that passed a 100 ms trial made the hook 270 ms against 177)
SERVE_WITHIN = 0.05
TRIALS = 3
#: the trial also ranks this many prompts in the project's own words, the
#: first TRIAL_WORDS words of the texts that best match a general question
TRIAL_OWN = 2
TRIAL_WORDS = 12


def serve_hybrid(project: str, kernel: Kernel) -> Service | None:
    """Start serving ``project``'s prompt hook when its ranking is
    ``hybrid`` and the embeddings extra is installed (it listens once
    the model is loaded, and only when it ranks fast enough:
    :data:`SERVE_WITHIN`)."""
    from mem_core.embeddings import missing
    from mem_core.kernel import resolve

    if resolve(project, kernel)[1].get("recall_ranking") != "hybrid" or missing():
        return None
    service = Service(project, kernel)
    service.start()
    return service


class Service:
    """The listener of one project in this process (``mem mcp``)."""

    def __init__(self, project: str, kernel: Kernel) -> None:
        from mem_core.kernel import resolve

        self.project = project
        self.kernel = kernel
        #: the project's root: what the hook asks for
        self.root = resolve(project, kernel)[1].project
        self.path = socket_path(self.root)
        self._socket: socket.socket | None = None
        self._inode: int | None = None
        #: the best warm ranking time measured before listening
        self.seconds: float | None = None

    def start(self) -> None:
        """Load the model, then listen, in a daemon thread: the socket only
        appears once an answer can be quick."""
        threading.Thread(target=self._run, name="mem-hybrid-service", daemon=True).start()

    def _run(self) -> None:
        try:
            from mem_core.embeddings import foreground
            from mem_core.hooks.prompt import prompt_context

            # the model loaded and every text's vector made before the first
            # prompt, here: a cold index would make the ranking fall back to
            # bm25, whose scores the hybrid floor does not fit. In this thread
            # only: the agent's own recalls meanwhile still leave a large
            # build to the background rather than wait for it
            with foreground():
                prompt_context("warm up", project=self.project, budget=1, kernel=self.kernel, ranking="hybrid")
            # each prompt's best of TRIALS; the slowest prompt decides
            self.seconds = max(min(self._trial(prompt) for _ in range(TRIALS)) for prompt in self._trial_prompts())
            if self.seconds > SERVE_WITHIN:
                import logging

                logging.getLogger(__name__).debug("hybrid ranks in %.3f s: too slow to serve the hook", self.seconds)
                return
            self._listen()
        except Exception:  # the hooks rank bm25 without it
            import logging

            logging.getLogger(__name__).debug("the hybrid service did not start", exc_info=True)
            return
        assert self._socket is not None
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    self._answer(conn)
                except Exception:  # one bad request never stops the others
                    import logging

                    logging.getLogger(__name__).debug("a hybrid request failed", exc_info=True)

    def _trial_prompts(self) -> list[str]:
        """The prompts the trial ranks: a general question, and questions
        in the project's own words (the start of its best-matching texts).
        How long a ranking takes depends on the prompt: on the 2 MB corpus
        of benchmarks/run.py the general question ranked within 50 ms and
        a question in the journal's own words took about 110 ms."""
        from mem_core.api.recall import recall

        general = "which conventions does this project follow for its tests and releases?"
        found = recall(
            general, directory=self.project, limit=TRIAL_OWN, ranking="hybrid", kernel=self.kernel, index=True
        )
        own = [" ".join(hit.candidate.scored_text.split()[:TRIAL_WORDS]) for hit in found.results]
        return [general, *(prompt for prompt in own if prompt)]

    def _trial(self, prompt: str) -> float:
        """The time of one warm ranking of ``prompt``, in seconds."""
        import time

        from mem_core.hooks.prompt import prompt_context

        started = time.perf_counter()
        prompt_context(prompt, project=self.project, budget=600, kernel=self.kernel, ranking="hybrid")
        return time.perf_counter() - started

    def _listen(self) -> None:
        socket_path(self.root, create=True)  # its directory made, safely
        if os.path.exists(self.path):
            if listening(self.path):
                raise OSError("another process serves this project")
            os.unlink(self.path)  # stale: its server is gone
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        umask = os.umask(0o177)  # created 0600: no window where others could connect
        try:
            server.bind(self.path)
        finally:
            os.umask(umask)
        server.listen(16)
        self._socket = server
        self._inode = os.stat(self.path).st_ino
        import atexit

        atexit.register(self.close)

    def _answer(self, conn: socket.socket) -> None:
        from mem_core.hooks.prompt import prompt_context

        conn.settimeout(5.0)
        line = read_line(conn)
        request = json.loads(line) if line else None
        if not isinstance(request, dict) or not isinstance(request.get("prompt"), str):
            return
        budget = request.get("budget")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
            return
        context = prompt_context(
            request["prompt"], project=self.project, budget=budget, kernel=self.kernel, ranking="hybrid"
        )
        if context.skipped:
            return  # the hook reports what it skips itself, ranking bm25
        conn.sendall(json.dumps(context.to_json()).encode("utf-8") + b"\n")

    def close(self) -> None:
        """Stop listening; the socket file goes when it is still this one's."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None
            try:
                if os.stat(self.path).st_ino == self._inode:
                    os.unlink(self.path)
            except OSError:
                pass
