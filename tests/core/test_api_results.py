"""Every API result: ``count`` where it is a list, ``to_dict()`` of plain
values (numbers of their kind), a copy the caller may change."""

from __future__ import annotations

import json
from pathlib import Path

from mem_core import list_memories, outcomes, recall, reinforce, remember, write
from mem_core.js.values import UNDEFINED
from mem_core.plain import plain

PLAIN = (dict, list, str, bool, int, float, type(None))


def _all_plain(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _all_plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_all_plain(v) for v in value)
    return isinstance(value, PLAIN)


def test_results_have_count_and_plain_dicts(bmad_project: Path, now: str) -> None:
    d = str(bmad_project)
    found = recall("cache values", directory=d, ranking="evidence", context_scope="work")
    assert found.count == 4 == found.to_dict()["count"] == len(found.results)  # the receipts are bound to /srv
    first = found.to_dict()["results"][0]
    assert type(first["score"]) is float and type(first["evidence"]["boost"]) is float
    written = write(agent="a", directory=d, signals={"eval": "1"}).to_dict()["written"]
    assert written["signals"] == {"evalScore": 1.0} and type(written["signals"]["evalScore"]) is float
    result = reinforce("Cache shortcut", directory=d, signals={"accept": "true"})
    data = result.to_dict()
    assert type(data["previous"]["updates"]) is int and data["previous"]["updates"] == 3
    assert type(data["next"]["updates"]) is int and type(data["next"]["elo"]) is float
    assert type(data["next"]["beta"]) is float and type(data["reward"]) is float
    assert data["promotion"]["score"]["updates"] == 4 and type(data["promotion"]["score"]["updates"]) is int
    receipts = outcomes(directory=d)
    assert receipts.count == 2 and receipts.to_dict()["count"] == 2
    remember("fact", "k", "v", directory=d)
    listing = list_memories(directory=d)
    assert listing.count == 1 and type(listing.to_dict()["memories"][0]["confidence"]) is float
    for value in (found, result, receipts, listing):
        out = value.to_dict()
        assert _all_plain(out)
        json.dumps(out)  # plain values only
    copy = found.to_dict()
    copy["results"].clear()
    assert found.count == 4 and found.to_dict()["count"] == 4


def test_plain_leaves_text_numbers_and_undefined_as_json_does() -> None:
    assert plain({"updates": "51", "elo": 1216, "a": UNDEFINED, "b": [UNDEFINED, 2.0]}) == {
        "updates": "51",
        "elo": 1216.0,
        "b": [None, 2.0],
    }
    assert type(plain({"updates": 3.0})["updates"]) is int
    assert type(plain({"updates": 2.5})["updates"]) is float
    assert plain({"verified": True, "count": 2.0}) == {"verified": True, "count": 2}
