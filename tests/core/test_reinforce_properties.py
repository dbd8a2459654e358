"""Properties of ``mem reinforce`` over arbitrary input (hypothesis), driven
through the real command line and the API."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_core.api.reinforce import reinforce
from mem_core.errors import MemError
from mem_core.js.jsmath import js_pow

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
NOW = "2026-10-18T09:31:00.000Z"

#: option text: anything, plus the words the signals understand
signal_text = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "true",
            "false",
            "yes",
            "no",
            "TRUE",
            "pass",
            "fail",
            "0",
            "1",
            "0.5",
            "-3",
            "1e400",
            "Infinity",
            "0x1F",
            "",
            " ",
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
signals = st.fixed_dictionaries({}, optional={"eval": signal_text, "accept": signal_text, "ci": signal_text})
#: instants as milliseconds since 2026-01-01, in any order
instants = st.integers(min_value=0, max_value=2 * 365 * 86_400_000)


def _iso(offset_ms: int) -> str:
    from mem_core.clock import format_ms, parse_ms

    return format_ms(parse_ms("2026-01-01T00:00:00.000Z") + offset_ms)  # type: ignore[operator]


def _options(given: dict[str, str]) -> list[str]:
    return [token for name, value in given.items() for token in (f"--{name}", value)]


@SETTINGS
@given(steps=st.lists(st.tuples(signals, instants), min_size=1, max_size=6))
def test_reward_mean_and_elo_over_any_sequence(mem, steps) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for given_signals, offset in steps:
            run = mem(
                "reinforce",
                "--pattern",
                "P",
                "--json",
                *_options(given_signals),
                "-d",
                tmp,
                env={"MEM_NOW": _iso(offset)},
            )
            assert run.code == 0, run.out
            result = json.loads(run.out)
            reward = result["reward"]
            assert 0 <= reward <= 1
            score = result["next"]
            assert 0 < score["mean"] < 1
            assert score["alpha"] >= 1 and score["beta"] >= 1
            # elo moves toward the reward: up when it beats the expectation, down when not
            old_elo = 1200.0 if result["previous"] is None else result["previous"]["elo"]
            expected = 1 / (1 + js_pow(10.0, (1200 - old_elo) / 400))
            moved = score["elo"] - old_elo
            assert moved * (reward - expected) >= 0
            assert abs(moved) <= 32
            if reward == 1:
                assert moved > 0
            if reward == 0:
                assert moved < 0


#: command-line words: options of every action, flags, and arbitrary text —
#: but never -d/--directory, so nothing can be written outside the project
words = st.one_of(
    st.sampled_from(
        [
            "reinforce",
            "--pattern",
            "--eval",
            "--accept",
            "--ci",
            "--evidence",
            "--signal",
            "--json",
            "--agent",
            "--limit",
            "--scope",
            "--",
            "-x",
            "--eval=",
            "--pattern=",
            "--signal=eval=1",
            "--json=1",
            "eval=0.5",
            "P",
        ]
    ),
    signal_text,
).filter(lambda w: not w.startswith(("-d", "--directory", "-h", "--help")))


def _check_files(project: Path) -> None:
    promotions = project / ".bmad/memory/promotions.ndjson"
    if promotions.exists():
        # lines end at "\n" only: str.splitlines would also cut at the U+0085
        # or U+2028 a pattern name may hold (JSON.stringify leaves them raw)
        for line in filter(None, promotions.read_text().split("\n")):
            record = json.loads(line)
            assert (record["status"], record["approvedBy"], record["approvedAt"]) == ("PROPOSED", None, None)
            assert (record["fromStatus"], record["toStatus"], record["governedBy"]) == (
                "candidate",
                "validated",
                "shield",
            )
    scores = project / ".bmad/memory/pattern-scores.json"
    if scores.exists():
        assert isinstance(json.loads(scores.read_text()), dict)
    assert not (project / ".bmad/memory/writer.lock").exists()


@SETTINGS
@given(argv=st.lists(words, max_size=10), repeat=st.integers(min_value=1, max_value=4))
def test_any_command_line_gives_a_message_never_a_traceback(mem, argv, repeat) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            run = mem("reinforce", *argv, cwd=Path(tmp), env={"MEM_NOW": NOW})
            assert run.code in (0, 1)
            assert "Traceback" not in run.err
            if run.code == 1:
                if '{"error":' in run.out:
                    assert run.out.count("\n") == 1 and run.err == ""
                elif run.err.startswith("error: "):  # a usage error, worded as commander words it
                    lines = run.err.splitlines()
                    assert len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("(Did you mean"))
                else:
                    assert run.err.startswith("mem reinforce: ") and run.err.count("\n") == 1
        _check_files(Path(tmp))


@SETTINGS
@given(
    pattern=st.one_of(
        st.none(), st.text(max_size=20), st.sampled_from(["__proto__", "toString", "0", "01", "constructor"])
    ),
    given_signals=signals,
    evidence=st.one_of(st.none(), st.text(max_size=30), st.lists(st.text(max_size=8), max_size=4)),
    calls=st.integers(min_value=1, max_value=4),
)
def test_the_api_raises_only_mem_errors_and_proposes_only(pattern, given_signals, evidence, calls) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(calls):
            try:
                result = reinforce(pattern, directory=tmp, signals=given_signals, evidence=evidence, now=NOW)
            except MemError:
                continue
            assert 0 <= result.reward <= 1
            if result.promotion is not None:
                assert result.promotion["status"] == "PROPOSED"
                assert all(item and item == item.strip() for item in result.promotion["evidence"])
        _check_files(Path(tmp))
