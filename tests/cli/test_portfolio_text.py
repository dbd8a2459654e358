"""Portfolio text output a person can read: each match beyond the project
names where it lives, and a section whose text is the same in several
projects and the brain is shown once, with every place (the JSON keeps one
result per copy)."""

from __future__ import annotations

import json
from pathlib import Path

LESSON = "### Cache contract\nPreserve false and zero cache values.\n"


def _project(root: Path, lessons: str) -> Path:
    (root / ".agents/memory").mkdir(parents=True)
    (root / ".agents/memory/lessons.md").write_text(lessons)
    return root


def test_one_lesson_in_three_places_is_shown_once(mem, tmp_path: Path, now: str) -> None:
    alpha = _project(tmp_path / "alpha", LESSON)
    beta = _project(tmp_path / "beta", LESSON + "### Beta cache\nbeta cache only\n")
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    (brain / "memory/lessons.md").write_text(LESSON)
    assert mem("portfolio", "add", str(alpha), str(beta)).code == 0
    assert mem("portfolio", "brain", str(brain)).code == 0

    every = mem("recall", "cache", "--scope", "all", "-d", str(alpha))
    assert every.code == 0, every.err
    headers = [line for line in every.out.splitlines()[1:] if not line.startswith("     ")]
    assert every.out.splitlines()[0] == 'mem recall: 2 match(es) for "cache" (scope: all)'
    assert sorted(line.split("] ", 1)[1] for line in headers) == [
        "note lessons.md § Beta cache (project: beta)",
        "note lessons.md § Cache contract (projects: alpha, beta; brain)",
    ]
    assert json.loads(mem("recall", "cache", "--scope", "all", "--json", "-d", str(alpha)).out)["count"] == 4

    portfolio = mem("recall", "cache", "--scope", "portfolio", "-d", str(beta))
    assert portfolio.out.splitlines()[0] == 'mem recall: 2 match(es) for "cache" (scope: portfolio)'
    assert "note lessons.md § Cache contract (project: beta; brain)" in portfolio.out
    assert "note lessons.md § Beta cache (project: beta)" in portfolio.out
    # the project scope is the reference's, byte for byte: no places
    plain = mem("recall", "cache", "-d", str(beta))
    assert "(project" not in plain.out and "brain" not in plain.out
