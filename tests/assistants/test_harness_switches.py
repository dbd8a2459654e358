"""The harness's switches (``MEM_ASSISTANTS_E2E`` …) reach the tests, though ``tests/conftest.py``
removes every ``MEM_*`` variable before each test: without them every real-program test skips."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_the_switches_the_run_started_with_reach_each_test() -> None:
    environ = Path("/proc/self/environ")
    if not environ.is_file():
        pytest.skip("no /proc/self/environ (the environment this process started with)")
    started = dict(
        item.split("=", 1) for item in environ.read_bytes().decode(errors="replace").split("\0") if "=" in item
    )
    switches = {name: value for name, value in started.items() if name.startswith("MEM_ASSISTANTS_")}
    assert {name: os.environ.get(name) for name in switches} == switches
