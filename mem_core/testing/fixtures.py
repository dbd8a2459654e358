"""The general fixtures of the ``mem_core.testing`` pytest plugin: a temporary
project, a pinned clock and kernels on fresh plugin managers.

Every fixture is function-scoped and builds what it returns anew, so no test
sees another test's project, environment or plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the kernel is imported only when a kernel fixture runs
    from mem_core.kernel import Kernel

__all__ = ["NOW", "mem_project", "mem_now", "make_kernel", "bare_kernel", "default_kernel"]

#: the instant :func:`mem_now` pins (and the contract suite's "now")
NOW = "2026-11-05T12:00:00.000Z"
#: the variables that would let the shell running the tests choose plugins
_PLUGIN_VARIABLES = ("MEM_PLUGINS", "MEM_DISABLE_PLUGINS", "MEM_STRICT_PLUGINS")


@pytest.fixture
def mem_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new, empty project directory (``<tmp_path>/project``); ``mem``
    creates its ``.bmad/memory/`` on the first write.

    The user-level store (``MEM_USER_DIR``) is pointed at
    ``<tmp_path>/user-store`` for the test, so nothing the test does reaches the
    memory of the person running it.
    """
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user-store"))
    return project


@pytest.fixture
def mem_now(monkeypatch: pytest.MonkeyPatch) -> str:
    """Pin ``mem``'s clock: sets ``MEM_NOW`` to :data:`NOW`
    (``2026-11-05T12:00:00.000Z``) for the test and returns it. Request it
    before a kernel fixture, so the kernel starts with the clock pinned; for
    another instant, ``monkeypatch.setenv("MEM_NOW", ...)`` in the test."""
    monkeypatch.setenv("MEM_NOW", NOW)
    return NOW


@pytest.fixture
def make_kernel(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Kernel]:
    """A factory of kernels: ``make_kernel(*plugins, defaults=False)``.

    Each call builds a new plugin manager: the default plugins when
    ``defaults`` is true, then each of ``plugins`` (a module or an object with
    ``@hookimpl`` methods) registered in the order given. Installed
    ``mem.plugins`` entry points are never loaded, nor the plugins named (or
    blocked) by ``MEM_PLUGINS``/``MEM_DISABLE_PLUGINS`` in the environment of
    the test run, so a test sees exactly the plugins it asked for::

        def test_my_ranker(make_kernel):
            kernel = make_kernel(my_plugin, defaults=True)
            assert "mine" in kernel.rankers
    """

    def make(*plugins: object, defaults: bool = False) -> Kernel:
        from mem_core import Kernel, make_plugin_manager

        with monkeypatch.context() as env:
            for name in _PLUGIN_VARIABLES:
                env.delenv(name, raising=False)
            pm = make_plugin_manager(defaults=defaults, entry_points=False)
            for plugin in plugins:
                pm.register(plugin, name=getattr(plugin, "__name__", None) or type(plugin).__name__)
            return Kernel(pm)

    return make


@pytest.fixture
def bare_kernel(make_kernel: Callable[..., Kernel]) -> Kernel:
    """A kernel with no plugins at all, on a fresh plugin manager (for a
    kernel with only your plugin, ``make_kernel(your_plugin)``)."""
    return make_kernel()


@pytest.fixture
def default_kernel(make_kernel: Callable[..., Kernel]) -> Kernel:
    """A kernel with ``mem``'s default plugins only (no installed plugins), on
    a fresh plugin manager."""
    return make_kernel(defaults=True)
