"""``mem_core.importing.import_module``: ``importlib.import_module`` for an
absolute name, without importing importlib."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from mem_core.importing import import_module


def test_it_gives_the_module_and_imports_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "imp_once_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "leaf.py").write_text("import sys\nsys.imp_once_count = getattr(sys, 'imp_once_count', 0) + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = import_module("imp_once_pkg.leaf")
    assert first is import_module("imp_once_pkg.leaf") is sys.modules["imp_once_pkg.leaf"]
    assert sys.imp_once_count == 1  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        import_module("imp_once_pkg.missing")


def test_a_module_another_thread_is_importing_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module already in ``sys.modules`` but still running its code in
    another thread has not all its names yet: they are there once it is
    given (the MCP server's threads import the API lazily, at once)."""
    started = threading.Event()
    release = threading.Event()
    (tmp_path / "imp_slow_mod.py").write_text(
        "import sys\nsys.imp_slow_hooks[0].set()\nsys.imp_slow_hooks[1].wait(10)\nNAME = 'here'\n"
    )
    monkeypatch.setattr(sys, "imp_slow_hooks", (started, release), raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    importer = threading.Thread(target=import_module, args=("imp_slow_mod",))
    importer.start()
    try:
        assert started.wait(10)
        assert "imp_slow_mod" in sys.modules and not hasattr(sys.modules["imp_slow_mod"], "NAME")
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(import_module("imp_slow_mod").NAME))
        reader.start()
        reader.join(0.2)
        assert reader.is_alive() and got == []  # waiting, not reading a half-made module
        release.set()
        reader.join(10)
        assert got == ["here"]
    finally:
        release.set()
        importer.join(10)
        sys.modules.pop("imp_slow_mod", None)
