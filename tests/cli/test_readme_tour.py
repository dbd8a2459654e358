"""The tour (docs/tour.md) runs as written: every command of its console blocks,
in order, on a copy of ``examples/demo`` laid out as in a clone, prints what
the page prints (``<memory id>`` and ``<nexus receipt id>`` stand for the
two ids that cannot be the same in every clone: a random one and one that
hashes the clone's path and ``/bin/sh``; each must be the same wherever the
page repeats it). The README's install commands work from a clone. Nothing is
written outside ``examples/demo``."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
TOUR = REPO / "docs" / "tour.md"
#: the placeholders the tour uses for ids that differ from clone to clone
PLACEHOLDERS = {"<memory id>": "mem_[0-9a-f]{16}", "<nexus receipt id>": "[0-9a-f]{64}"}


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def tour() -> list[tuple[str, str]]:
    """``(command, expected output)`` of every ``$ `` line of the tour's console blocks."""
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", TOUR.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                steps.append((line[2:].rstrip("\n"), ""))
            else:
                assert steps, "a console block starts with a command"
                steps[-1] = (steps[-1][0], steps[-1][1] + line)
    return steps


def _pattern(expected: str, seen: dict[str, str]) -> re.Pattern[str]:
    parts = re.split("(" + "|".join(re.escape(p) for p in PLACEHOLDERS) + ")", expected)
    regex = ""
    for part in parts:
        if part in PLACEHOLDERS:
            name = re.sub(r"\W", "_", part.strip("<>"))
            regex += re.escape(seen[name]) if name in seen else f"(?P<{name}>{PLACEHOLDERS[part]})"
        else:
            regex += re.escape(part)
    return re.compile(regex)


def _tree(root: Path, skip: Path) -> dict[str, float]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == skip.parent:
            dirnames[:] = [d for d in dirnames if Path(dirpath, d) != skip]
        for name in filenames + dirnames:
            path = Path(dirpath, name)
            found[str(path.relative_to(root))] = path.lstat().st_mtime
    return found


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository root holding a copy of examples/demo (as tracked, without
    what a previous tour left), and a README; ``mem`` and ``python3`` on PATH
    are this tree's."""
    root = tmp_path / "clone"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "examples/demo"], cwd=REPO, capture_output=True, check=False
    ).stdout.split(b"\0")
    files = [os.fsdecode(f) for f in listed if f]
    if not files:  # not a git checkout (an sdist): every file there
        files = [str(p.relative_to(REPO)) for p in (REPO / "examples/demo").rglob("*") if p.is_file()]
    for name in files:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target)
    shutil.copyfile(README, root / "README.md")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, command in (
        ("mem", f'exec "{sys.executable}" -m mem_cli "$@"'),
        ("python3", f'exec "{sys.executable}" "$@"'),
    ):
        (bin_dir / name).write_text(f"#!/bin/sh\n{command}\n")
        (bin_dir / name).chmod(0o755)
    return root


def test_the_tour_is_there() -> None:
    steps = tour()
    commands = [command for command, _ in steps]
    assert commands[0] == "cd examples/demo"
    for needed in ("mem recall", "mem write", "mem reinforce", "mem observe", "mem outcomes", "mem remember"):
        assert any(c.startswith(needed) for c in commands), needed
    assert any("junit-observation.json" in c for c in commands) and any("bind-nexus-run.py" in c for c in commands)


def test_every_tour_command_prints_what_the_page_shows(clone: Path, tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("MEM_NOW", None)  # the tour pins it itself
    demo = clone / "examples/demo"
    outside = _tree(clone, demo)
    cwd = clone
    seen: dict[str, str] = {}
    for command, expected in tour():
        words = shlex.split(command, comments=True)
        if words[0] == "cd":
            cwd = (cwd / words[1]).resolve()
            assert expected == ""
            continue
        if words[0] == "export":
            for assignment in words[1:]:
                name, _, value = assignment.partition("=")
                env[name] = value
            assert expected == ""
            continue
        run = subprocess.run(
            ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert (run.returncode, run.stderr) == (0, ""), command
        match = _pattern(expected, seen).fullmatch(run.stdout)
        assert match is not None, f"$ {command}\n--- docs/tour.md\n{expected}--- got\n{run.stdout}"
        seen.update({k: v for k, v in match.groupdict().items() if v is not None})
    assert set(seen) == {"memory_id", "nexus_receipt_id"}
    assert _tree(clone, demo) == outside, "the tour writes only into examples/demo"


def test_the_first_of_the_two_commands_works_from_the_clone(clone: Path, tmp_path: Path) -> None:
    head = _section(README.read_text(encoding="utf-8"), "Install")
    assert "pip install . && mem recall auth strategy -d examples/demo" in head
    assert "python3 -m venv .venv && . .venv/bin/activate" in head
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO)}
    before = _tree(clone, clone / "examples/demo")
    run = subprocess.run(
        ["bash", "-c", "mem recall auth strategy -d examples/demo"], cwd=clone, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[1] == "  1. [0.408] note decisions.md § Auth strategy"
    assert _tree(clone, clone / "examples/demo") == before


def test_the_readme_first_project_prints_what_it_shows(tmp_path: Path) -> None:
    """The README's first project: ``mem init``, the ``###`` note it shows
    added to decisions.md, and the ``mem recall`` console block, byte for byte."""
    readme = README.read_text(encoding="utf-8")
    section = _section(readme, "Your first project in five minutes")
    note = re.search(r"```markdown\n(### .*?)```", section, re.S)
    console = re.search(r"```console\n\$ (.*?)\n(.*?)```", section, re.S)
    assert note and console
    project = tmp_path / "your-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    # the README's install (`pip install .`) has no embeddings extra, so `mem init`
    # writes bm25 there; this test environment has the extra (init would write hybrid)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "MEM_RECALL_RANKING": "bm25"}
    env.pop("MEM_NOW", None)
    mem = [sys.executable, "-m", "mem_cli"]
    assert subprocess.run([*mem, "init"], cwd=project, env=env, capture_output=True).returncode == 0
    with (project / ".agents" / "memory" / "decisions.md").open("a", encoding="utf-8") as notes:
        notes.write("\n" + note.group(1))
    command = shlex.split(console.group(1))
    assert command[0] == "mem"
    run = subprocess.run([*mem, *command[1:]], cwd=project, env=env, capture_output=True, text=True)
    assert (run.returncode, run.stderr, run.stdout) == (0, "", console.group(2))


def test_every_relative_link_of_the_docs_resolves() -> None:
    """README.md, CONTRIBUTING.md and docs/*.md link only to files that exist."""
    pages = [README, REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert broken == []
