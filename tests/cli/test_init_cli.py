"""``mem init``: the config file, the notes with one example section each,
the adapters detected (``--adapters`` installs them); idempotent, never
overwriting a file, bad input changing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import tree_bytes

NOTES = [".agents/memory/decisions.md", ".agents/memory/lessons.md", ".agents/memory/patterns.md"]
CREATED = [".bmad/memory/", ".bmad/memory/mem.toml", ".agents/memory/", *NOTES]


@pytest.fixture
def alone(tmp_path: Path) -> dict[str, str]:
    """No assistant on PATH nor in the home directory."""
    home = tmp_path / "home"
    home.mkdir()
    empty = tmp_path / "bin"
    empty.mkdir()
    return {"HOME": str(home), "PATH": str(empty)}


def test_init_creates_config_and_notes_that_recall_finds(mem, project: Path, alone, now: str) -> None:
    run = mem("init", "-d", str(project), env=alone)
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        f"mem init: created {', '.join(CREATED[:-1])} and {CREATED[-1]} in {project}\n"
        "mem init: .gitignore and .gitattributes now say what of .bmad/memory stays out of git and how its "
        "journals merge (docs/git.md)\n"
        "mem init: no assistant detected; `mem adapters list` shows those mem can wire in\n"
    )
    for note in NOTES:
        text = (project / note).read_text()
        assert text.count("\n### ") == 1 and "\n## " not in text
    recalled = json.loads(mem("recall", "failing", "test", "--json", "-d", str(project)).out)
    assert [r["ref"] for r in recalled["results"]][:1] == ["Example: a failing test first"]
    assert mem("reinforce", "--pattern", "Example: a failing test first", "--eval", "1", "-d", str(project)).code == 0


def test_init_is_idempotent_and_never_overwrites(mem, project: Path, alone) -> None:
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Mine\nkeep me\n")
    first = json.loads(mem("init", "--json", "-d", str(project), env=alone).out)
    assert first["created"] == [c for c in CREATED if c not in (".agents/memory/", ".agents/memory/lessons.md")]
    assert (project / ".agents/memory/lessons.md").read_text() == "### Mine\nkeep me\n"
    before = tree_bytes(project)
    again = mem("init", "-d", str(project), env=alone)
    assert again.out.splitlines()[0] == f"mem init: {project} has its memory files already; nothing changed"
    assert tree_bytes(project) == before


def test_init_lists_detected_assistants_and_installs_on_request(mem, project: Path, alone) -> None:
    Path(alone["HOME"], ".claude").mkdir()  # Claude Code is used on this machine
    run = mem("init", "-d", str(project), env=alone)
    assert run.out.splitlines()[-1] == (
        "mem init: assistants detected: claude-code; wire them in with `mem adapters install claude-code` "
        "(or `mem init --adapters NAME,…`)"
    )
    assert not (project / "CLAUDE.md").exists()  # offered, not installed
    run = mem("init", "--adapters", "claude-code,cursor", "--json", "-d", str(project), env=alone)
    got = json.loads(run.out)
    assert got["created"] == []
    assert got["adapters"]["installed"] == ["claude-code", "cursor"] and got["adapters"]["detected"] == []
    assert {"path": "CLAUDE.md", "change": "created"} in got["adapters"]["files"]
    assert (project / "CLAUDE.md").is_file() and (project / ".cursor/rules/mem.mdc").is_file()
    before = tree_bytes(project)
    again = mem("init", "--adapters", "claude-code", "-d", str(project), env=alone)
    assert "adapters claude-code installed (changed nothing: installed already)" in again.out
    assert tree_bytes(project) == before


def test_bad_input_changes_nothing(mem, project: Path, alone) -> None:
    run = mem("init", "--adapters", "claude-code,nope", "-d", str(project), env=alone)
    assert run.code == 1 and run.err.startswith("mem init: unknown adapter 'nope' (expected claude-code | ")
    assert list(project.iterdir()) == []
    assert mem("init", "--adapters", ",", "-d", str(project), env=alone).code == 1
    (project / ".bmad/memory").mkdir(parents=True)
    (project / ".bmad/memory/mem.toml").write_text("store = [\n")
    run = mem("init", "-d", str(project), env=alone)
    assert run.code == 1 and not (project / ".agents").exists()
    run = mem("init", "-d", str(project / "missing"), env=alone)
    assert (run.code, run.err) == (1, f"mem init: project directory not found: {project / 'missing'}\n")


def test_init_refuses_a_symbolic_link_on_the_notes_path(mem, project: Path, tmp_path: Path, alone) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".agents").symlink_to(outside)
    run = mem("init", "-d", str(project), env=alone)
    assert run.code == 1
    assert list(outside.iterdir()) == [] and not (project / ".bmad").exists()


def _ranking_line(project: Path) -> list[str]:
    text = (project / ".bmad/memory/mem.toml").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("recall_ranking")]


def test_init_makes_the_best_installed_ranking_the_default(mem, project: Path, alone) -> None:
    pytest.importorskip("onnxruntime", reason="the embeddings extra (tox installs it)")
    assert mem("init", "-d", str(project), env=alone).code == 0
    assert _ranking_line(project) == ['recall_ranking = "hybrid"']
    recalled = json.loads(mem("recall", "failing", "test", "--json", "-d", str(project)).out)
    assert recalled["ranking"] == "hybrid" and recalled["results"][0]["trust"] == "unverified"


def test_init_without_the_embeddings_extra_chooses_bm25(project: Path, alone) -> None:
    import os
    import subprocess
    import sys

    blocked = (
        "import sys; sys.modules['onnxruntime'] = None; from mem_cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", blocked, "init", "-d", str(project)],
        env={**os.environ, **alone},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert _ranking_line(project) == ['recall_ranking = "bm25"']


def test_a_project_without_the_setting_still_ranks_lexical(mem, project: Path) -> None:
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Caching\nCache the pages.\n")
    recalled = json.loads(mem("recall", "cache", "--json", "-d", str(project)).out)
    assert recalled["ranking"] == "lexical" and "trust" not in recalled["results"][0]
