"""The tests bound to ``/srv/example-project`` (marked ``srv``: the fixture
project where its Nexus runs and receipts were made) run here, in one pytest
process inside a private user and mount namespace whose ``/srv`` is a fresh
temporary file system: they see the original place, and nothing they write
reaches the machine's ``/srv`` (``tests/conftest.py`` leaves them out of the
main session)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, SRV_ITEMS, SRV_NAMESPACE, UNSHARE

_SETUP = 'mount -t tmpfs -o mode=755 mem-test-srv /srv && exec "$@"'


def _namespace_works() -> str | None:
    """None, or why a private /srv cannot be had here."""
    try:
        probe = subprocess.run([*UNSHARE, "sh", "-c", _SETUP, "sh", "true"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare cannot run: {exc}"
    if probe.returncode != 0:
        return f"no private mount namespace here ({' '.join(UNSHARE)}: {probe.stderr.strip()[-200:]})"
    return None


def test_the_srv_tests_pass_in_a_private_namespace(request: pytest.FixtureRequest) -> None:
    nodeids = getattr(request.config, SRV_ITEMS, [])
    if not nodeids:
        pytest.skip("no test bound to /srv/example-project was collected in this session")
    why = _namespace_works()
    if why is not None:
        pytest.skip(f"{len(nodeids)} tests bound to /srv/example-project not run: {why}")
    before = sorted(os.listdir("/srv")) if os.path.isdir("/srv") else None
    env = {**os.environ, SRV_NAMESPACE: "1"}
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "srv", "-rfEs", *nodeids]
    proc = subprocess.run(
        [*UNSHARE, "sh", "-c", _SETUP, "sh", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1800,
    )
    tail = proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    last = proc.stdout.strip().splitlines()[-1]
    assert f"{len(nodeids)} passed" in last or "skipped" in last, tail
    assert (sorted(os.listdir("/srv")) if os.path.isdir("/srv") else None) == before, "nothing reached /srv"
