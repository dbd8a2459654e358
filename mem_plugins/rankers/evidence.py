"""Ranker ``evidence``: lexical recall re-weighted by evidence receipts
(mem-cli.md §7).

``mem recall <query> --ranking evidence --context-scope a,b`` scores like
``lexical`` (it asks the ``lexical`` ranker), but has every source read under
the store's safety rules (an unsafe file is an error, not a skip), then,
candidate by candidate:

* events, and notes without a receipt on their (file, heading), are kept with
  ``"evidence": {"status": "unverified", …}``;
* a note whose receipts are all ineligible for the context scope (stale,
  superseded, contradicted, outside the scope …) or were taken on another
  text of the section is dropped: a dead anchor never falls back to an
  authoritative note;
* a note with current receipts scores ×(1 + 0.25 × reward) and lists them.

Reinforcement scores never influence this ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mem_core.plugin import Candidate, MemError, Query, RankContext, Ranker, Scored

if TYPE_CHECKING:
    from typing import Any

PROJECT_ONLY = "Evidence ranking supports project-local lexical recall only."
#: score multiplier of a note with current evidence is ``1 + BOOST × reward``
BOOST = 0.25
#: ``computeReward({acceptance: true})``: an accepted outcome is full acceptance
ACCEPTED_REWARD = 1
UNVERIFIED = {"status": "unverified", "receiptIds": [], "boost": 0}


class EvidenceRanker(Ranker):
    name = "evidence"
    help = "lexical, ×1.25 for notes with current accepted-outcome receipts (needs --context-scope)"
    strict_sources = True
    needs_query_match = True

    def validate(self, query: Query) -> None:
        """Project scope only. The context scope is checked after the sources
        are read, as ``bmad-plus mem`` does."""
        if query.scope != "project":
            raise MemError(PROJECT_ONLY)

    def rank(self, query: Query, candidates: Sequence[Candidate], context: RankContext) -> list[Scored]:
        # JavaScript's values, when this ranker ranks: a recall by another
        # ranker imports none of them (nor json, which they need)
        from mem_core.plugin import UNDEFINED, digest, js_string, prop, strict_equal

        def anchor(receipt: Any) -> str:
            memory = prop(receipt, "memory")
            return js_string(prop(memory, "file")) + "\0" + js_string(prop(memory, "heading"))

        position = {id(candidate): index for index, candidate in enumerate(candidates)}
        lexical = context.ranker("lexical").rank(query.replace(limit=len(candidates)), candidates, context)
        lexical.sort(key=lambda scored: position[id(scored.candidate)])  # back to the sources' order
        receipts = context.receipts(query.context_scope)
        by_anchor: dict[str, list[dict[str, Any]]] | None = None
        ranked = []
        for scored in lexical:
            fields = scored.candidate.fields
            matching: list[dict[str, Any]] = []
            if fields.get("kind") == "note":
                if by_anchor is None:  # each note's receipts, in file order, found once
                    by_anchor = {}
                    for receipt in receipts:
                        by_anchor.setdefault(anchor(receipt), []).append(receipt)
                key = js_string(fields.get("sourceFile", UNDEFINED)) + "\0" + js_string(fields.get("ref", UNDEFINED))
                matching = by_anchor.get(key, [])
            if not matching:
                ranked.append(Scored(scored.candidate, scored.score, {"evidence": dict(UNVERIFIED, receiptIds=[])}))
                continue
            text_sha = digest(fields.get("text", ""))
            eligible = [
                receipt
                for receipt in matching
                if receipt["eligible"] and strict_equal(prop(receipt["memory"], "textSha256"), text_sha)
            ]
            if not eligible:
                continue  # a stale, contradicted or superseded anchor never falls back to an authoritative note
            evidence = {
                "status": "accepted-current",
                "receiptIds": [receipt["id"] for receipt in eligible],
                "reward": ACCEPTED_REWARD,
                "boost": BOOST,
                "lessonCausality": "unmeasured",
            }
            boosted = scored.score * (1 + BOOST * ACCEPTED_REWARD)
            ranked.append(Scored(scored.candidate, boosted, {"lexicalScore": scored.score, "evidence": evidence}))
        return sorted(ranked, key=lambda scored: -scored.score)
