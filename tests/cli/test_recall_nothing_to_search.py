"""A recall with nothing to search says so on stderr: outside any project,
and with ``--scope portfolio`` or ``all`` when no brain is set. Stdout, the
exit code and the JSON stay the reference's (tests/conformance: the
``nothing-to-search`` and ``no-brain`` cases)."""

from __future__ import annotations

import json
from pathlib import Path

NO_MATCHES = 'mem recall: no matches for "cache" (scope: project)\n'


def test_outside_any_project_one_stderr_line(mem, tmp_path: Path) -> None:
    somewhere = tmp_path / "somewhere"
    (somewhere / ".git").mkdir(parents=True)
    (somewhere / "src").mkdir()
    run = mem("recall", "cache", cwd=somewhere / "src")
    assert (run.code, run.out) == (0, NO_MATCHES)
    assert run.err == (
        f"mem recall: note: no project memory in {somewhere / 'src'} (no .bmad/ or .agents/ here or above, "
        "up to the git root): nothing of a project to search; `mem init` starts one\n"
    )
    as_json = mem("recall", "cache", "--json", cwd=somewhere / "src")
    assert (as_json.err, json.loads(as_json.out)["count"]) == ("", 0)
    assert "note" not in as_json.out

    assert mem("init", "-d", str(somewhere)).code == 0
    inside = mem("recall", "cache", cwd=somewhere / "src")
    assert (inside.code, inside.out, inside.err) == (0, NO_MATCHES, "")


def test_scope_portfolio_without_a_brain_says_so(mem, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".agents/memory").mkdir(parents=True)
    (project / ".agents/memory/lessons.md").write_text("### Cache contract\nPreserve cache values.\n")
    run = mem("recall", "cache", "--scope", "portfolio", "-d", str(project))
    assert run.code == 0 and run.out.startswith('mem recall: 1 match(es) for "cache" (scope: portfolio)\n')
    assert run.err == (
        "mem recall: note: no portfolio brain: `mem portfolio brain DIR` sets one (or --portfolio DIR), "
        "so --scope portfolio searched no brain\n"
    )
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    assert mem("portfolio", "brain", str(brain)).code == 0
    run = mem("recall", "cache", "--scope", "portfolio", "-d", str(project))
    assert (run.code, run.err) == (0, "")
    assert mem("recall", "cache", "--scope", "portfolio", "--portfolio", str(brain), "-d", str(project)).err == ""
