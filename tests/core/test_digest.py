"""mem_core.digest gives hashlib's digests."""

from __future__ import annotations

import hashlib

import pytest

from mem_core.digest import sha1_hex, sha256_hex


@pytest.mark.parametrize("data", [b"", b"abc", "é\0✓".encode(), bytes(range(256)) * 300])
def test_the_small_digests_are_hashlibs(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert sha1_hex(data) == hashlib.sha1(data).hexdigest()
