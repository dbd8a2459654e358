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
# the shared checks of the test modules report their failures as pytest does
pytest.register_assert_rewrite("programs", "memproject")

from fake_model import FakeModel  # noqa: E402

#: the harness's switches (MEM_ASSISTANTS_E2E, _LATEST, _CACHE) as the run started: tests/conftest.py
#: removes every MEM_* variable before each test
_SWITCHES = {name: value for name, value in os.environ.items() if name.startswith("MEM_ASSISTANTS_")}


@pytest.fixture(autouse=True)
def _assistants_switches(_clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the harness's switches back after ``_clean_env`` (else every real-program test skips)."""
    for name, value in _SWITCHES.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A started :class:`fake_model.FakeModel` on 127.0.0.1 (``fake_model.url``), stopped after the test."""
    with FakeModel() as fake:
        yield fake


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-programs",
        action="store_true",
        help="a test that skips although the assistants' programs are installed fails instead (tox -e assistants)",
    )


def _installed() -> bool:
    import programs

    try:
        programs.manifest()
    except programs.Unavailable:
        return False
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """With ``--require-programs``, a skip is a failure whenever the programs
    were installed: only a registry that could not be reached may skip them."""
    report = yield
    if report.skipped and item.config.getoption("--require-programs") and _installed():  # type: ignore[attr-defined]
        report.outcome = "failed"  # type: ignore[attr-defined]
        report.longrepr = f"skipped although the assistants' programs are installed: {report.longrepr}"  # type: ignore[attr-defined]
    return report
