"""SHA-1 and SHA-256 of small inputs (ids, cache keys) without loading
OpenSSL: :mod:`hashlib` initialises OpenSSL's digests when imported (3-8 ms
of a process that only needs one short hash), while CPython's own SHA
modules load in a fraction of that. The digests are the same; for large
data, where OpenSSL is faster, use :mod:`hashlib`.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: importing typing costs every command's start-up (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["sha1_hex", "sha256_hex"]


def _constructor(modules: tuple[str, ...], name: str) -> Callable[[bytes], Any]:
    from mem_core.importing import import_module

    for module in modules:
        try:
            return getattr(import_module(module), name)  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    import hashlib  # pragma: no cover - a Python built without its own SHA modules

    return getattr(hashlib, name)  # type: ignore[no-any-return]


_made: dict[str, Callable[[bytes], Any]] = {}


def sha256_hex(data: bytes) -> str:
    """``hashlib.sha256(data).hexdigest()``."""
    make = _made.get("sha256") or _made.setdefault("sha256", _constructor(("_sha2", "_sha256"), "sha256"))
    return make(data).hexdigest()  # type: ignore[no-any-return]


def sha1_hex(data: bytes) -> str:
    """``hashlib.sha1(data).hexdigest()``."""
    make = _made.get("sha1") or _made.setdefault("sha1", _constructor(("_sha1",), "sha1"))
    return make(data).hexdigest()  # type: ignore[no-any-return]
