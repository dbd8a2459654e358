"""The structured-memory API (mem_core.api.memories): the model's fields and
defaults, store-or-update by key, history, trust, expiry, validation."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from mem_core.api import memories as service
from mem_core.errors import MemError
from mem_core.humans.keys import HumanKey
from mem_core.humans.proof import NO_HUMAN
from mem_core.memories.records import FIELDS
from mem_core.memories.results import Memory
from mem_core.memories.validate import parse_duration
from tests.conftest import NOW
from tests.humans import trusted_key

DB = Path(".bmad/memory/memories.sqlite3")
LATER = "2026-11-06T08:30:00.000Z"


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


def test_an_agent_memory_gets_the_spec_defaults(project: Path, now: str) -> None:
    result = service.remember("fact", "office_city", "  Berlin office  ", directory=str(project))
    data = result.to_json()
    assert list(data) == ["memory", "created"] and data["created"] is True
    memory = data["memory"]
    shown = list(FIELDS)
    shown.insert(shown.index("verified") + 1, "verification")
    assert list(memory) == shown
    assert re.fullmatch(r"mem_[0-9a-f]{16}", memory["id"])
    assert {k: v for k, v in memory.items() if k != "id"} == {
        "category": "fact",
        "key": "office_city",
        "content": "Berlin office",
        "tags": [],
        "priority": "normal",
        "source": "agent",
        "verified": False,
        "verification": "unsigned",
        "confidence": 0.7,
        "expires_at": None,
        "mind_id": "default",
        "created_at": NOW,
        "updated_at": NOW,
    }
    assert (project / DB).is_file()


def test_storing_the_same_key_again_updates_and_the_history_keeps_the_old_value(project: Path, now: str) -> None:
    first = service.remember("project", "synapse_status", "v1.4.0 deployed", priority="high", directory=str(project))
    second = service.remember(
        "project", "synapse_status", "v1.5.0 deployed", priority="high", tags=["Synapse"], directory=str(project),
        now=LATER,
    )  # fmt: skip
    assert second.created is False and second.changed is True
    assert second.memory.id == first.memory.id
    assert second.memory.content == "v1.5.0 deployed" and second.memory.tags == ["synapse"]
    assert second.memory.created_at == NOW and second.memory.updated_at == LATER
    listed = service.list_memories(directory=str(project), now=LATER)
    assert [m.content for m in listed.memories] == ["v1.5.0 deployed"]
    history = service.memory_history("project/synapse_status", directory=str(project))
    assert [(e.action, e.at, e.memory.content) for e in history.entries] == [
        ("create", NOW, "v1.4.0 deployed"),
        ("update", LATER, "v1.5.0 deployed"),
    ]


def test_an_update_keeps_what_it_does_not_mention(project: Path, now: str) -> None:
    service.remember("note", "k", "one", tags=["a", "b"], priority="critical", confidence="0.9", expires="2027-01-01",
                 directory=str(project))  # fmt: skip
    updated = service.remember("note", "k", "two", directory=str(project), now=LATER).memory
    assert (updated.content, updated.tags, updated.priority, updated.confidence, updated.expires_at) == (
        "two", ["a", "b"], "critical", 0.9, "2027-01-01T00:00:00.000Z",
    )  # fmt: skip
    assert updated.updated_at == LATER
    retagged = service.remember("note", "k", "two", tags=["c"], priority="low", directory=str(project)).memory
    assert (retagged.tags, retagged.priority, retagged.confidence) == (["c"], "low", 0.9)
    cleared = service.remember("note", "k", "two", no_tags=True, no_expiry=True, directory=str(project)).memory
    assert (cleared.tags, cleared.expires_at, cleared.priority) == ([], None, "low")
    history = service.memory_history("note/k", directory=str(project)).entries
    assert [(e.version, e.action) for e in history] == [(1, "create"), (2, "update"), (3, "update"), (4, "update")]


def test_clearing_and_setting_the_same_field_is_refused(project: Path, now: str) -> None:
    with pytest.raises(MemError) as caught:
        service.remember("note", "k", "one", tags=["a"], no_tags=True, directory=str(project))
    assert caught.value.message == "--tag and --no-tags cannot be used together"
    with pytest.raises(MemError) as caught:
        service.remember("note", "k", "one", expires="7d", no_expiry=True, directory=str(project))
    assert caught.value.message == "--expires and --no-expiry cannot be used together"
    assert not (project / DB).exists()


def test_storing_the_same_values_again_writes_nothing(project: Path, now: str) -> None:
    service.remember("fact", "k", "same", tags=["x"], confidence="0.5", directory=str(project))
    before = dump(project / DB)
    again = service.remember("fact", "k", "same", tags=["X"], directory=str(project), now=LATER)
    assert (again.created, again.changed) == (False, False)
    assert again.memory.updated_at == NOW and again.memory.confidence == 0.5
    assert dump(project / DB) == before


def test_keys_are_unique_per_mind_and_category(project: Path, now: str) -> None:
    service.remember("fact", "k", "default mind", directory=str(project))
    service.remember("fact", "k", "other mind", mind="Michael's Mind", directory=str(project))
    service.remember("note", "k", "other category", directory=str(project))
    assert [m.content for m in service.list_memories(directory=str(project)).memories] == [
        "default mind",
        "other category",
    ]
    other = service.list_memories(mind="Michael's Mind", directory=str(project)).memories
    assert [(m.content, m.mind_id) for m in other] == [("other mind", "Michael's Mind")]


def test_tags_are_lower_cased_split_on_commas_and_de_duplicated(project: Path, now: str) -> None:
    memory = service.remember("fact", "k", "v", tags=["Docker,SWARM", "docker", " Ops "], directory=str(project)).memory
    assert memory.tags == ["docker", "swarm", "ops"]
    assert [m.key for m in service.list_memories(tag="DOCKER", directory=str(project)).memories] == ["k"]
    with pytest.raises(MemError, match="--tag filters on one tag"):
        service.list_memories(tag="ops,swarm", directory=str(project))


# -- trust ----------------------------------------------------------------------


def test_a_memory_stored_as_the_user_is_signed_and_verified_with_full_confidence(
    project: Path, now: str, signer: HumanKey
) -> None:
    memory = service.remember(
        "identity", "user_name", "Michael", as_user=True, signer=signer, directory=str(project)
    ).memory
    assert (memory.source, memory.verified, memory.verification, memory.confidence) == ("user", True, "signed", 1.0)
    with closing(sqlite3.connect(project / DB)) as conn:
        rows = conn.execute("SELECT memory_id, by, fingerprint, verified_at FROM signatures").fetchall()
    assert rows == [(memory.id, "ada", signer.fingerprint, NOW)]


def test_the_question_shows_the_whole_content_and_hides_nothing() -> None:
    """A human confirms what is stored: no cut, no terminal escapes, no
    carriage returns or bidirectional overrides that could disguise it."""
    long = "word " * 40 + "end"
    content = f"{long}\nsafe\x1b[8m hidden\x1b[0m\roverwrite \u202eevil"
    question = service.describe(
        {"category": "fact", "key": "k", "content": content, "mind_id": "default\u200b"}, "project"
    )
    assert question == (
        "  fact/k (mind default\\u200b, project store)\n"
        f"  {long}\n"
        "  safe\\x1b[8m hidden\\x1b[0m\\x0doverwrite \\u202eevil"
    )


def test_storing_as_the_user_without_a_human_stores_nothing(project: Path, now: str) -> None:
    with pytest.raises(MemError) as caught:
        service.remember("identity", "user_name", "Michael", as_user=True, interactive=False, directory=str(project))
    assert (
        caught.value.message
        == NO_HUMAN["remember"]
        == (
            "--as-user needs a human: a signature by a trusted human key, or, where no key is trusted, "
            "a confirmation at a terminal; nothing was stored."
        )
    )
    assert not (project / ".bmad").exists()


def test_a_key_that_is_not_trusted_here_proves_nothing(project: Path, now: str, tmp_path: Path) -> None:
    stranger = trusted_key(tmp_path / "elsewhere", "mallory")  # trusted in another project only
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    for call in (
        lambda: service.verify("fact/k", signer=stranger, directory=str(project)),
        lambda: service.remember("fact", "k", "w", as_user=True, signer=stranger, directory=str(project)),
    ):
        with pytest.raises(MemError) as caught:
            call()
        assert caught.value.message.startswith(f"the human key mallory ({stranger.fingerprint}) is not trusted here")
    assert dump(project / DB) == before


def test_an_agent_cannot_change_what_a_human_stated(project: Path, now: str, signer: HumanKey) -> None:
    service.remember("preference", "style", "concise", as_user=True, signer=signer, directory=str(project))
    same = service.remember("preference", "style", "concise", directory=str(project), now=LATER)
    assert (same.changed, same.memory.source, same.memory.verified, same.memory.confidence) == (
        False,
        "user",
        True,
        1.0,
    )
    before = dump(project / DB)
    for change in (
        {"content": "verbose"},
        {"content": "concise", "tags": ["x"]},
        {"content": "concise", "priority": "low"},
    ):
        with pytest.raises(MemError) as caught:
            service.remember("preference", "style", directory=str(project), now=LATER, **change)  # type: ignore[arg-type]
        assert caught.value.message == "preference/style was stated by a human; only a human can change it"
    assert dump(project / DB) == before
    changed = service.remember("preference", "style", "verbose", as_user=True, signer=signer, directory=str(project))
    assert (changed.changed, changed.memory.source, changed.memory.verified) == (True, "user", True)
    assert changed.memory.verification == "signed"


def test_an_agent_update_of_a_verified_agent_memory_makes_it_unverified(
    project: Path, now: str, signer: HumanKey
) -> None:
    stored = service.remember("fact", "db", "sqlite", confidence="0.8", directory=str(project)).memory
    assert service.verify(stored.id, signer=signer, directory=str(project)).memory.verified
    changed = service.remember("fact", "db", "postgres", directory=str(project), now=LATER)
    assert (changed.memory.source, changed.memory.verified, changed.memory.confidence) == ("agent", False, 0.8)
    assert changed.memory.verification == "unsigned"  # its signature went with the change
    history = service.memory_history("fact/db", directory=str(project)).entries
    # every version reads as the memory's signatures say now: none is left
    assert [(e.action, e.memory.content, e.memory.verified) for e in history] == [
        ("create", "sqlite", False),
        ("verify", "sqlite", False),
        ("update", "postgres", False),
    ]


def test_an_agent_update_of_tags_only_makes_a_verified_memory_unverified(
    project: Path, now: str, signer: HumanKey
) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    assert service.verify("fact/k", signer=signer, directory=str(project)).memory.verified
    changed = service.remember("fact", "k", "v", tags=["new"], directory=str(project), now=LATER)
    assert changed.changed and (changed.memory.verified, changed.memory.verification) == (False, "unsigned")


def test_verify_signs_and_keeps_the_rest(project: Path, now: str, signer: HumanKey) -> None:
    stored = service.remember("fact", "k", "v", confidence="0.4", directory=str(project)).memory
    result = service.verify(stored.id, signer=signer, directory=str(project), now=LATER)
    assert result.changed
    assert result.memory == Memory({**stored.record, "verified": True, "verification": "signed"})
    assert result.to_json() == {
        "memory": {**stored.to_json(), "verified": True, "verification": "signed"},
        "changed": True,
    }
    again = service.verify("fact/k", interactive=False, directory=str(project))
    assert again.changed is False  # nothing to prove: it reads verified
    history = service.memory_history(stored.id, directory=str(project)).entries
    assert [(e.action, e.at) for e in history] == [("create", NOW), ("verify", LATER)]


def test_verify_without_a_human_changes_nothing(project: Path, now: str) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    before = dump(project / DB)
    with pytest.raises(MemError) as caught:
        service.verify("fact/k", interactive=False, directory=str(project))
    assert caught.value.message == NO_HUMAN["verify"]
    assert dump(project / DB) == before


def test_verify_refuses_a_memory_that_changed_while_asking(
    project: Path, now: str, signer: HumanKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.remember("fact", "k", "v", directory=str(project))
    proven = service.require_human

    def meanwhile(*args: Any, **kwargs: Any) -> Any:
        proof = proven(*args, **kwargs)
        service.remember("fact", "k", "changed by an agent meanwhile", directory=str(project))
        return proof

    monkeypatch.setattr(service, "require_human", meanwhile)
    with pytest.raises(MemError) as caught:
        service.verify("fact/k", signer=signer, directory=str(project))
    assert caught.value.message == "The memory changed while waiting for confirmation; nothing was changed."
    assert service.list_memories(directory=str(project)).memories[0].verified is False


def test_no_argument_can_set_verified() -> None:
    import inspect

    for function in (service.remember, service.forget, service.verify, service.context_summary):
        # nothing sets verified, and no callback stands in for the human
        assert not {"verified", "confirm", "verification"} & set(inspect.signature(function).parameters)
    with pytest.raises(TypeError):
        service.remember("fact", "k", "v", verified=True)  # type: ignore[call-arg]


# -- forget -----------------------------------------------------------------------


def test_forget_by_reference_or_id_keeps_a_tombstone(project: Path, now: str) -> None:
    a = service.remember("fact", "a", "first", directory=str(project)).memory
    b = service.remember("fact", "b", "second", directory=str(project)).memory
    assert service.forget("fact/a", directory=str(project), now=LATER).to_json() == {"forgotten": a.to_json()}
    assert service.forget(b.id, directory=str(project)).memory == b
    assert service.list_memories(directory=str(project), include_expired=True).memories == []
    assert [e.action for e in service.memory_history(a.id, directory=str(project)).entries] == ["create", "delete"]
    renewed = service.remember("fact", "a", "first", directory=str(project)).memory
    assert renewed.id != a.id


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("fact/missing", "No memory fact/missing in mind default of the project store."),
        ("mem_0123456789abcdef", "No memory mem_0123456789abcdef in the project store."),
        ("nonsense", "a memory is named by its id (mem_…) or <category>/<key> (got 'nonsense')"),
        ("mem_XYZ", "a memory is named by its id (mem_…) or <category>/<key> (got 'mem_XYZ')"),
        ("facts/k", "category must be one of identity, preference, fact, project, skill, mistake, context, note (got 'facts')"),
        ("fact/Key", "key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got 'Key')"),
    ],
)  # fmt: skip
def test_forget_and_verify_name_what_they_cannot_find(project: Path, now: str, ref: str, message: str) -> None:
    for operation in (service.forget, service.verify):
        with pytest.raises(MemError) as caught:
            operation(ref, directory=str(project))
        assert caught.value.message == message
    assert not (project / ".bmad").exists()
    service.remember("fact", "other", "v", directory=str(project))
    before = dump(project / DB)
    for operation in (service.forget, service.verify):
        with pytest.raises(MemError) as caught:
            operation(ref, directory=str(project))
        assert caught.value.message == message
    assert dump(project / DB) == before


# -- expiry -------------------------------------------------------------------------


def test_an_expired_memory_is_hidden_but_kept(project: Path) -> None:
    service.remember("context", "meeting_topic", "Discussing Q3 roadmap", expires="2026-11-05T12:00:00Z",
                 directory=str(project), now="2026-11-04T00:00:00.000Z")  # fmt: skip
    service.remember("fact", "office_city", "Berlin", directory=str(project), now="2026-11-04T00:00:00.000Z")
    before = service.list_memories(directory=str(project), now="2026-11-05T11:59:59.999Z")
    assert [m.key for m in before.memories] == ["meeting_topic", "office_city"]
    after = service.list_memories(directory=str(project), now=NOW)
    assert [m.key for m in after.memories] == ["office_city"]
    assert [m.key for m in service.list_memories(include_expired=True, directory=str(project), now=NOW).memories] == [
        "meeting_topic",
        "office_city",
    ]
    assert [m.key for m in service.expiring_memories("1d", directory=str(project), now=NOW).memories] == [
        "meeting_topic"
    ]
    summary = service.context_summary(directory=str(project), now=NOW)
    assert (summary.total, [m.key for m in summary.memories]) == (1, ["office_city"])
    assert service.search_memories("roadmap", directory=str(project), now=NOW).memories == []
    found = service.search_memories("roadmap", include_expired=True, directory=str(project), now=NOW).memories
    assert [m.key for m in found] == ["meeting_topic"]


def test_expiring_lists_what_expires_within_the_window_soonest_first(project: Path, now: str) -> None:
    for key, expires in [("in_8d", "8d"), ("in_1h", "1h"), ("never", None), ("in_7d", "7d"), ("in_30m", "30m")]:
        service.remember("context", key, key, expires=expires, directory=str(project))
    keys = lambda window: [m.key for m in service.expiring_memories(window, directory=str(project)).memories]  # noqa: E731
    assert keys("7d") == ["in_30m", "in_1h", "in_7d"]
    assert keys("1h") == ["in_30m", "in_1h"]
    assert keys("59m") == ["in_30m"]
    assert keys("2w") == ["in_30m", "in_1h", "in_7d", "in_8d"]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("7d", "2026-11-12T12:00:00.000Z"),
        ("12h", "2026-11-06T00:00:00.000Z"),
        ("30m", "2026-11-05T12:30:00.000Z"),
        ("45s", "2026-11-05T12:00:45.000Z"),
        ("2w", "2026-11-19T12:00:00.000Z"),
        ("2026-12-31", "2026-12-31T00:00:00.000Z"),
        ("2026-12-31T18:00Z", "2026-12-31T18:00:00.000Z"),
        ("2026-12-31T18:00:00.5+02:00", "2026-12-31T16:00:00.500Z"),
        ("2026-06-28T00:00:00Z", "2026-06-28T00:00:00.000Z"),
    ],
)
def test_expires_takes_a_timestamp_or_a_duration(project: Path, now: str, given: str, stored: str) -> None:
    assert service.remember("context", "k", "v", expires=given, directory=str(project)).memory.expires_at == stored


def test_parse_duration() -> None:
    assert [parse_duration(d) for d in ("1s", "30m", "12h", "7d", "1w")] == [
        1000, 1_800_000, 43_200_000, 604_800_000, 604_800_000,
    ]  # fmt: skip
    for bad in ("", "7", "d", "0d", "-1d", "7D", "1.5h", "7 d", " 7d", "7days", "1d12h", "99999999999d"):
        with pytest.raises(MemError):
            parse_duration(bad)


# -- validation: exact messages, nothing written ------------------------------------------

INVALID = [
    (("bogus", "k", "v", {}), "category must be one of identity, preference, fact, project, skill, mistake, context, note (got 'bogus')"),
    (("Fact", "k", "v", {}), "category must be one of identity, preference, fact, project, skill, mistake, context, note (got 'Fact')"),
    (("fact", "Office", "v", {}), "key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got 'Office')"),
    (("fact", "office-city", "v", {}), "key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got 'office-city')"),
    (("fact", "", "v", {}), "key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got '')"),
    (("fact", "k" * 129, "v", {}), "key must be snake_case: 1-128 characters of a-z, 0-9 and _ (got '" + "k" * 39 + "…')"),
    (("fact", "k", "", {}), "content must be non-empty text"),
    (("fact", "k", " \n\t ", {}), "content must be non-empty text"),
    (("fact", "k", "é" * 8193, {}), "content must be at most 16384 bytes of UTF-8 (got 16386)"),
    (("fact", "k", "v", {"priority": "urgent"}), "priority must be one of low, normal, high, critical (got 'urgent')"),
    (("fact", "k", "v", {"priority": "HIGH"}), "priority must be one of low, normal, high, critical (got 'HIGH')"),
    (("fact", "k", "v", {"confidence": "1.5"}), "confidence must be a number from 0 to 1 (got '1.5')"),
    (("fact", "k", "v", {"confidence": "-0.1"}), "confidence must be a number from 0 to 1 (got '-0.1')"),
    (("fact", "k", "v", {"confidence": "high"}), "confidence must be a number from 0 to 1 (got 'high')"),
    (("fact", "k", "v", {"confidence": "nan"}), "confidence must be a number from 0 to 1 (got 'nan')"),
    (("fact", "k", "v", {"expires": "7x"}), "--expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) or a duration like 7d, 12h or 30m (got '7x')"),
    (("fact", "k", "v", {"expires": "2026-02-30"}), "--expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) or a duration like 7d, 12h or 30m (got '2026-02-30')"),
    (("fact", "k", "v", {"expires": "2026-12-31T18:00:00"}), "--expires must be an ISO-8601 date or time (2026-12-31, 2026-12-31T18:00:00Z) or a duration like 7d, 12h or 30m (got '2026-12-31T18:00:00')"),
    (("fact", "k", "v", {"expires": "9999999999w"}), "--expires must fall between 1970-01-01 and 9999-12-31"),
    (("fact", "k", "v", {"tags": ["t" * 65]}), "tag must be at most 64 characters (got 65: '" + "t" * 39 + "…')"),
    (("fact", "k", "v", {"tags": ["two words"]}), "tag must have a letter or digit and no spaces or commas (got 'two words')"),
    (("fact", "k", "v", {"tags": ["ok,"]}), "tag must have a letter or digit and no spaces or commas (got '')"),
    (("fact", "k", "v", {"tags": ["--"]}), "tag must have a letter or digit and no spaces or commas (got '--')"),
    (("fact", "k", "v", {"tags": [f"t{i}" for i in range(33)]}), "a memory has at most 32 tags (got 33)"),
    (("fact", "k", "v", {"mind": " padded"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got ' padded')"),
    (("fact", "k", "v", {"mind": ""}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got '')"),
    (("fact", "k", "v", {"mind": "a\nb"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got 'a\\x0ab')"),
    (("fact", "k", "v", {"mind": "defau\u200blt"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got 'defau\\u200blt')"),
    (("fact", "k", "v", {"mind": "Ada\u202e"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got 'Ada\\u202e')"),
    (("fact", "k", "v", {"mind": "Ada\u00a0Mind"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got 'Ada\u00a0Mind')"),
    (("fact", "k", "v", {"mind": "\x1b[1mboss"}), "mind must be 1-64 visible characters (no control, zero-width or bidirectional characters, no surrounding spaces) (got '\\x1b[1mboss')"),
    (("fact", "k", "v", {"tags": ["a\u200bb"]}), "tag must have a letter or digit and no spaces or commas (got 'a\\u200bb')"),
    (("fact", "k", "v", {"tags": ["x\u2066y"]}), "tag must have a letter or digit and no spaces or commas (got 'x\\u2066y')"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), INVALID)
def test_invalid_input_is_refused_with_its_message_and_changes_nothing(
    project: Path, now: str, args: tuple, message: str
) -> None:
    service.remember("fact", "k", "the original", directory=str(project))
    before = dump(project / DB)
    *positional, options = args
    with pytest.raises(MemError) as caught:
        service.remember(*positional, directory=str(project), **options)
    assert caught.value.message == message
    assert dump(project / DB) == before


def test_invalid_input_creates_no_store(project: Path, now: str) -> None:
    with pytest.raises(MemError):
        service.remember("fact", "k", "v", confidence="2", directory=str(project))
    assert list(project.iterdir()) == []


def test_a_boundary_content_and_tag_are_accepted(project: Path, now: str) -> None:
    memory = service.remember("fact", "k" * 128, "é" * 8192, tags=["t" * 64, "c++", "v1.5.0"], confidence="0",
                          directory=str(project)).memory  # fmt: skip
    assert len(memory.key) == 128 and memory.confidence == 0.0 and memory.tags == ["t" * 64, "c++", "v1.5.0"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"search": " !!! "}, "--search needs at least one word of letters or digits (got ' !!! ')"),
        ({"expiring": "soon"}, "--expiring must be a duration like 7d, 12h or 30m (got 'soon')"),
        ({"category": "facts"}, "category must be one of identity, preference, fact, project, skill, mistake, context, note (got 'facts')"),
        ({"source": "human"}, "source must be user or agent (got 'human')"),
        ({"priority": "top"}, "priority must be one of low, normal, high, critical (got 'top')"),
        ({"limit": "-1"}, "--limit must be a non-negative integer"),
    ],
)  # fmt: skip
def test_invalid_listing_options(project: Path, now: str, options: dict, message: str) -> None:
    with pytest.raises(MemError) as caught:
        service.list_memories(directory=str(project), **options)
    assert caught.value.message == message


def test_an_unknown_backend_is_named(project: Path, now: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_STORE", "mongo")
    with pytest.raises(MemError) as caught:
        service.remember("fact", "k", "v", directory=str(project))
    assert caught.value.message == "unknown memory store 'mongo' (set MEM_STORE to one of: sqlite, postgres, server)"
    assert not (project / ".bmad").exists()


# -- stores ---------------------------------------------------------------------------


def test_the_user_store_lives_in_the_user_directory(project: Path, now: str, tmp_path: Path) -> None:
    result = service.remember("identity", "user_name", "Michael", user=True, directory=str(project))
    assert result.store == "user"
    assert (tmp_path / "user-store" / "memories.sqlite3").is_file()
    assert not (project / ".bmad").exists()
    assert [m.key for m in service.list_memories(user=True).memories] == ["user_name"]
    assert service.list_memories(directory=str(project)).memories == []


def test_the_user_directory_defaults_to_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    from platformdirs import user_data_dir

    from mem_core.memories.records import user_store_dir

    monkeypatch.delenv("MEM_USER_DIR")
    assert user_store_dir() == user_data_dir("mem", appauthor=False)


def test_reading_a_project_without_a_store_creates_nothing(project: Path, now: str) -> None:
    assert service.list_memories(directory=str(project)).to_json() == {"count": 0, "memories": []}
    assert (
        service.context_summary(directory=str(project)).text
        == "Mind: default\nMemories: 0 total (0 verified, 0 unverified)"
    )
    assert list(project.iterdir()) == []


def test_search_finds_words_of_keys_content_and_tags_within_a_tag(project: Path, now: str) -> None:
    service.remember("project", "swarm_setup", "Docker swarm on three nodes", tags=["docker"], directory=str(project))
    service.remember("note", "k8s", "Maybe leave swarm for kubernetes", tags=["k8s"], directory=str(project))
    service.remember("fact", "user_name", "Michael Schäfer", directory=str(project))
    assert [m.key for m in service.search_memories("swarm", directory=str(project)).memories] == ["swarm_setup", "k8s"]
    assert [m.key for m in service.search_memories("swarm", tag="k8s", directory=str(project)).memories] == ["k8s"]
    assert [m.key for m in service.search_memories("name schafer", directory=str(project)).memories] == ["user_name"]
    assert [m.key for m in service.search_memories("DOCKER nodes", directory=str(project)).memories] == ["swarm_setup"]


def test_a_memory_is_made_only_from_a_judged_record() -> None:
    """The result carries the spec's fields in order, ``verification`` after
    ``verified``; a record whose signatures were never checked (no
    ``verification``) cannot become one."""
    good = {
        "id": "mem_00", "category": "fact", "key": "k", "content": "v", "tags": [], "priority": "normal",
        "source": "agent", "verified": False, "confidence": 0.7, "expires_at": None, "mind_id": "default",
        "created_at": NOW, "updated_at": NOW, "verification": "unsigned",
    }  # fmt: skip
    assert Memory(good).to_json() == {k: good[k] for k in (*FIELDS[:8], "verification", *FIELDS[8:])}
    assert list(Memory(good).to_json()) == [*FIELDS[:8], "verification", *FIELDS[8:]]
    with pytest.raises(KeyError):
        Memory({k: v for k, v in good.items() if k != "verification"})
