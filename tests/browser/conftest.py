"""Chromium from Debian's packages (``chromium``, ``chromium-driver``), headless,
driven by Selenium — nothing is downloaded: the driver and the browser are
the ones given by path. ``tox -e browser`` runs these; ``.ci/run`` installs
the two packages first."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.kit import Team
from tests.server.review_kit import Seeded, seed

CHROMIUM = os.environ.get("MEM_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("MEM_TEST_CHROMEDRIVER", "/usr/bin/chromedriver")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (``MEM_TEST_ARTIFACTS``, else ``build/browser``)."""
    path = Path(os.environ.get("MEM_TEST_ARTIFACTS", REPO / "build" / "browser"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def seeded(tmp_path: Path, now: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Seeded]:
    team = Team(tmp_path, "sqlite", None)
    monkeypatch.setenv("MEM_USER_CONFIG", team.env["MEM_USER_CONFIG"])
    try:
        yield seed(team)
    finally:
        team.close()


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    pytest.importorskip("selenium")
    from selenium import webdriver

    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} and {CHROMEDRIVER} are needed (apt-get install chromium chromium-driver)")
        pytest.skip(f"{CHROMIUM} and {CHROMEDRIVER} are not installed (apt-get install chromium chromium-driver)")
    profile = tmp_path / "chromium-profile"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
                 "--window-size=1280,1400", "--force-device-scale-factor=1"):  # fmt: skip
        options.add_argument(flag)
    browser = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
