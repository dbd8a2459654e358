"""Ranker ``evidence``: lexical recall re-weighted by evidence receipts
(mem-cli.md §7).

``mem recall <query> --ranking evidence --context-scope a,b`` scores like
``lexical``, but reads every source under the store's safety rules (an unsafe
file is an error, not a skip), then, candidate by candidate:

* events, and notes without a receipt on their (file, heading), are kept with
  ``"evidence": {"status": "unverified", …}``;
* a note whose receipts are all ineligible for the context scope (stale,
  superseded, contradicted, outside the scope …) is dropped: a dead anchor
  never falls back to an authoritative note;
* a note with current receipts scores ×1.25 and lists them.

Reinforcement scores never influence this ranking.
"""

from __future__ import annotations

from mem_core import hookimpl
from mem_core.errors import MemError
from mem_core.interfaces import Candidate, Ranker, RecallRequest

PROJECT_ONLY = "Evidence ranking supports project-local lexical recall only."


class EvidenceRanker(Ranker):
    name = "evidence"
    help = "lexical, ×1.25 for notes with current accepted-outcome receipts (needs --context-scope)"

    def validate(self, request: RecallRequest) -> None:
        """Project scope only; sources are then read strictly. The context
        scope is checked after the sources are read, as ``bmad-plus mem`` does."""
        if request.scope != "project":
            raise MemError(PROJECT_ONLY)
        request.strict = True

    def rank(self, request: RecallRequest, candidates: list[Candidate]) -> list[Candidate]:
        from mem_core.evidence.api import rank_with_evidence
        from mem_plugins.rankers.lexical import score_candidates

        kernel = getattr(request, "kernel", None)
        ranked = rank_with_evidence(
            request.project, score_candidates(request, candidates), request.context_scope, kernel=kernel
        )
        return sorted(ranked, key=lambda c: -c.score)


@hookimpl
def mem_register_rankers() -> list[type[Ranker]]:
    return [EvidenceRanker]
