"""The context summary, byte for byte (structured-memory.md, "context summary")."""

from __future__ import annotations

from pathlib import Path

import pytest

from mem_core.api import memories as service
from mem_core.memories.results import ContextSummary, Memory
from tests.humans import signer_for

MIND = "Michael's Mind"

#: the beginning of the spec's example, verbatim
SPEC_EXAMPLE = """\
Mind: Michael's Mind
Memories: 12 total (10 verified, 2 unverified)

[001] identity (CRITICAL) [verified]
  user_name
  Michael Schäfer
  Tags: person, identity

[002] preference (HIGH) [verified]
  communication_style
  Prefers concise technical responses
  Tags: communication
"""

#: (category, key, content, tags, priority, verified, stored at) — 12 current
#: memories of the spec's mind, 10 verified, 2 not
SET = [
    ("note", "redis_caching", "Try Redis for caching next sprint", ["redis", "caching"], "low", True, "2026-10-01T09:00:00.000Z"),
    ("fact", "coffee", "Drinks espresso", [], "low", True, "2026-09-01T09:00:00.000Z"),
    ("project", "docs_site", "Docs site runs on Astro", ["docs"], "low", True, "2026-09-01T09:00:00.000Z"),
    ("identity", "user_role", "Software engineer", ["person"], "normal", True, "2026-10-02T09:00:00.000Z"),
    ("context", "current_review", "Reviewing PR #42", [], "normal", False, "2026-10-03T09:00:00.000Z"),
    ("preference", "prefers_dark_mode", "Uses dark mode everywhere", ["ui"], "normal", True, "2026-10-04T09:00:00.000Z"),
    ("mistake", "mistake_npm_version", "NPM version not bumped — CI failed", ["npm", "ci"], "normal", True, "2026-10-05T09:00:00.000Z"),
    ("skill", "python_level", "Advanced Python, 10+ years", ["python"], "normal", True, "2026-10-06T09:00:00.000Z"),
    ("fact", "office_location", "Office in Berlin, time zone Europe/Berlin", ["berlin", "office"], "normal", True, "2026-10-07T09:00:00.000Z"),
    ("project", "synapse_status", "v1.5.0 deployed, working on v1.6.0 docs", ["synapse", "deployment"], "high", False, "2026-10-08T09:00:00.000Z"),
    ("preference", "communication_style", "Prefers concise technical responses", ["communication"], "high", True, "2026-10-09T09:00:00.000Z"),
    ("identity", "user_name", "Michael Schäfer", ["person", "identity"], "critical", True, "2026-10-10T09:00:00.000Z"),
]  # fmt: skip

EXPECTED = (
    SPEC_EXAMPLE
    + """
[003] project (HIGH) [unverified]
  synapse_status
  v1.5.0 deployed, working on v1.6.0 docs
  Tags: synapse, deployment

[004] fact (NORMAL) [verified]
  office_location
  Office in Berlin, time zone Europe/Berlin
  Tags: berlin, office

[005] skill (NORMAL) [verified]
  python_level
  Advanced Python, 10+ years
  Tags: python

[006] mistake (NORMAL) [verified]
  mistake_npm_version
  NPM version not bumped — CI failed
  Tags: npm, ci

[007] preference (NORMAL) [verified]
  prefers_dark_mode
  Uses dark mode everywhere
  Tags: ui

[008] context (NORMAL) [unverified]
  current_review
  Reviewing PR #42
  Tags: -

[009] identity (NORMAL) [verified]
  user_role
  Software engineer
  Tags: person

[010] note (LOW) [verified]
  redis_caching
  Try Redis for caching next sprint
  Tags: redis, caching

[011] fact (LOW) [verified]
  coffee
  Drinks espresso
  Tags: -

[012] project (LOW) [verified]
  docs_site
  Docs site runs on Astro
  Tags: docs"""
)

NOW = "2026-11-05T12:00:00.000Z"


def store_set(project: Path) -> None:
    for category, key, content, tags, priority, verified, at in SET:
        service.remember(category, key, content, tags=tags, priority=priority, mind=MIND, as_user=verified,
                     signer=signer_for(project) if verified else None,
                     directory=str(project), now=at)  # fmt: skip
    # not part of the summary: an expired memory, and one of another mind
    service.remember("context", "meeting_topic", "Discussing Q3 roadmap", priority="critical", mind=MIND,
                 expires="2026-11-01", directory=str(project), now="2026-10-20T09:00:00.000Z")  # fmt: skip
    service.remember("identity", "user_name", "Somebody else", priority="critical", directory=str(project), now=NOW)


def test_the_spec_example_byte_for_byte(project: Path) -> None:
    store_set(project)
    summary = service.context_summary(mind=MIND, directory=str(project), now=NOW)
    assert summary.text == EXPECTED
    assert summary.text.startswith(SPEC_EXAMPLE)
    assert (summary.total, summary.verified, summary.unverified) == (12, 10, 2)


def test_the_expired_memory_is_back_before_it_expires(project: Path) -> None:
    store_set(project)
    summary = service.context_summary(mind=MIND, directory=str(project), now="2026-10-31T23:59:59.999Z")
    assert summary.text.splitlines()[:4] == [
        "Mind: Michael's Mind",
        "Memories: 13 total (10 verified, 3 unverified)",
        "",
        "[001] context (CRITICAL) [unverified]",
    ]


def test_limit_shows_fewer_blocks_with_the_same_counts(project: Path) -> None:
    store_set(project)
    summary = service.context_summary(mind=MIND, limit="2", directory=str(project), now=NOW)
    assert summary.text == SPEC_EXAMPLE.rstrip("\n")
    assert service.context_summary(mind=MIND, limit=0, directory=str(project), now=NOW).text == (
        "Mind: Michael's Mind\nMemories: 12 total (10 verified, 2 unverified)"
    )


def test_json_carries_the_counts_the_memories_and_the_text(project: Path) -> None:
    store_set(project)
    data = service.context_summary(mind=MIND, directory=str(project), now=NOW).to_json()
    assert list(data) == ["mind", "total", "verified", "unverified", "memories", "text"]
    assert (data["mind"], data["total"], data["verified"], data["unverified"]) == (MIND, 12, 10, 2)
    assert [m["key"] for m in data["memories"]][:3] == ["user_name", "communication_style", "synapse_status"]
    assert data["text"] == EXPECTED


def test_multi_line_content_stays_inside_its_block(project: Path) -> None:
    service.remember("note", "steps", "first line\r\nsecond line\n\n  indented", directory=str(project), now=NOW)
    assert service.context_summary(directory=str(project), now=NOW).text == (
        "Mind: default\n"
        "Memories: 1 total (0 verified, 1 unverified)\n"
        "\n"
        "[001] note (NORMAL) [unverified]\n"
        "  steps\n"
        "  first line\n"
        "  second line\n"
        "  \n"
        "    indented\n"
        "  Tags: -"
    )


@pytest.mark.parametrize("count", [999, 1000])
def test_numbers_keep_three_digits_then_grow(count: int) -> None:
    memory = Memory(
        {"id": "mem_1", "category": "note", "key": "k", "content": "v", "tags": [], "priority": "low",
         "source": "agent", "verified": False, "verification": "unsigned", "confidence": 0.7, "expires_at": None,
         "mind_id": "m", "created_at": NOW, "updated_at": NOW}
    )  # fmt: skip
    summary = ContextSummary(
        mind="m", total=count, verified=0, unverified=count, memories=[memory] * count, store="project"
    )
    assert summary.text.splitlines()[-4] == f"[{count}] note (LOW) [unverified]"
    assert summary.text.splitlines()[3] == "[001] note (LOW) [unverified]"


def test_equal_priority_and_time_fall_back_to_category_then_key(project: Path) -> None:
    for category, key in [("note", "b"), ("fact", "z"), ("note", "a")]:
        service.remember(category, key, "same time", directory=str(project), now=NOW)
    blocks = [
        line
        for line in service.context_summary(directory=str(project), now=NOW).text.splitlines()
        if line.startswith("[")
    ]
    keys = [line for line in service.context_summary(directory=str(project), now=NOW).text.splitlines() if line in ("  a", "  b", "  z")]  # fmt: skip
    assert blocks == ["[001] fact (NORMAL) [unverified]", "[002] note (NORMAL) [unverified]", "[003] note (NORMAL) [unverified]"]  # fmt: skip
    assert keys == ["  z", "  a", "  b"]
