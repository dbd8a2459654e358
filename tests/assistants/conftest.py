"""Fixtures of the assistants' end-to-end tests: the fake model server and the installed programs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # fake_model, programs and echo_mcp import as top-level modules
    sys.path.insert(0, str(HERE))

from fake_model import FakeModel  # noqa: E402


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A started :class:`fake_model.FakeModel` on 127.0.0.1 (``fake_model.url``), stopped after the test."""
    with FakeModel() as fake:
        yield fake
