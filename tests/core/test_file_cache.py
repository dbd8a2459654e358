"""The kernel's file cache: what it serves is never stale, unsafe files are
refused on every call, memory stays bounded, threads are safe."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from mem_core.errors import MemError
from mem_core.files import GREW, NOT_REGULAR, NOT_UTF8
from mem_core.files import cache as cache_module
from mem_core.files.cache import FileCache
from tests.conftest import readers_beside_a_writer

REL = "notes/a.txt"


def build(text: str) -> tuple[str, int]:
    """A builder: the text and a serial number, so that a rebuild shows."""
    build.calls += 1  # type: ignore[attr-defined]
    return text, build.calls  # type: ignore[attr-defined]


build.calls = 0  # type: ignore[attr-defined]


def settled() -> FileCache:
    """A cache that trusts identities at once (no racy window): only the
    file's identity can tell it that the file changed."""
    return FileCache(racy_seconds=0, fine_racy_seconds=0)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tick() -> None:
    """Let the file system's coarse clock move on (a Linux tick is ≤ 10 ms)."""
    time.sleep(0.03)


def test_an_unchanged_file_is_built_once(tmp_path: Path) -> None:
    _write(tmp_path / REL, "one")
    cache = settled()
    first = cache.load(str(tmp_path), REL, build)
    assert cache.load(str(tmp_path), REL, build) is first
    assert (cache.hits, cache.builds) == (1, 1)
    assert first[0] == "one"


def test_a_rewrite_of_the_same_size_and_mtime_is_seen(tmp_path: Path) -> None:
    path = tmp_path / REL
    _write(path, "alpha")
    cache = settled()
    assert cache.load(str(tmp_path), REL, build)[0] == "alpha"
    before = os.stat(path)
    _tick()
    _write(path, "omega")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime, faked
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert after.st_ctime_ns != before.st_ctime_ns  # only ctime tells
    assert cache.load(str(tmp_path), REL, build)[0] == "omega"


def test_a_replaced_file_is_seen(tmp_path: Path) -> None:
    path = tmp_path / REL
    _write(path, "alpha")
    cache = settled()
    assert cache.load(str(tmp_path), REL, build)[0] == "alpha"
    before = os.stat(path)
    _tick()
    other = tmp_path / "notes" / "new.txt"
    _write(other, "omega")
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)  # a new inode, same size and mtime
    assert cache.load(str(tmp_path), REL, build)[0] == "omega"


def test_a_racy_entry_is_checked_against_the_file_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed within one clock tick keeps its identity: an entry read
    within the racy window is re-read and compared until it settles."""
    stamp = time.time_ns()
    monkeypatch.setattr(cache_module, "identity", lambda st: (1, 2, 3, stamp, stamp))  # timestamps that never move
    path = tmp_path / REL
    _write(path, "alpha")
    cache = FileCache(racy_seconds=3600, fine_racy_seconds=3600)
    first = cache.load(str(tmp_path), REL, build)
    assert cache.load(str(tmp_path), REL, build) is first  # same bytes: reused
    assert (cache.verified, cache.builds, cache.hits) == (1, 1, 0)
    _write(path, "omega")
    assert cache.load(str(tmp_path), REL, build)[0] == "omega"
    # the same file under a cache that trusts identities at once would be stale:
    trusting = settled()
    _write(path, "alpha")
    trusting.load(str(tmp_path), REL, build)
    _write(path, "omega")
    assert trusting.load(str(tmp_path), REL, build)[0] == "alpha"  # what the racy window prevents


def test_a_just_written_file_settles_after_the_window(tmp_path: Path) -> None:
    _write(tmp_path / REL, "alpha")
    now = [time.time_ns()]
    cache = FileCache(racy_seconds=2, fine_racy_seconds=2, clock=lambda: now[0])
    cache.load(str(tmp_path), REL, build)
    cache.load(str(tmp_path), REL, build)
    assert (cache.verified, cache.hits) == (1, 0)
    now[0] += 3_000_000_000
    cache.load(str(tmp_path), REL, build)  # re-read once more, and settled
    cache.load(str(tmp_path), REL, build)
    assert (cache.verified, cache.hits, cache.builds) == (2, 1, 1)


def test_a_missing_file_is_none(tmp_path: Path) -> None:
    cache = settled()
    assert cache.load(str(tmp_path), REL, build) is None
    _write(tmp_path / REL, "now here")
    assert cache.load(str(tmp_path), REL, build)[0] == "now here"
    (tmp_path / REL).unlink()
    assert cache.load(str(tmp_path), REL, build) is None


def test_a_symlink_put_on_the_way_is_refused_though_the_file_is_the_same(tmp_path: Path) -> None:
    _write(tmp_path / "real" / "a.txt", "alpha")
    (tmp_path / "notes").symlink_to(tmp_path / "real")
    cache = settled()
    with pytest.raises(MemError, match="symbolic link"):
        cache.load(str(tmp_path), REL, build)
    (tmp_path / "notes").unlink()
    (tmp_path / "real").rename(tmp_path / "notes")
    assert cache.load(str(tmp_path), REL, build)[0] == "alpha"
    (tmp_path / "notes").rename(tmp_path / "real")
    (tmp_path / "notes").symlink_to(tmp_path / "real")  # the same inode, now behind a link
    with pytest.raises(MemError, match="symbolic link"):
        cache.load(str(tmp_path), REL, build)


def test_unsafe_files_raise_what_read_text_raises(tmp_path: Path) -> None:
    from mem_core.files import read_text

    cache = settled()
    path = tmp_path / REL
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe")
    for _ in range(2):  # and again: an error is never cached
        with pytest.raises(MemError) as err:
            cache.load(str(tmp_path), REL, build)
        assert err.value.message == NOT_UTF8
    path.write_bytes(b"x" * (2 * 1024 * 1024 + 1))
    with pytest.raises(MemError) as err:
        cache.load(str(tmp_path), REL, build)
    assert err.value.message == NOT_REGULAR
    path.unlink()
    path.mkdir()
    with pytest.raises(MemError) as err:
        cache.load(str(tmp_path), REL, build)
    assert err.value.message == NOT_REGULAR
    with pytest.raises(MemError) as again:
        read_text(str(tmp_path), REL)
    assert again.value.message == err.value.message
    assert GREW  # the message for a file that grows while read is read_text's too


def test_memory_stays_bounded(tmp_path: Path) -> None:
    cache = FileCache(max_bytes=10_000, racy_seconds=0, fine_racy_seconds=0)
    for i in range(50):
        _write(tmp_path / f"n/{i}.txt", "x" * 1000)
        cache.load(str(tmp_path), f"n/{i}.txt", build)
        assert cache.size <= 10_000
    assert len(cache) == 10
    builds = cache.builds
    cache.load(str(tmp_path), "n/49.txt", build)  # the newest are kept
    assert cache.builds == builds
    cache.load(str(tmp_path), "n/0.txt", build)  # the oldest were dropped
    assert cache.builds == builds + 1
    _write(tmp_path / "big.txt", "x" * 20_000)
    value = cache.load(str(tmp_path), "big.txt", build)
    assert value is not None and len(value[0]) == 20_000  # built, not kept
    assert cache.size <= 10_000


def test_racy_entries_count_their_bytes_twice(tmp_path: Path) -> None:
    cache = FileCache(max_bytes=10_000, racy_seconds=3600, fine_racy_seconds=3600)
    _write(tmp_path / REL, "x" * 1000)
    cache.load(str(tmp_path), REL, build)
    assert cache.size == 2000


def test_the_builder_and_its_arguments_are_part_of_the_key(tmp_path: Path) -> None:
    _write(tmp_path / REL, "alpha")
    cache = settled()

    def upper(text: str, suffix: str) -> str:
        return text.upper() + suffix

    assert cache.load(str(tmp_path), REL, upper, "!") == "ALPHA!"
    assert cache.load(str(tmp_path), REL, upper, "?") == "ALPHA?"
    assert cache.load(str(tmp_path), REL, build)[0] == "alpha"
    assert len(cache) == 3


def test_threads_never_see_a_torn_or_stale_value(tmp_path: Path) -> None:
    """8 threads load while one rewrites the file (atomically, a version
    number in it): every value is a whole version, versions never go back
    in one thread, and once the writer stops everyone sees the last one."""
    path = tmp_path / REL
    _write(path, "v0 " + "x" * 5000)
    cache = FileCache()  # the real windows
    stop = threading.Event()
    errors: list[str] = []
    last = [0]

    def writer() -> None:
        for version in range(1, 200):
            tmp = path.with_name("tmp")
            tmp.write_text(f"v{version} " + "x" * 5000, encoding="utf-8")
            os.replace(tmp, path)
            last[0] = version
        stop.set()

    def reader() -> None:
        seen = 0
        while True:
            done = stop.is_set()
            text = cache.load(str(tmp_path), REL, _parse_version)
            if text is None or text[1] != 5000:
                errors.append(f"torn: {text!r}"[:80])
                return
            if text[0] < seen:
                errors.append(f"went back from v{seen} to v{text[0]}")
                return
            seen = text[0]
            if done:
                if seen != last[0]:
                    errors.append(f"stale: v{seen}, the file holds v{last[0]}")
                return

    readers_beside_a_writer(reader, writer)
    assert errors == []
    assert cache.load(str(tmp_path), REL, _parse_version) == (199, 5000)


def _parse_version(text: str) -> tuple[int, int]:
    head, _, body = text.partition(" ")
    return int(head[1:]), len(body)
