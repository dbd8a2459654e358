"""The ``reinforce`` API: score file, promotions, the lock, and files written by
``bmad-plus mem`` (docs/contract.md §4, §8)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.api.reinforce import (
    CORRUPT_SCORES,
    PATTERN_REQUIRED,
    ReinforceResult,
    parse_evidence,
    read_pattern_scores,
    read_promotions,
    reinforce,
)
from mem_core.errors import MemError
from mem_core.files import LOCKED
from tests.conftest import BMAD_PROJECT, tree_bytes

SCORES = Path(".bmad/memory/pattern-scores.json")
PROMOTIONS = Path(".bmad/memory/promotions.ndjson")
T = "2026-10-18T09:31:00.000Z"
FULL = {"accept": "true", "ci": "pass"}

# the memory files' reinforce calls, from tests/fixtures/README.md, in order
FIXTURE_CALLS = [
    ("Cache shortcut", {"accept": "true", "ci": "pass"}, "3f9a1c7b02de", "2026-10-18T09:31:00.000Z"),
    ("Cache shortcut", {"accept": "true", "ci": "pass"}, "3f9a1c7b02de", "2026-10-25T09:31:00.000Z"),
    ("Cache shortcut", {"accept": "true", "ci": "pass"}, "3f9a1c7b02de", "2026-11-02T09:31:00.000Z"),
    ("chromadb batch ingestion", {"eval": "0.4"}, None, "2026-10-21T08:00:00.000Z"),
]


def test_seed_example_on_a_new_pattern(project: Path, kernel) -> None:
    result = reinforce("Rate limit on auth routes", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert isinstance(result, ReinforceResult)
    assert result.reward == 1
    assert result.previous is None
    assert result.promotion is None
    assert (project / SCORES).read_bytes() == (
        b'{\n  "Rate limit on auth routes": {\n    "elo": 1216,\n    "alpha": 2,\n    "beta": 1,\n'
        b'    "mean": 0.6666666666666666,\n    "updates": 1,\n    "lastTs": "2026-10-18T09:31:00.000Z"\n  }\n}\n'
    )
    assert not (project / PROMOTIONS).exists()


def test_third_full_reward_proposes_a_promotion(project: Path, kernel) -> None:
    results = [
        reinforce("P", directory=str(project), signals=FULL, evidence=" e1, ,e2 ,", now=T, kernel=kernel)
        for _ in range(3)
    ]
    assert [r.promotion is None for r in results] == [True, True, False]
    assert results[2].next["mean"] == 0.7975872398996032
    assert (project / PROMOTIONS).read_bytes() == (
        b'{"id":"073da9178a7e","patternId":"P","fromStatus":"candidate","toStatus":"validated",'
        b'"reason":"posterior mean 0.798 >= 0.7 over 3 update(s)","evidence":["e1","e2"],'
        b'"score":{"elo":1245.8278203282016,"alpha":3.9404,"beta":1,"mean":0.7975872398996032,"updates":3,'
        b'"lastTs":"2026-10-18T09:31:00.000Z"},"ts":"2026-10-18T09:31:00.000Z","status":"PROPOSED",'
        b'"governedBy":"shield","approvedBy":null,"approvedAt":null}\n'
    )
    # every further call that stays above the threshold proposes again
    fourth = reinforce("P", directory=str(project), signals=FULL, now="2026-10-19T09:31:00.000Z", kernel=kernel)
    assert fourth.promotion is not None and fourth.promotion["reason"].endswith("over 4 update(s)")
    assert len((project / PROMOTIONS).read_text().splitlines()) == 2


def test_replaying_the_fixture_calls_gives_the_fixture_files(project: Path, kernel) -> None:
    if not BMAD_PROJECT.is_dir():
        pytest.fail("tests/fixtures (the reference fixtures) is missing")
    for pattern, signals, evidence, now in FIXTURE_CALLS:
        reinforce(pattern, directory=str(project), signals=signals, evidence=evidence, now=now, kernel=kernel)
    for name in (SCORES, PROMOTIONS):
        assert (project / name).read_bytes() == (BMAD_PROJECT / name).read_bytes()


def test_files_bmad_plus_wrote_are_read_and_updated(bmad_project: Path, kernel) -> None:
    now = "2026-11-05T12:00:00.000Z"
    scores_before = json.loads((bmad_project / SCORES).read_text())
    promotions_before = (bmad_project / PROMOTIONS).read_bytes()

    cache = reinforce(
        "Cache shortcut",
        directory=str(bmad_project),
        signals={"accept": "yes", "ci": "pass"},
        evidence="f60e78136297,da611e596f32",
        now=now,
        kernel=kernel,
    )
    chroma = reinforce(
        "chromadb batch ingestion", directory=str(bmad_project), signals={"eval": "0.9"}, now=now, kernel=kernel
    )

    assert cache.previous == scores_before["Cache shortcut"]
    assert chroma.previous == scores_before["chromadb batch ingestion"]
    # bytes as bmad-plus mem writes them for the same two calls
    assert (bmad_project / SCORES).read_bytes() == (
        b'{\n  "Cache shortcut": {\n    "elo": 1259.729526119354,\n    "alpha": 4.65724158710557,\n'
        b'    "beta": 1,\n    "mean": 0.8232354081750232,\n    "updates": 4,\n    "lastTs": "2026-11-05T12:00:00.000Z"\n'
        b'  },\n  "chromadb batch ingestion": {\n    "elo": 1209.7473612790711,\n    "alpha": 2.2487843084591788,\n'
        b'    "beta": 1.6231764626887686,\n    "mean": 0.5807869555952309,\n    "updates": 2,\n'
        b'    "lastTs": "2026-11-05T12:00:00.000Z"\n  }\n}\n'
    )
    assert (bmad_project / PROMOTIONS).read_bytes() == promotions_before + (
        b'{"id":"c7967724a9a6","patternId":"Cache shortcut","fromStatus":"candidate","toStatus":"validated",'
        b'"reason":"posterior mean 0.823 >= 0.7 over 4 update(s)","evidence":["f60e78136297","da611e596f32"],'
        b'"score":{"elo":1259.729526119354,"alpha":4.65724158710557,"beta":1,"mean":0.8232354081750232,'
        b'"updates":4,"lastTs":"2026-11-05T12:00:00.000Z"},"ts":"2026-11-05T12:00:00.000Z","status":"PROPOSED",'
        b'"governedBy":"shield","approvedBy":null,"approvedAt":null}\n'
    )


def test_read_models_of_the_fixture_files(bmad_project: Path) -> None:
    scores = read_pattern_scores(str(bmad_project))
    assert list(scores) == ["Cache shortcut", "chromadb batch ingestion"]
    assert scores["Cache shortcut"].updates == 3 and scores["Cache shortcut"].mean == 0.7906662611958414
    [promotion] = read_promotions(str(bmad_project))
    assert promotion.status == "PROPOSED" and promotion.evidence == ["3f9a1c7b02de"]
    assert promotion.score is not None and promotion.score.to_record() == scores["Cache shortcut"].to_record()


def test_read_pattern_scores_names_an_invalid_entry(project: Path) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_text('{"ok": {"elo":1,"alpha":1,"beta":1,"mean":0.5,"updates":0,"lastTs":null}, "bad": 3}')
    with pytest.raises(MemError, match=r'\(pattern "bad"\)$'):
        read_pattern_scores(str(project))


def test_read_promotions_skips_corrupt_and_invalid_lines(bmad_project: Path) -> None:
    with (bmad_project / PROMOTIONS).open("a") as fh:
        fh.write('not json\n{"id":"x"}\n\n')
    assert [p.id for p in read_promotions(str(bmad_project))] == ["be486194c0de"]


def test_a_proposal_cannot_carry_another_status() -> None:
    from pydantic import ValidationError

    from mem_core.reinforcement.models import ProposedPromotion

    base = {"id": "x", "patternId": "p", "reason": "r", "evidence": [], "score": None, "ts": T}
    for override in ({"status": "APPROVED"}, {"approvedBy": "me"}, {"approvedAt": T}, {"toStatus": "deprecated"}):
        with pytest.raises(ValidationError):
            ProposedPromotion(**base, **override)
    assert ProposedPromotion(**base).to_record()["status"] == "PROPOSED"


@pytest.mark.parametrize("pattern", [None, "", "   ", "\t\n", "\u00a0\u2003", "\ufeff"])
def test_a_missing_or_blank_pattern_is_refused_and_nothing_is_written(project: Path, kernel, pattern) -> None:
    with pytest.raises(MemError) as info:
        reinforce(pattern, directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert info.value.message == PATTERN_REQUIRED
    assert tree_bytes(project) == {}


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b"not json",
        b"[]",
        b'[{"elo":1}]',
        b"null",
        b"3",
        b'"x"',
        b"true",
        b"\xef\xbb\xbf{}",
        b'{"a":1} {}',
        b"NaN",
    ],
)
def test_a_corrupt_score_store_is_refused_and_nothing_changes(bmad_project: Path, kernel, content: bytes) -> None:
    (bmad_project / SCORES).write_bytes(content)
    before = tree_bytes(bmad_project)
    with pytest.raises(MemError) as info:
        reinforce("Cache shortcut", directory=str(bmad_project), signals=FULL, now=T, kernel=kernel)
    assert info.value.message == CORRUPT_SCORES
    assert tree_bytes(bmad_project) == before


def test_an_unreadable_score_store_is_refused(project: Path, kernel) -> None:
    (project / SCORES).mkdir(parents=True)
    with pytest.raises(MemError, match=r"^Memory source must be a regular file of at most 2 MiB\.$"):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert tree_bytes(project) == {}


def test_a_fifo_score_store_is_refused_without_blocking(project: Path, kernel) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    os.mkfifo(project / SCORES)
    with pytest.raises(MemError, match=r"^Memory source must be a regular file of at most 2 MiB\.$"):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert not (project / ".bmad" / "memory" / "writer.lock").exists()


def test_a_score_store_with_malformed_utf8_is_refused_never_replaced(project: Path, kernel) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_bytes(b'{"caf\xe9": {"elo": 1200}}\n')
    before = tree_bytes(project)
    with pytest.raises(MemError, match=r"^Memory source must contain valid UTF-8\.$"):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert tree_bytes(project) == before


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink", "full", "torn"])
def test_a_promotion_that_cannot_be_appended_changes_no_score(project: Path, tmp_path: Path, kernel, kind) -> None:
    for _ in range(2):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    promotions = project / ".bmad" / "memory" / "promotions.ndjson"
    if kind == "fifo":
        os.mkfifo(promotions)
    elif kind == "directory":
        promotions.mkdir()
    elif kind == "symlink":
        (tmp_path / "elsewhere").write_text("")
        promotions.symlink_to(tmp_path / "elsewhere")
    elif kind == "full":
        promotions.write_text(("x" * 1023 + "\n") * 2048)
    else:
        promotions.write_text('{"id":"a"}\n{"id":')
    before = tree_bytes(project)
    with pytest.raises(MemError):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert tree_bytes(project) == before


def test_a_symlinked_score_store_is_refused(project: Path, tmp_path: Path, kernel) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).symlink_to(outside)
    with pytest.raises(MemError, match="^Memory paths cannot follow symbolic links or junctions.$"):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert outside.read_text() == "{}"


def test_other_patterns_and_extra_keys_are_kept_in_javascript_order(project: Path, kernel) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_text('{"b": {"elo": 1300, "note": {"z": 1, "2": 2}}, "10": 0, "a": [1], "3": "x"}')
    reinforce("1", directory=str(project), signals={"eval": "0.5"}, now=T, kernel=kernel)
    data = (project / SCORES).read_text()
    # array-index keys first, ascending, as JSON.parse/JSON.stringify order them
    assert [line[:6] for line in data.splitlines() if line.startswith('  "')] == [
        '  "1":',
        '  "3":',
        '  "10"',
        '  "b":',
        '  "a":',
    ]
    assert '"note": {\n      "2": 2,\n      "z": 1\n    }' in data


def test_pattern_names_of_object_prototype_members(project: Path, kernel) -> None:
    # JavaScript finds Object.prototype's member under these names; bmad-plus
    # mem starts such a pattern from the prior, and "__proto__" never lands
    result = reinforce("toString", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert "previous" not in result.to_json()  # a function: left out of the JSON
    assert result.next["updates"] == 1
    again = reinforce("toString", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert again.next["updates"] == 2 and again.previous == result.next
    proto = reinforce("__proto__", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert proto.to_json()["previous"] == {}
    assert list(json.loads((project / SCORES).read_text())) == ["toString"]
    (project / SCORES).write_text('{"__proto__": {"elo": 1300}}')
    own = reinforce("__proto__", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert own.previous == {"elo": 1300}


@pytest.mark.parametrize(("stored", "previous"), [(0, None), ("", None), (False, None), (None, None), (7, 7), ([], [])])
def test_previous_is_the_stored_value_or_null(project: Path, kernel, stored, previous) -> None:
    (project / SCORES).parent.mkdir(parents=True)
    (project / SCORES).write_text(json.dumps({"p": stored}))
    result = reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert result.to_json()["previous"] == previous
    assert result.next["updates"] == 1


def test_evidence_parsing() -> None:
    assert parse_evidence(None) == []
    assert parse_evidence("") == []
    assert parse_evidence(" a ,, b,\u00a0c\u00a0,") == ["a", "b", "c"]
    assert parse_evidence(["x", " ", " y"]) == ["x", "y"]


def _hold_lock(project: Path, pid: int) -> None:
    lock = project / ".bmad/memory/writer.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(json.dumps({"pid": pid, "hostname": socket.gethostname(), "token": "t"}))


def test_the_lock_is_taken_before_the_pattern_is_checked(project: Path, kernel) -> None:
    _hold_lock(project, os.getpid())  # a live owner
    before = tree_bytes(project)
    with pytest.raises(MemError) as info:
        reinforce(None, directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert info.value.message == LOCKED
    assert tree_bytes(project) == before


def test_a_lock_left_by_a_dead_process_is_taken_over(project: Path, kernel, capfd) -> None:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(proc.stdout)
    _hold_lock(project, dead)
    result = reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert result.next["updates"] == 1
    assert (
        capfd.readouterr().err == f"mem: took over a stale writer.lock (owner pid {dead} on this host is not running)\n"
    )
    assert (project / SCORES).exists()
    assert not (project / ".bmad" / "memory" / "writer.lock").exists()


def test_unknown_signal_is_refused_before_anything_is_written(project: Path, kernel) -> None:
    with pytest.raises(MemError, match=r"^unknown reward signal 'review' \(known: eval, accept, ci\)$"):
        reinforce("p", directory=str(project), signals={"review": "1"}, now=T, kernel=kernel)
    assert tree_bytes(project) == {}


def test_the_public_api_name_is_the_function() -> None:
    import mem_core
    import mem_core.api.reinforce  # noqa: F401  (importing the module must not shadow the function)

    assert mem_core.reinforce is reinforce
    from mem_core import ReinforceResult as exported

    assert exported is ReinforceResult


def test_a_promotion_store_with_an_incomplete_line_fails_before_the_score_is_written(project: Path, kernel) -> None:
    # (improve, v0.2) bmad-plus mem has already replaced the scores when the append is refused
    for _ in range(2):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    (project / PROMOTIONS).write_text('{"partial"')
    with pytest.raises(MemError, match="^Memory store has an incomplete final line; inspect it before writing.$"):
        reinforce("p", directory=str(project), signals=FULL, now=T, kernel=kernel)
    assert json.loads((project / SCORES).read_text())["p"]["updates"] == 2
    assert (project / PROMOTIONS).read_text() == '{"partial"'
