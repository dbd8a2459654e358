"""The reward and the score update (docs/contract.md §4), against values computed by
``bmad-plus mem``'s own functions under node v20."""

from __future__ import annotations

import math

import pytest

from mem_core.api.signals import compute_reward, parse_signals
from mem_core.errors import PluginError
from mem_core.js.jsonfmt import dumps
from mem_core.js.numbers import js_add, js_to_number
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.reinforcement.reward import initial_score, update_score

T0 = "2026-01-01T00:00:00.000Z"

# (options given, recorded signals as JSON, reward) — computeReward under node
REWARDS = [
    ({}, "{}", 0),
    ({"accept": "true", "ci": "pass"}, '{"acceptance":true,"ci":"pass"}', 1),
    ({"eval": "0.4"}, '{"evalScore":0.4}', 0.4),
    ({"eval": "abc", "ci": "pass"}, '{"evalScore":null,"ci":"pass"}', 0.28571428571428575),
    ({"accept": "-3"}, '{"acceptance":-3}', 0),
    ({"eval": "2"}, '{"evalScore":2}', 1),
    ({"eval": "0.7", "accept": "no", "ci": "0.3"}, '{"evalScore":0.7,"acceptance":false,"ci":0.3}', 0.41),
    ({"eval": "0.9", "accept": "0.25", "ci": "fail"}, '{"evalScore":0.9,"acceptance":0.25,"ci":"fail"}', 0.525),
    ({"eval": "0.1", "ci": "0.7"}, '{"evalScore":0.1,"ci":0.7}', 0.27142857142857146),
    ({"accept": "YES", "ci": "fail"}, '{"acceptance":true,"ci":"fail"}', 0.6),
    ({"ci": "PASS"}, '{"ci":null}', 0),
    ({"eval": ""}, '{"evalScore":0}', 0),
]


@pytest.mark.parametrize(("given", "recorded", "reward"), REWARDS)
def test_reward_is_the_renormalised_weighted_mean(kernel: Kernel, given, recorded, reward) -> None:
    signals = parse_signals(kernel, given)
    assert dumps(signals) == recorded
    assert compute_reward(kernel, signals) == reward


def test_a_recorded_none_counts_as_absent(kernel: Kernel) -> None:
    assert compute_reward(kernel, {"evalScore": None, "ci": "pass"}) == 1


def test_a_signal_with_a_broken_weight_is_named(kernel: Kernel) -> None:
    from mem_core import hookimpl
    from mem_core.plugin import RewardSignal

    class Heavy(RewardSignal):
        name = "heavy"
        weight = -1

        def parse(self, raw):
            return raw

        def value(self, recorded):
            return 1.0

    class Plugin:
        @hookimpl
        def mem_register_reward_signals(self):
            return [Heavy]

    pm = make_plugin_manager(entry_points=False)
    pm.register(Plugin(), name="heavyplugin")
    with pytest.raises(PluginError, match=r"reward signal 'heavy' from plugin 'heavyplugin' has an invalid weight -1"):
        compute_reward(Kernel(pm), {})


# (previous, reward, now, next) — updatePatternScore under node
UPDATES = [
    (None, 1, T0, {"elo": 1216, "alpha": 2, "beta": 1, "mean": 0.6666666666666666, "updates": 1, "lastTs": T0}),
    # 90 days later: the evidence above the prior halves before the update
    (
        {"elo": 1200, "alpha": 3, "beta": 1, "mean": 0.75, "updates": 2, "lastTs": T0},
        1,
        "2026-04-01T00:00:00.000Z",
        {
            "elo": 1216,
            "alpha": 2.98,
            "beta": 1,
            "mean": 0.7487437185929648,
            "updates": 3,
            "lastTs": "2026-04-01T00:00:00.000Z",
        },
    ),
    # 180 days later: a quarter of it is left
    (
        {"elo": 1200, "alpha": 3, "beta": 1, "mean": 0.75, "updates": 2, "lastTs": T0},
        1,
        "2026-06-30T00:00:00.000Z",
        {
            "elo": 1216,
            "alpha": 2.49,
            "beta": 1,
            "mean": 0.7134670487106017,
            "updates": 3,
            "lastTs": "2026-06-30T00:00:00.000Z",
        },
    ),
    # a clock earlier than lastTs: no time decay, lastTs moves back
    (
        {"elo": 1200, "alpha": 3, "beta": 1, "mean": 0.75, "updates": 2, "lastTs": "2026-02-01T00:00:00.000Z"},
        1,
        T0,
        {"elo": 1216, "alpha": 3.96, "beta": 1, "mean": 0.7983870967741935, "updates": 3, "lastTs": T0},
    ),
    # Math.pow as node computes it: Python's ** is one ulp off on both powers here
    (
        {"elo": 1159.06, "alpha": 3.5, "beta": 1, "updates": 2, "lastTs": "2025-05-25T15:42:59.216Z"},
        1,
        T0,
        {
            "elo": 1176.9366787849176,
            "alpha": 2.448911303130012,
            "beta": 1,
            "mean": 0.7100534307471277,
            "updates": 3,
            "lastTs": T0,
        },
    ),
    # extra keys are not carried into the new score
    (
        {
            "elo": 1337.5,
            "alpha": 7.25,
            "beta": 2.5,
            "mean": 0.7,
            "updates": 9,
            "lastTs": "2025-12-25T06:30:00.000Z",
            "extra": 1,
        },
        0.8,
        T0,
        {
            "elo": 1341.0790002259635,
            "alpha": 7.6156535418580775,
            "beta": 2.5957568500459383,
            "mean": 0.745798400962912,
            "updates": 10,
            "lastTs": T0,
        },
    ),
    # JavaScript arithmetic on values another tool wrote
    (
        {"elo": "5", "alpha": None, "beta": True, "updates": None, "lastTs": None},
        0.5,
        T0,
        {
            "elo": "515.967099444398947",
            "alpha": 0.52,
            "beta": 1.5,
            "mean": 0.25742574257425743,
            "updates": 1,
            "lastTs": T0,
        },
    ),
    (
        {"elo": [], "updates": "2", "lastTs": 1763337600000},
        0.25,
        T0,
        {
            "elo": "7.968031968031968",
            "alpha": 1.25,
            "beta": 1.75,
            "mean": 0.4166666666666667,
            "updates": "21",
            "lastTs": T0,
        },
    ),
    (
        {"alpha": {}, "beta": [3], "elo": None},
        0,
        T0,
        {"elo": -0.03196803196803197, "alpha": None, "beta": 3.96, "mean": None, "updates": 1, "lastTs": T0},
    ),
    (
        {"elo": 1e300, "alpha": -1, "beta": -1, "updates": 1, "lastTs": None},
        1,
        T0,
        {
            "elo": 1e300,
            "alpha": 0.040000000000000036,
            "beta": -0.96,
            "mean": -0.04347826086956526,
            "updates": 2,
            "lastTs": T0,
        },
    ),
]


@pytest.mark.parametrize(("previous", "reward", "now", "expected"), UPDATES)
def test_update_matches_the_reference_bit_for_bit(previous, reward, now, expected) -> None:
    assert dumps(update_score(previous, reward, now)) == dumps(expected)


def test_the_fixture_pattern_is_reproduced_update_by_update() -> None:
    score = None
    for now in ("2026-10-18T09:31:00.000Z", "2026-10-25T09:31:00.000Z", "2026-11-02T09:31:00.000Z"):
        score = update_score(score, 1.0, now)
    assert score == {
        "elo": 1245.8278203282016,
        "alpha": 3.77706081070642,
        "beta": 1,
        "mean": 0.7906662611958414,
        "updates": 3,
        "lastTs": "2026-11-02T09:31:00.000Z",
    }


def test_a_reward_outside_the_unit_interval_is_clamped() -> None:
    assert update_score(None, 7, T0) == update_score(None, 1, T0)
    assert update_score(None, math.nan, T0) == update_score(None, 0, T0)


def test_a_stored_value_that_is_not_an_object_starts_from_the_prior() -> None:
    for previous in (5, "abc", [1, 2], True):
        assert update_score(previous, 0.5, T0) == update_score(None, 0.5, T0)


def test_initial_score_is_fresh_each_time() -> None:
    first = initial_score()
    first["elo"] = 0
    assert initial_score()["elo"] == 1200


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (None, 0),
        (True, 1),
        (False, 0),
        ("", 0),
        (" 12 ", 12),
        ("0x10", 16),
        ([], 0),
        ([5], 5),
        ([1, 2], math.nan),
        ({}, math.nan),
    ],
)
def test_js_to_num_is_javascripts_number(value, number) -> None:
    result = js_to_number(value)
    assert (math.isnan(result) and math.isnan(number)) or result == number


@pytest.mark.parametrize(
    ("left", "total"),
    [(1, 2.5), (None, 1.5), (True, 2.5), ("5", "51.5"), ([], "1.5"), ([1, 2], "1,21.5"), ({}, "[object Object]1.5")],
)
def test_js_add_concatenates_like_javascript(left, total) -> None:
    assert js_add(left, 1.5) == total
