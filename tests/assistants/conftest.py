"""Fixtures of the assistants' end-to-end tests: the fake model server and the installed programs."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # fake_model, programs and echo_mcp import as top-level modules
    sys.path.insert(0, str(HERE))

from fake_model import FakeModel  # noqa: E402

#: the switches of these tests (MEM_ASSISTANTS_E2E, _LATEST, _CACHE), as the run was started with
SWITCHES = {name: value for name, value in os.environ.items() if name.startswith("MEM_ASSISTANTS_")}


@pytest.fixture(autouse=True)
def _clean_env(_clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The root conftest's clean environment (no ``MEM_*`` of the caller), but with this folder's
    own switches back: without them every test here would skip, and ``MEM_ASSISTANTS_LATEST=1``
    would read the pinned manifest."""
    for name, value in SWITCHES.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A started :class:`fake_model.FakeModel` on 127.0.0.1 (``fake_model.url``), stopped after the test."""
    with FakeModel() as fake:
        yield fake
