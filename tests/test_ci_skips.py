"""Under CI, a test that skips because a fixture file is missing fails
(tests/conftest.py); other skips stay skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, missing_fixture_skip

SAMPLE = """
import pytest

def test_missing():
    pytest.skip("tests/fixtures/bmad-plus-project is missing")

def test_elsewhere():
    pytest.skip("node is not installed")
"""


def test_reasons() -> None:
    assert missing_fixture_skip("the fixture project is not beside the tests")
    assert missing_fixture_skip("tests/fixtures (the reference fixtures) is missing")
    assert not missing_fixture_skip("the fixture's check binary (/usr/bin/dash) differs on this machine")
    assert not missing_fixture_skip("node is not installed")


def _run(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(REPO)
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", "-rfs",
         "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path / "test_sample.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True,
    )  # fmt: skip


def test_under_ci_a_missing_fixture_skip_fails(tmp_path: Path) -> None:
    local = _run(tmp_path, ci=False)
    assert local.returncode == 0 and "2 skipped" in local.stdout, local.stdout
    ci = _run(tmp_path, ci=True)
    assert ci.returncode == 1, ci.stdout
    assert "1 failed, 1 skipped" in ci.stdout and "skipped for a missing fixture" in ci.stdout
