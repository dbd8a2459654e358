"""docs/api.md's examples run as written: each ``python`` block after the
first (the imports) runs, in order and in one namespace, in a copy of the
README's example project with the clock pinned, and prints exactly the
``text`` block after it."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

DOC = REPO / "docs" / "api.md"
NOW = "2026-11-28T09:30:00.000Z"


def examples() -> list[tuple[str, str | None]]:
    """``(code, expected output or None)`` of every python block, in order."""
    blocks = re.findall(r"```(python|text)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found: list[tuple[str, str | None]] = []
    for kind, body in blocks:
        if kind == "python":
            found.append((body, None))
        else:
            assert found and found[-1][1] is None, "a text block follows a python block"
            found[-1] = (found[-1][0], body)
    return found


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "examples/demo"], cwd=REPO, capture_output=True, check=False
    ).stdout.split(b"\0")
    names = [os.fsdecode(n) for n in listed if n] or [
        str(p.relative_to(REPO)) for p in (REPO / "examples/demo").rglob("*") if p.is_file()
    ]
    for name in names:
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target)
    project = tmp_path / "examples/demo"
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEM_NOW", NOW)
    return project


def test_the_examples_print_what_the_page_shows(demo: Path) -> None:
    namespace: dict[str, object] = {"__name__": "api_md"}
    ran = 0
    for code, expected in examples():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(DOC), "exec"), namespace)  # the page's own code
        if expected is not None:
            assert out.getvalue() == expected, code
            ran += 1
    assert ran >= 6
