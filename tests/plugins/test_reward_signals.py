"""The reward-signal plugins: the three defaults against ``bmad-plus mem``'s
parsing, and a signal added by a plugin (``review``, weight 0.4) in both
``write`` and ``reinforce``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mem_core import hookimpl, reinforce
from mem_core.api.signals import compute_reward, parse_signals
from mem_core.errors import PluginError
from mem_core.js.jsonfmt import dumps
from mem_core.js.numbers import clamp01, js_to_number
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.plugin import RewardSignal
from tests.conftest import tree_bytes

T = "2026-10-18T09:31:00.000Z"

# option text -> what bmad-plus mem's parseSignals records for --eval, --accept, --ci (node v20)
PARSED = [
    ("0.5", '{"evalScore":0.5,"acceptance":0.5,"ci":0.5}'),
    ("", '{"evalScore":0,"acceptance":0,"ci":0}'),
    (" ", '{"evalScore":0,"acceptance":0,"ci":0}'),
    ("abc", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("1e400", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("-0", '{"evalScore":0,"acceptance":0,"ci":0}'),
    ("0x1F", '{"evalScore":31,"acceptance":31,"ci":31}'),
    ("TRUE", '{"evalScore":null,"acceptance":true,"ci":null}'),
    ("Yes", '{"evalScore":null,"acceptance":true,"ci":null}'),
    ("no", '{"evalScore":null,"acceptance":false,"ci":null}'),
    ("FALSE", '{"evalScore":null,"acceptance":false,"ci":null}'),
    ("pass", '{"evalScore":null,"acceptance":null,"ci":"pass"}'),
    ("fail", '{"evalScore":null,"acceptance":null,"ci":"fail"}'),
    ("PASS", '{"evalScore":null,"acceptance":null,"ci":null}'),
    (" pass", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("\u00a0 2 ", '{"evalScore":2,"acceptance":2,"ci":2}'),
    ("Infinity", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("infinity", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("-3", '{"evalScore":-3,"acceptance":-3,"ci":-3}'),
    (".5", '{"evalScore":0.5,"acceptance":0.5,"ci":0.5}'),
    ("5.", '{"evalScore":5,"acceptance":5,"ci":5}'),
    ("0b101", '{"evalScore":5,"acceptance":5,"ci":5}'),
    ("1_0", '{"evalScore":null,"acceptance":null,"ci":null}'),
    ("\ufeff0.25", '{"evalScore":0.25,"acceptance":0.25,"ci":0.25}'),
]


def test_the_default_signals(kernel: Kernel) -> None:
    registry = kernel.reward_signals
    assert registry.names() == ["eval", "accept", "ci"]
    rows = [(cls.signal_key(), cls.weight, registry.provider(name)) for name, cls in registry.items()]
    assert rows == [
        ("evalScore", 0.5, "signal_eval"),
        ("acceptance", 0.3, "signal_accept"),
        ("ci", 0.2, "signal_ci"),
    ]
    assert all(cls.help for _, cls in registry.items())


@pytest.mark.parametrize(("raw", "recorded"), PARSED)
def test_default_signals_parse_as_the_reference(kernel: Kernel, raw: str, recorded: str) -> None:
    assert dumps(parse_signals(kernel, {"eval": raw, "accept": raw, "ci": raw})) == recorded


@pytest.mark.parametrize(
    ("signal", "recorded", "value"),
    [
        ("eval", 0.25, 0.25),
        ("eval", math.inf, 1.0),  # Number("Infinity"): null in JSON, yet a full reward, as in the reference
        ("eval", math.nan, 0.0),
        ("eval", -2.0, 0.0),
        ("accept", True, 1.0),
        ("accept", False, 0.0),
        ("accept", 0.75, 0.75),
        ("accept", 3.0, 1.0),
        ("ci", "pass", 1.0),
        ("ci", "fail", 0.0),
        ("ci", 0.5, 0.5),
        ("ci", math.nan, 0.0),
    ],
)
def test_default_signal_values(kernel: Kernel, signal: str, recorded, value: float) -> None:
    assert kernel.reward_signals.get(signal)().value(recorded) == value


def test_disabling_a_default_signal_removes_its_option(monkeypatch: pytest.MonkeyPatch, mem, project: Path) -> None:
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "testranker,signal_ci")
    run = mem("reinforce", "--pattern", "p", "--ci", "pass", cwd=project, env={"MEM_NOW": T})
    assert (run.code, run.err) == (1, "mem reinforce: unknown reward signal 'ci' (known: eval, accept)\n")
    assert tree_bytes(project) == {}


# -- a signal added by a plugin ----------------------------------------------


class ReviewSignal(RewardSignal):
    """A code reviewer's verdict: approve | reject | [0, 1]."""

    name = "review"
    weight = 0.4
    help = "Code review: approve | reject | [0,1] (reward signal, weight 0.4)"

    def parse(self, raw: str):
        return raw if raw in ("approve", "reject") else js_to_number(raw)

    def value(self, recorded) -> float:
        if recorded == "approve":
            return 1.0
        if recorded == "reject":
            return 0.0
        return clamp01(recorded)


class ReviewPlugin:
    @hookimpl
    def mem_register_reward_signals(self):
        return [ReviewSignal]


@hookimpl
def mem_register_reward_signals():
    """This module is a plugin too, for the command line: ``MEM_PLUGINS`` names it."""
    return [ReviewSignal]


def _manager_with_review(**kwargs):
    pm = make_plugin_manager(**kwargs)
    pm.register(ReviewPlugin(), name="review")
    return pm


@pytest.fixture
def review_kernel() -> Kernel:
    """A fresh kernel: the defaults plus the in-test ``review`` signal."""
    return Kernel(_manager_with_review(entry_points=False))


@pytest.fixture
def with_review(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kernel the CLI builds in this test has the ``review`` signal:
    the ``plugins`` setting names this module (nothing outlives the test)."""
    monkeypatch.setenv("MEM_PLUGINS", __name__)


def test_a_plugin_signal_takes_part_in_the_reward(review_kernel: Kernel) -> None:
    assert review_kernel.reward_signals.names() == ["eval", "accept", "ci", "review"]
    recorded = parse_signals(review_kernel, {"ci": "pass", "review": "0.8"})
    assert dumps(recorded) == '{"ci":"pass","review":0.8}'
    assert compute_reward(review_kernel, recorded) == (0.2 * 1 + 0.4 * 0.8) / (0.2 + 0.4)
    assert compute_reward(review_kernel, {"review": "reject"}) == 0
    assert compute_reward(review_kernel, {"evalScore": 1.0, "review": "approve"}) == 1


def test_a_plugin_signal_in_the_api(project: Path, review_kernel: Kernel) -> None:
    result = reinforce(
        "p", directory=str(project), signals={"accept": "no", "review": "approve"}, now=T, kernel=review_kernel
    )
    assert result.reward == 0.4 / (0.3 + 0.4)
    assert result.signals == {"acceptance": False, "review": "approve"}


def test_review_signal_in_reinforce_and_write(with_review, mem, project: Path) -> None:
    run = mem("reinforce", "--pattern", "p", "--ci", "pass", "--signal", "review=0.8", cwd=project, env={"MEM_NOW": T})
    assert run.code == 0, run.err
    assert run.out == (
        'mem reinforce: pattern "p"\n'
        '  reward   0.867 (from {"ci":"pass","review":0.8})\n'
        "  elo      1200.0 -> 1211.7\n"
        "  mean     0.622 (alpha=1.87, beta=1.13, updates=1)\n"
        "  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n"
    )
    run = mem(
        "write",
        "--agent",
        "forge",
        "--task",
        "Review me",
        "--signal",
        "review=0.8",
        "--eval",
        "1",
        "--json",
        cwd=project,
        env={"MEM_NOW": T},
    )
    assert run.code == 0, run.err
    event = json.loads(run.out)["written"]
    assert list(event["signals"].items()) == [("evalScore", 1), ("review", 0.8)]
    line = (project / ".bmad/memory/journal.ndjson").read_text()
    assert '"signals":{"evalScore":1,"review":0.8}' in line


def _session(mem, project: Path) -> tuple[list[bytes], dict[str, bytes]]:
    outputs = []
    for args in (
        ("write", "--agent", "forge", "--task", "Add login rate limit", "--ci", "pass", "--accept", "yes"),
        ("reinforce", "--pattern", "Cache shortcut", "--accept", "true", "--ci", "pass", "--evidence", "f60e78136297"),
        ("reinforce", "--pattern", "Cache shortcut", "--eval", "0.9", "--json"),
        ("reinforce", "--pattern", "Cache shortcut", "--accept", "true", "--ci", "pass"),
    ):
        run = mem(*args, cwd=project, env={"MEM_NOW": T})
        assert run.code == 0, run.err
        outputs.append(run.out_bytes)
    return outputs, tree_bytes(project)


def test_without_plugin_signals_everything_is_byte_identical(
    mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    expected = _session(mem, plain)
    assert b"PROPOSED" in expected[1][".bmad/memory/promotions.ndjson"]

    monkeypatch.setenv("MEM_PLUGINS", __name__)
    installed = tmp_path / "installed"
    installed.mkdir()
    assert _session(mem, installed) == expected


def test_duplicate_signal_names_are_refused_naming_both_providers() -> None:
    class AnotherEval(RewardSignal):
        name = "eval"
        weight = 1

        def parse(self, raw):
            return raw

        def value(self, recorded):
            return 0.0

    class Plugin:
        @hookimpl
        def mem_register_reward_signals(self):
            return [AnotherEval]

    pm = make_plugin_manager(entry_points=False)
    pm.register(Plugin(), name="evil")
    with pytest.raises(
        PluginError, match="duplicate reward signal name 'eval': provided by plugin 'signal_eval' and plugin 'evil'"
    ):
        _ = Kernel(pm).reward_signals
