"""``mem_core.testing``: a pytest plugin for ``mem`` plugin authors.

Load it by name — it is not loaded into every pytest run::

    python -m pytest -p mem_core.testing

or with ``pytest_plugins = ["mem_core.testing"]`` in the top-level
``conftest.py`` (see ``docs/testing.md``). It provides:

* :class:`MemoryStoreContract` — the ``MemoryStore`` contract suite: subclass
  it in a test file of your backend's repository and set ``store_class``;
  the ``mem_store_class``, ``mem_store_directory``, ``mem_store_opener`` and
  ``mem_store`` fixtures configure and serve it;
* ``mem_project`` — a new, empty project directory (the user-level store
  moved into the test's temporary directory);
* ``mem_now`` — the clock pinned (``MEM_NOW``) to :data:`NOW`;
* ``bare_kernel``, ``default_kernel`` and ``make_kernel`` — kernels with no
  plugins, with the default plugins, or with the plugins you name, each on a
  fresh plugin manager;
* :func:`record` and :func:`insert` — helpers for a backend's own tests.

Importing it is cheap (pytest and ``mem_core.plugin``; the kernel is loaded
only by the kernel fixtures) and no fixture shares state between tests.
"""

from __future__ import annotations

import pytest

# the suite's asserts report their operands however the plugin was imported
pytest.register_assert_rewrite("mem_core.testing.fixtures", "mem_core.testing.store_contract")

from mem_core.testing.fixtures import NOW, bare_kernel, default_kernel, make_kernel, mem_now, mem_project  # noqa: E402
from mem_core.testing.store_contract import (  # noqa: E402
    LATER,
    MemoryStoreContract,
    StoreOpener,
    insert,
    mem_store,
    mem_store_class,
    mem_store_directory,
    mem_store_opener,
    record,
)

__all__ = [
    "MemoryStoreContract",
    "StoreOpener",
    "NOW",
    "LATER",
    "record",
    "insert",
    "mem_project",
    "mem_now",
    "make_kernel",
    "bare_kernel",
    "default_kernel",
    "mem_store_class",
    "mem_store_directory",
    "mem_store_opener",
    "mem_store",
]
