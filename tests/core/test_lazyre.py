"""mem_core.lazyre: a pattern compiled on first use behaves as re.compile's."""

from __future__ import annotations

import re

from mem_core.lazyre import lazy


def test_a_lazy_pattern_compiles_once_on_first_use() -> None:
    pattern = lazy(r"(\d+)-(\d+)", re.ASCII)
    assert pattern._compiled is None  # type: ignore[attr-defined]
    assert pattern.fullmatch("12-34").groups() == ("12", "34")  # type: ignore[union-attr]
    compiled = pattern._compiled  # type: ignore[attr-defined]
    assert compiled is re.compile(r"(\d+)-(\d+)", re.ASCII)
    assert pattern.sub(r"\2-\1", "1-2 3-4") == "2-1 4-3"
    assert pattern.flags == compiled.flags and pattern._compiled is compiled  # type: ignore[attr-defined]
