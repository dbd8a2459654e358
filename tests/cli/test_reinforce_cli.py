"""``mem reinforce`` on the command line: exact text and JSON, errors, options
(mem-cli.md §0, §4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import tree_bytes

SCORES = Path(".bmad/memory/pattern-scores.json")
PROMOTIONS = Path(".bmad/memory/promotions.ndjson")
T = "2026-10-18T09:31:00.000Z"
AT_T = {"MEM_NOW": T}
REQUIRED = "mem reinforce: --pattern <id> is required (the pattern heading in patterns.md)"
CORRUPT = "Pattern score store is corrupt; inspect pattern-scores.json before reinforcing."

SEED_TEXT = (
    'mem reinforce: pattern "Rate limit on auth routes"\n'
    '  reward   1.000 (from {"acceptance":true,"ci":"pass"})\n'
    "  elo      1200.0 -> 1216.0\n"
    "  mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n"
    "  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n"
)


def test_seed_example_text(mem, project: Path) -> None:
    run = mem(
        "reinforce", "--pattern", "Rate limit on auth routes", "--accept", "true", "--ci", "pass", cwd=project, env=AT_T
    )
    assert (run.code, run.err) == (0, "")
    assert run.out == SEED_TEXT


def test_seed_example_json(mem, project: Path) -> None:
    run = mem(
        "reinforce",
        "--json",
        "--pattern",
        "Rate limit on auth routes",
        "--accept",
        "true",
        "--ci",
        "pass",
        "-d",
        str(project),
        env=AT_T,
    )
    assert run.code == 0, run.err
    assert run.out == (
        "{\n"
        '  "patternId": "Rate limit on auth routes",\n'
        '  "reward": 1,\n'
        '  "previous": null,\n'
        '  "next": {\n'
        '    "elo": 1216,\n'
        '    "alpha": 2,\n'
        '    "beta": 1,\n'
        '    "mean": 0.6666666666666666,\n'
        '    "updates": 1,\n'
        '    "lastTs": "2026-10-18T09:31:00.000Z"\n'
        "  },\n"
        '  "promotion": null,\n'
        '  "evidenceStatus": "self-reported",\n'
        '  "rankingEligible": false\n'
        "}\n"
    )


def test_third_full_reward_text_and_json(mem, project: Path) -> None:
    args = ("reinforce", "--pattern", "P", "--accept", "yes", "--ci", "pass", "--evidence", "e1,e2", "-d", str(project))
    mem(*args, env=AT_T)
    second = mem(*args, env=AT_T)
    assert "  mean     0.749 (alpha=2.98, beta=1.00, updates=2)\n" in second.out
    third = mem(*args, env=AT_T)
    assert third.out == (
        'mem reinforce: pattern "P"\n'
        '  reward   1.000 (from {"acceptance":true,"ci":"pass"})\n'
        "  elo      1231.3 -> 1245.8\n"
        "  mean     0.798 (alpha=3.94, beta=1.00, updates=3)\n"
        "  promotion PROPOSED (073da9178a7e): candidate -> validated\n"
        "  awaiting human/Shield approval — never auto-applied (governance guard)\n"
    )
    fourth = mem(*args, "--json", env={"MEM_NOW": "2026-10-19T09:31:00.000Z"})
    data = json.loads(fourth.out)
    assert data["previous"]["updates"] == 3
    promotion = data["promotion"]
    assert list(promotion) == [
        "id", "patternId", "fromStatus", "toStatus", "reason", "evidence", "score",
        "ts", "status", "governedBy", "approvedBy", "approvedAt",
    ]  # fmt: skip
    assert (promotion["status"], promotion["approvedBy"], promotion["evidence"]) == ("PROPOSED", None, ["e1", "e2"])
    assert fourth.out.endswith('  "evidenceStatus": "self-reported",\n  "rankingEligible": false\n}\n')


def test_the_90_day_half_life_with_mem_now(mem, project: Path) -> None:
    args = ("reinforce", "--pattern", "P", "--accept", "true", "-d", str(project))
    mem(*args, env={"MEM_NOW": "2026-01-01T00:00:00.000Z"})
    mem(*args, env={"MEM_NOW": "2026-01-01T00:00:00.000Z"})  # alpha = 2.98 on day 0
    # 90 days on, alpha - 1 halves (1.99) before the update: 1 + 0.99 * 0.98 + 1
    later = mem(*args, env={"MEM_NOW": "2026-04-01T00:00:00.000Z"})
    assert later.out == (
        'mem reinforce: pattern "P"\n'
        '  reward   1.000 (from {"acceptance":true})\n'
        "  elo      1231.3 -> 1245.8\n"
        "  mean     0.748 (alpha=2.97, beta=1.00, updates=3)\n"
        "  promotion PROPOSED (4241a497eda3): candidate -> validated\n"
        "  awaiting human/Shield approval — never auto-applied (governance guard)\n"
    )
    score = json.loads((project / SCORES).read_text())["P"]
    assert (score["alpha"], score["lastTs"]) == (2.9702, "2026-04-01T00:00:00.000Z")
    # the same instant again: no time decay
    same_day = mem(*args, "--json", env={"MEM_NOW": "2026-04-01T00:00:00.000Z"})
    assert json.loads(same_day.out)["next"]["alpha"] == 3.930796


def test_missing_pattern_keeps_the_doubled_prefix(mem, project: Path) -> None:
    run = mem("reinforce", "--accept", "true", cwd=project, env=AT_T)
    assert (run.code, run.out, run.err) == (1, "", f"mem reinforce: {REQUIRED}\n")
    run = mem("reinforce", "--pattern", "  ", "--json", cwd=project, env=AT_T)
    assert (run.code, run.out, run.err) == (1, json.dumps({"error": REQUIRED}, separators=(",", ":")) + "\n", "")
    assert tree_bytes(project) == {}


@pytest.mark.parametrize("content", ["{oops", "[]", "null", "42", ""])
def test_corrupt_score_store_text_and_json(mem, bmad_project: Path, content: str) -> None:
    (bmad_project / SCORES).write_text(content)
    before = tree_bytes(bmad_project)
    run = mem("reinforce", "--pattern", "Cache shortcut", "--ci", "pass", cwd=bmad_project, env=AT_T)
    assert (run.code, run.out, run.err) == (1, "", f"mem reinforce: {CORRUPT}\n")
    run = mem("reinforce", "--pattern", "Cache shortcut", "--ci", "pass", "--json", cwd=bmad_project, env=AT_T)
    assert (run.code, run.out, run.err) == (1, f'{{"error":"{CORRUPT}"}}\n', "")
    assert tree_bytes(bmad_project) == before


def test_options_anywhere_and_values_starting_with_a_dash(mem, project: Path) -> None:
    run = mem("--accept", "-3", "reinforce", "--eval=0.5", "--pattern", "--x", "-d", str(project), env=AT_T)
    assert run.code == 0, run.err
    assert run.out.startswith(
        'mem reinforce: pattern "--x"\n  reward   0.313 (from {"evalScore":0.5,"acceptance":-3})\n'
    )


def test_options_of_other_actions_are_accepted_and_ignored(mem, project: Path) -> None:
    run = mem("reinforce", "--pattern", "p", "--ci", "fail", "--agent", "forge", "--limit", "3", cwd=project, env=AT_T)
    assert run.code == 0, run.err
    assert "  elo      1200.0 -> 1184.0\n" in run.out


def test_directory_that_does_not_exist_yet_is_created(mem, tmp_path: Path) -> None:
    target = tmp_path / "new" / "project"
    run = mem("reinforce", "--pattern", "p", "--eval", "1", "-d", str(target), env=AT_T)
    assert run.code == 0, run.err
    assert json.loads((target / SCORES).read_text())["p"]["updates"] == 1


def test_signal_option_errors_change_nothing(mem, project: Path) -> None:
    run = mem("reinforce", "--pattern", "p", "--signal", "review", cwd=project, env=AT_T)
    assert (run.code, run.err) == (1, "mem reinforce: --signal takes NAME=VALUE, got 'review'\n")
    run = mem("reinforce", "--pattern", "p", "--signal", "review=1", "--json", cwd=project, env=AT_T)
    assert (run.code, run.out) == (1, '{"error":"unknown reward signal \'review\' (known: eval, accept, ci)"}\n')
    assert tree_bytes(project) == {}


def test_signal_option_names_a_built_in_signal(mem, project: Path) -> None:
    run = mem("reinforce", "--pattern", "p", "--signal", "accept=no", "--signal", "eval=1", cwd=project, env=AT_T)
    assert run.code == 0, run.err
    assert '  reward   0.625 (from {"evalScore":1,"acceptance":false})\n' in run.out


def test_a_stored_score_without_elo_fails_as_the_reference_does(mem, project: Path) -> None:
    # bmad-plus mem writes the update, prints two lines, then fails on prevElo.toFixed
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_text('{"p": {"alpha": 2, "beta": 1, "updates": 1}}')
    run = mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project, env=AT_T)
    assert run.code == 1
    assert run.out == 'mem reinforce: pattern "p"\n  reward   1.000 (from {"ci":"pass"})\n'
    assert run.err == "mem reinforce: Cannot read properties of undefined (reading 'toFixed')\n"
    assert json.loads((project / SCORES).read_text())["p"]["updates"] == 2
    run = mem("reinforce", "--pattern", "p", "--ci", "pass", "--json", cwd=project, env=AT_T)
    assert run.code == 0 and json.loads(run.out)["next"]["updates"] == 3


def test_a_string_elo_fails_on_the_new_value(mem, project: Path) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_text('{"p": {"elo": "7"}}')
    run = mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project, env=AT_T)
    assert run.code == 1
    assert run.err == "mem reinforce: prevElo.toFixed is not a function\n"
    assert json.loads((project / SCORES).read_text())["p"]["elo"] == "731.96671887014299"


def test_help_lists_every_option_with_its_help(mem) -> None:
    run = mem("reinforce", "--help")
    for text in (
        "--pattern ID",
        "--eval SCORE",
        "--accept BOOL",
        "--ci RESULT",
        "--signal NAME=VALUE",
        "--evidence IDS",
        "-d, --directory",
        "--json",
    ):
        assert text in run.out


def test_invalid_mem_now_is_refused(mem, project: Path) -> None:
    run = mem("reinforce", "--pattern", "p", cwd=project, env={"MEM_NOW": "yesterday"})
    assert run.code == 1 and "MEM_NOW must be an ISO-8601 UTC timestamp" in run.err
    assert tree_bytes(project) == {}


def test_real_process(mem_process, project: Path) -> None:
    run = mem_process(
        "reinforce", "--pattern", "Rate limit on auth routes", "--accept", "true", "--ci", "pass", cwd=project, env=AT_T
    )
    assert (run.code, run.err) == (0, ""), run.err
    assert run.out == SEED_TEXT
    run = mem_process("reinforce", "-d", str(project), "--json", env=AT_T)
    assert (run.code, run.out) == (1, json.dumps({"error": REQUIRED}, separators=(",", ":")) + "\n")


def test_replaying_the_fixture_session_on_the_command_line(mem, project: Path) -> None:
    """The ``write`` and ``reinforce`` calls of tests/fixtures/README.md, at
    their instants, give the fixture's files byte for byte."""
    from tests.conftest import BMAD_PROJECT

    if not BMAD_PROJECT.is_dir():
        pytest.fail("tests/fixtures (the reference fixtures) is missing")
    cache = (
        "reinforce",
        "--pattern",
        "Cache shortcut",
        "--accept",
        "true",
        "--ci",
        "pass",
        "--evidence",
        "3f9a1c7b02de",
    )
    session = [
        ("2026-10-18T09:30:00.000Z", ("write", "--agent", "forge", "--cli", "claude-code", "--model", "claude-opus",
                                      "--task", "Add login rate limit", "--outcome", "success", "--ci", "pass")),
        ("2026-10-19T10:00:00.000Z", ("write", "--agent", "zecher", "--cli", "gemini-cli", "--task", "Fix cache zero values",
                                      "--outcome", "partial", "--eval", "0.6", "--accept", "yes")),
        ("2026-10-20T11:15:00.000Z", ("write", "--agent", "forge", "--task", "Migrate job queue to BullMQ",
                                      "--outcome", "failure", "--ci", "fail")),
        ("2026-10-18T09:31:00.000Z", cache),
        ("2026-10-25T09:31:00.000Z", cache),
        ("2026-11-02T09:31:00.000Z", cache),
        ("2026-10-21T08:00:00.000Z", ("reinforce", "--pattern", "chromadb batch ingestion", "--eval", "0.4")),
    ]  # fmt: skip
    outputs = []
    for now, args in session:
        run = mem(*args, cwd=project, env={"MEM_NOW": now})
        assert run.code == 0, run.err
        outputs.append(run.out)
    assert "  promotion PROPOSED (be486194c0de): candidate -> validated\n" in outputs[5]
    for name in ("journal.ndjson", "pattern-scores.json", "promotions.ndjson"):
        assert (project / ".bmad/memory" / name).read_bytes() == (BMAD_PROJECT / ".bmad/memory" / name).read_bytes(), (
            name
        )
