"""The sdist and the wheel ``python -m build`` makes hold what they should
and nothing a working tree collects: no virtual environment (a ``.venv``
file, as recent tox writes, or directory), no ``__pycache__``, no memory
state left by a test run, no tox or build directories."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from tests.conftest import REPO

#: what a working tree collects and no distribution may hold
STRAYS = {
    ".venv": "a file, as tox 4.2x writes it\n",
    "venv-dir/.venv/bin/python": "",
    ".tox/py/log.txt": "",
    "mem_core/__pycache__/settings.cpython-311.pyc": "",
    "tests/cli/__pycache__/test_x.cpython-311.pyc": "",
    ".bmad/memory/journal.ndjson": "{}\n",
    ".bmad/memory/writer.lock": "",
    ".agents/memory/lessons.md": "### stray\n",
    ".bmad-plus/nexus/runs/x.json": "{}",
    "examples/demo/.bmad/memory/pattern-scores.json": "{}",
    "examples/demo/.bmad-plus/nexus/runs/demo.json": "{}",
    ".pytest_cache/v/x": "",
    ".hypothesis/examples/x": "",
    "dist/old.tar.gz": "",
    "benchmarks/.work/corpus.md": "",
}


def _stray(name: str) -> bool:
    parts = name.split("/")
    top = parts[1:] if parts and parts[0].startswith("mem_agent_memory-") else parts  # the sdist's root folder
    if any(
        part in ("__pycache__", ".tox", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache") for part in top
    ):
        return True
    if any(part == ".venv" or part.endswith(".pyc") for part in top):
        return True
    joined = "/".join(top)
    return joined.startswith((".bmad/", ".agents/", ".bmad-plus/", "dist/", "benchmarks/.work/")) or joined in {
        "examples/demo/.bmad/memory/pattern-scores.json",
        "examples/demo/.bmad-plus/nexus/runs/demo.json",
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    """(sdist member names, wheel member names) built from a copy of the
    tracked files with every stray planted beside them."""
    for module in ("build", "hatchling"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (tox's test env installs it)")
    root = tmp_path_factory.mktemp("pkg") / "src"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False).stdout.split(b"\0")
    files = [os.fsdecode(f) for f in listed if f]
    if not files:
        pytest.skip("not a git checkout: the tracked files are unknown")
    for name in files:
        if not (REPO / name).is_file():  # deleted in the working tree
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    for name, text in STRAYS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    out = root.parent / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation", "--outdir", str(out), str(root)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    with tarfile.open(sdist) as tar:
        sdist_names = tar.getnames()
    with zipfile.ZipFile(wheel) as whl:
        wheel_names = whl.namelist()
    return sdist_names, wheel_names


def test_the_sdist_holds_the_project_and_no_stray_file(built) -> None:
    names, _ = built
    assert [n for n in names if _stray(n)] == []
    inner = {n.split("/", 1)[1] for n in names if "/" in n}
    for needed in (
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "pyproject.toml",
        "mem_cli/main.py",
        "tests/conftest.py",
        "tests/fixtures/bmad-plus-project/.bmad/memory/journal.ndjson",
        "examples/demo/.bmad/memory/journal.ndjson",
        "examples/demo/bind-nexus-run.py",
    ):
        assert needed in inner, needed


def test_the_wheel_holds_the_four_packages_and_the_license(built) -> None:
    _, names = built
    assert [n for n in names if _stray(n)] == []
    tops = {n.split("/", 1)[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"mem_core", "mem_plugins", "mem_cli", "mem_server"}
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "mem_core/py.typed" in names  # the plugin API is typed for its users' type checkers
    # the hybrid ranking's tokenizer ships with mem (its weights come with the embeddings extra)
    assert {"mem_core/embeddings/tokenizer.json", "mem_core/embeddings/NOTICE"} <= set(names)
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert metadata


def test_gitignore_covers_a_venv_file() -> None:
    text = (REPO / ".gitignore").read_text().splitlines()
    assert ".venv" in text  # no slash: the file tox writes and the directory
