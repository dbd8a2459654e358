"""``mem brief`` and ``mem context --budget``: what they show, what they cut,
the brief file and its refresh."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem_core.api import memories
from mem_core.api.brief import BRIEF_FILE, brief, write_brief
from mem_core.brief.tokens import estimate_tokens
from tests.hooks.conftest import NOW, hooks_log
from tests.humans import signer_for


def promotion(pattern: str, ts: str, status: str = "PROPOSED") -> str:
    return json.dumps({
        "id": "p" + ts[:10], "patternId": pattern, "fromStatus": "candidate", "toStatus": "validated",
        "reason": "posterior mean 0.750 >= 0.7 over 3 update(s)", "evidence": [], "score": None, "ts": ts,
        "status": status, "governedBy": "shield", "approvedBy": None, "approvedAt": None,
    })  # fmt: skip


def test_the_brief_of_the_fixture_project(fixture_project: Path) -> None:
    project = str(fixture_project)
    memories.remember("fact", "api_language", "The API is Python 3.12", priority="critical", directory=project, now=NOW)
    memories.remember(
        "preference",
        "commits",
        "Small commits",
        priority="high",
        as_user=True,
        signer=signer_for(project),
        directory=project,
        now=NOW,
    )
    memories.remember("note", "lunch", "Pizza on Fridays", directory=project, now=NOW)  # normal: not in the brief
    (fixture_project / ".bmad/memory/promotions.ndjson").write_text(
        promotion("Outbox for domain events", "2026-10-20T00:00:00.000Z") + "\n"
        + promotion("Old pattern", "2026-10-01T00:00:00.000Z", status="APPROVED") + "\n"
    )  # fmt: skip
    result = brief(directory=project, now=NOW)
    text = result.text
    assert text.splitlines()[0] == "# Project memory (mem brief) — read more with `mem recall <topic>`"
    assert "- fact/api_language [unverified]: The API is Python 3.12" in text
    assert "- preference/commits [verified]: Small commits" in text
    assert "lunch" not in text
    assert "## Decisions — .bmad/memory/decisions.md\n- Use Redis for login rate limiting\n" in text
    assert "## Lessons — .bmad/memory/lessons.md" in text and "## Patterns — .bmad/memory/patterns.md" in text
    failures = [line for line in text.splitlines() if line.startswith("- 2026-")]
    assert failures == [
        "- 2026-10-22T18:00:00.000Z failure scout (codex-cli): Outbox worker for domain events",
        "- 2026-10-18T16:00:00.000Z partial forge (claude-code): Replace fixed sleeps in browser tests",
        "- 2026-10-12T14:00:00.000Z failure zecher (cursor): Batch the CSV order import",
        "- 2026-10-05T11:00:00.000Z failure forge (codex-cli): Migrate job queue to BullMQ",
        "- 2026-10-03T10:00:00.000Z partial zecher (gemini-cli): Fix cache zero values in the pricing cache",
    ]
    assert "- Outbox for domain events: candidate → validated, posterior mean 0.750" in text
    assert "Old pattern" not in text
    assert result.fitted.omitted_total == 0 and "more:" not in text
    assert text.index("Critical memories") < text.index("High memories") < text.index("Decisions")


def test_a_small_budget_cuts_and_counts(fixture_project: Path) -> None:
    result = brief(directory=str(fixture_project), budget=120, now=NOW)
    assert estimate_tokens(result.text) <= 120
    omitted = result.fitted.omitted_total
    assert omitted > 0
    assert result.text.splitlines()[-1] == f"… {omitted} more: mem recall <topic>"
    data = result.to_json()
    assert data["omitted"] == omitted and data["budget"] == 120 and data["tokens"] <= 120
    assert sum(s["omitted"] for s in data["sections"]) == omitted


def test_the_cli_brief_text_and_json(mem, fixture_project: Path) -> None:
    run = mem("brief", "-d", str(fixture_project), env={"MEM_NOW": NOW})
    assert run.code == 0, run.err
    assert run.out == brief(directory=str(fixture_project), now=NOW).text + "\n"
    data = json.loads(mem("brief", "--json", "--budget", "90", "-d", str(fixture_project)).out)
    assert data["budget"] == 90 and data["tokens"] <= 90
    assert [s["name"] for s in data["sections"]][:1] == ["notes:.bmad/memory/decisions.md"]
    bad = mem("brief", "--budget", "lots", "-d", str(fixture_project))
    assert (bad.code, bad.err) == (1, "mem brief: --budget must be a whole number of tokens >= 0\n")
    assert mem("brief", "--budget", "-3", "--json", "-d", str(fixture_project)).out == (
        '{"error":"--budget must be a whole number of tokens >= 0"}\n'
    )


def test_the_budget_defaults_to_the_setting(mem, fixture_project: Path) -> None:
    (fixture_project / ".bmad/memory/mem.toml").write_text("context_budget = 70\n")
    data = json.loads(mem("brief", "--json", "-d", str(fixture_project)).out)
    assert data["budget"] == 70 and data["tokens"] <= 70 and data["omitted"] > 0


def test_an_empty_project_says_so(mem, project: Path) -> None:
    result = brief(directory=str(project), now=NOW)
    assert result.empty and "nothing in memory yet" in result.text


def test_an_unsafe_note_is_skipped_and_named(mem, fixture_project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("### Secret\n")
    (fixture_project / ".bmad/memory/patterns.md").unlink()
    os.symlink(outside, fixture_project / ".bmad/memory/patterns.md")
    run = mem("brief", "-d", str(fixture_project))
    assert run.code == 0
    assert "Secret" not in run.out
    assert run.err.startswith("mem brief: skipped .bmad/memory/patterns.md: ")


def test_write_keeps_the_file_and_write_and_remember_refresh_it(mem, fixture_project: Path) -> None:
    run = mem("brief", "--write", "--budget", "400", "-d", str(fixture_project))
    assert run.code == 0, run.err
    path = fixture_project / BRIEF_FILE
    assert run.out.startswith("mem brief: wrote .bmad/memory/brief.md (")
    text = path.read_text()
    assert (
        text.splitlines()[0]
        == "<!-- written by `mem brief --write --budget 400`; mem write and mem remember refresh it -->"
    )
    assert estimate_tokens(text.rstrip("\n")) <= 400
    assert "Deploy the new search index" not in text
    assert mem("write", "--agent", "forge", "--task", "Deploy the new search index", "--outcome", "failure",
               "-d", str(fixture_project)).code == 0  # fmt: skip
    assert "failure forge: Deploy the new search index" in path.read_text()
    assert path.read_text().splitlines()[0].endswith("--budget 400`; mem write and mem remember refresh it -->")
    assert mem("remember", "fact", "region", "We deploy to eu-west-1", "--priority", "critical",
               "-d", str(fixture_project)).code == 0  # fmt: skip
    assert "- fact/region [unverified]: We deploy to eu-west-1" in path.read_text()
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]


def test_without_the_file_nothing_is_written(mem, fixture_project: Path) -> None:
    assert mem("write", "--agent", "forge", "-d", str(fixture_project)).code == 0
    assert not (fixture_project / BRIEF_FILE).exists()


def test_a_failed_refresh_never_fails_the_write(mem, fixture_project: Path) -> None:
    write_brief(directory=str(fixture_project), now=NOW)
    (fixture_project / ".bmad/memory/lessons.md").write_bytes(b"### bad \xff\n")  # skipped, fine
    (fixture_project / ".bmad/memory/memories.sqlite3").write_bytes(b"this is not a database" * 100)
    run = mem("write", "--agent", "forge", "--task", "still written", "-d", str(fixture_project))
    assert run.code == 0, run.err
    assert "still written" in (fixture_project / ".bmad/memory/journal.ndjson").read_text()
    log = hooks_log(fixture_project)
    assert len(log) == 1 and "brief: refreshing .bmad/memory/brief.md failed: " in log[0]


def test_context_keeps_within_its_budget(mem, project: Path) -> None:
    for i in range(30):
        memories.remember("fact", f"fact_{i:02d}", f"Fact number {i} about the system", directory=str(project), now=NOW)
    full = memories.context_summary(directory=str(project), now=NOW, budget=100000)
    assert full.omitted == 0 and "more:" not in full.text
    cut = memories.context_summary(directory=str(project), now=NOW, budget=120)
    assert estimate_tokens(cut.text) <= 120
    assert cut.text.startswith("Mind: default\nMemories: 30 total (0 verified, 30 unverified)\n\n[001] fact")
    assert cut.text.splitlines()[-1] == f"… {cut.omitted} more: mem memories"
    assert len(cut.memories) + cut.omitted == 30
    data = json.loads(mem("context", "--budget", "120", "--json", "-d", str(project)).out)
    assert list(data) == ["mind", "total", "verified", "unverified", "memories", "omitted", "budget", "text"]
    assert data["text"] == cut.text and data["omitted"] == cut.omitted
    text = mem("context", "--budget", "120", "-d", str(project)).out
    assert text == cut.text + "\n"
    assert mem("context", "--budget", "0", "-d", str(project)).out == "\n"
    assert mem("context", "--budget", "x", "-d", str(project)).err == (
        "mem context: --budget must be a whole number of tokens >= 0\n"
    )


NOTE = st.text(st.sampled_from(list("abcdefgh ijklmnop   xyz0123.,;-_\n")), min_size=1, max_size=80)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    headings=st.lists(NOTE, max_size=40),
    contents=st.lists(st.tuples(NOTE, st.sampled_from(["critical", "high", "normal"])), max_size=12),
    failures=st.lists(NOTE, max_size=15),
    budget=st.integers(0, 400),
)
def test_brief_and_context_never_exceed_their_budget(
    tmp_path_factory, headings: list[str], contents: list, failures: list[str], budget: int
) -> None:
    project = tmp_path_factory.mktemp("random")
    memory = project / ".bmad" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text("".join(f"### {h.strip() or 'x'}\nbody\n" for h in headings))
    (memory / "journal.ndjson").write_text("".join(
        json.dumps({"ts": f"2026-10-{i % 28 + 1:02d}T00:00:00.000Z", "agent": "a", "task": t, "outcome": "failure"}) + "\n"
        for i, t in enumerate(failures)
    ))  # fmt: skip
    for i, (content, priority) in enumerate(contents):
        if content.strip():
            memories.remember("fact", f"k{i}", content, priority=priority, directory=str(project), now=NOW)
    result = brief(directory=str(project), budget=budget, now=NOW)
    assert estimate_tokens(result.text) <= budget
    summary = memories.context_summary(directory=str(project), budget=budget, now=NOW)
    assert estimate_tokens(summary.text) <= budget
    shutil.rmtree(project)
