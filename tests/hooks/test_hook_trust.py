"""Each result the prompt hook injects says what it is worth as evidence:
``verified``, ``receipt: accepted-current`` or ``unverified`` (issue 19)."""

from __future__ import annotations

from pathlib import Path

from mem_core.api import memories
from mem_core.hooks.prompt import prompt_context
from tests.nexus_builder import relocate


def test_receipts_and_verification_label_the_results(bmad_project: Path, now: str) -> None:
    relocate(bmad_project)  # the receipts of tests/fixtures, current for this copy
    memories.remember("fact", "cache_values", "Cache values are kept for an hour", directory=str(bmad_project))
    context = prompt_context("cache values", project=str(bmad_project), floor=0.0, budget=2000, kernel=None)
    lines = [line for line in context.text.splitlines() if line.startswith("- ")]
    labels = {line.split("] [", 1)[1].split("]", 1)[0] for line in lines}
    assert labels == {"receipt: accepted-current", "unverified"}, context.text
    assert "§ Cache contract [0.95] [receipt: accepted-current]" in context.text  # its receipt is current
    assert "§ Cache shortcut [1.02] [unverified]" in context.text  # no receipt
    assert "memory fact/cache_values [1.07] [unverified]: Cache values are kept for an hour" in context.text
    (bmad_project / ".bmad/memory/outcomes.ndjson").unlink()
    context = prompt_context("cache values", project=str(bmad_project), floor=0.0, budget=2000, kernel=None)
    assert "receipt: accepted-current" not in context.text and "[unverified]" in context.text


def test_a_verified_memory_says_so() -> None:
    from mem_core.api.trust import trust
    from mem_core.retrieval.query import Candidate, Scored

    def memory(verified: bool) -> Scored:
        return Scored(Candidate("k\nv", {"kind": "memory", "ref": "fact/k", "verified": verified}), 1.0)

    assert (trust(memory(True), set()), trust(memory(False), set())) == ("verified", "unverified")
