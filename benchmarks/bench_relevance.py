"""Relevance benchmark (issue 13 item 7, issue 19 item 7): does search find
what people type?

Two corpora of different kinds (``relevance/corpus.py``):

* ``npm-docs`` — npm's own documentation (``relevance/npm-docs/``), 1 271
  sections split at its headings, questions in ``relevance/queries.jsonl``;
* ``attrs-changelog`` — a project's journal: attrs' changelog
  (``relevance/attrs-changelog/``), 262 change items whose headings say
  only release, date, category and issue, questions in
  ``relevance/attrs-changelog-queries.jsonl``.

The questions are phrased as an agent would ask them, each with the id of
the section that answers it (a section repeating that section's text word
for word answers it too). They were written from the section list before
any ranker was run on them; every other one is ``held-out`` and was never
looked at while changing a ranker.

For each question it asks

* ``mem recall --ranking lexical`` (the reference's score) and
  ``mem recall --ranking bm25`` over the sections as ``### `` notes,
* ``mem recall --ranking hybrid`` (bm25 fused with the embeddings extra's
  model; skipped, and said, without the extra) — with the model's load
  time and the first build of its embedding index (sections a second),
  and, with ``--weights``, the fusion weights to choose from on the tuning
  half (docs/recall.md),
* ``mem memories --search`` over the sections stored as memories (SQLite),

and reports recall@5 (the right section among the first 5) and MRR@10 (the
mean of 1/rank of the right section among the first 10, 0 when absent), for
the tuning half, the held-out half and all. Aim (held-out): bm25 recall@5 ≥
0.85 and MRR ≥ 0.70, memories --search recall@5 ≥ 0.80.

Usage: ``python benchmarks/bench_relevance.py [--corpus NAME] [--split held-out|tune|all] [--json PATH] [--misses] [--weights W,…]``
(every corpus unless ``--corpus`` names one).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "relevance"))
sys.path.insert(0, str(HERE.parent))

import corpus  # noqa: E402

NOW = "2026-11-05T12:00:00.000Z"
DEPTH = 10
QUERIES = corpus.CORPORA["npm-docs"].queries


def load_queries(split: str = "all", name: str = "npm-docs") -> list[dict[str, str]]:
    """The questions on corpus ``name`` of one half (or all)."""
    path = corpus.CORPORA[name].queries
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if split in ("all", row["split"])]


class Corpus:
    """A corpus written once as a notes project and as a memories project."""

    def __init__(self, root: Path, name: str = "npm-docs") -> None:
        from mem_core.kernel import resolve

        self.spec = corpus.CORPORA[name]
        self.sections = self.spec.load()
        self.same = corpus.same_text(self.sections)
        self.notes_project = root / "notes"
        self.memories_project = root / "memories"
        self.notes_project.mkdir()
        self.memories_project.mkdir()
        self.by_heading = corpus.write_notes(self.notes_project, self.sections, self.spec.files)
        self.by_key = corpus.write_memories(self.memories_project, self.sections, NOW)
        self.kernel, _ = resolve(str(self.notes_project), None)

    def recall(self, ranking: str) -> Callable[[str], list[str]]:
        from mem_core.api.recall import recall

        def ask(query: str) -> list[str]:
            result = recall(
                query, directory=str(self.notes_project), ranking=ranking, limit=DEPTH, now=NOW, kernel=self.kernel
            )
            return [self.by_heading[(hit.fields["source"], hit.fields["ref"])] for hit in result.results]

        return ask

    def memories_search(self) -> Callable[[str], list[str]]:
        from mem_core.api.memories import search_memories

        def ask(query: str) -> list[str]:
            try:
                result = search_memories(
                    query, directory=str(self.memories_project), limit=DEPTH, now=NOW, kernel=self.kernel
                )
            except Exception as exc:  # a refused search text finds nothing
                if type(exc).__name__ != "MemError":
                    raise
                return []
            return [self.by_key[memory.key] for memory in result.memories]

        return ask


def rank_of(found: Sequence[str], right: frozenset[str]) -> int | None:
    """The 1-based rank of the first right section among ``found``."""
    for position, section in enumerate(found, 1):
        if section in right:
            return position
    return None


def evaluate(ask: Callable[[str], list[str]], queries: list[dict[str, str]], same: dict[str, frozenset[str]]) -> dict:
    ranks = []
    started = time.perf_counter()
    for row in queries:
        ranks.append(rank_of(ask(row["query"]), same[row["id"]]))
    elapsed = time.perf_counter() - started
    n = len(queries) or 1
    return {
        "queries": len(queries),
        "recall@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "mrr@10": sum(1 / r for r in ranks if r is not None) / n,
        "ms_per_query": 1000 * elapsed / n,
        "ranks": ranks,
    }


def hybrid_costs(built: Corpus, root: Path) -> tuple[dict[str, float], Callable[[str], list[str]]] | None:
    """Model load, a first build of the embedding index (a cache of its
    own, so nothing is warm), and the ranking to evaluate; ``None``
    without the embeddings extra."""
    from mem_core.embeddings import missing

    if missing():
        return None
    import os

    os.environ["MEM_CACHE_DIR"] = str(root / "cache")
    os.environ["MEM_EMBEDDINGS_BUILD"] = (
        "foreground"  # the first build is measured here, not left to a background process
    )
    import sqlite3

    from mem_core.embeddings.model import load_embedder
    from mem_core.embeddings.store import index_path
    from mem_core.kernel import resolve

    started = time.perf_counter()
    load_embedder()
    load = time.perf_counter() - started
    built.kernel, _ = resolve(str(built.notes_project), None)  # the cache directory set above
    ask = built.recall("hybrid")
    started = time.perf_counter()
    ask("first build")  # embeds every section
    build = time.perf_counter() - started
    with sqlite3.connect(index_path(str(root / "cache"), str(built.notes_project))) as conn:
        (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
    costs = {"model_load_s": load, "sections": count, "sections_per_s": count / build}
    return costs, ask


def run(
    root: Path, splits: Sequence[str], weights: Sequence[float] = (), name: str = "npm-docs"
) -> dict[str, dict[str, dict]]:
    import os

    built = Corpus(root, name)
    systems = {
        "lexical": built.recall("lexical"),
        "bm25": built.recall("bm25"),
        "memories --search": built.memories_search(),
    }
    hybrid = hybrid_costs(built, root)
    costs = None
    if hybrid is not None:
        costs, systems["hybrid"] = hybrid
    report: dict[str, dict[str, dict]] = {}
    for system, ask in systems.items():
        ask("warm up")
        report[system] = {split: evaluate(ask, load_queries(split, name), built.same) for split in splits}
    if hybrid is not None:
        from mem_core.kernel import resolve

        for weight in weights:  # what the weight setting would give (choose it on the tuning half)
            os.environ["MEM_RECALL_HYBRID_WEIGHT"] = repr(weight)
            built.kernel, _ = resolve(str(built.notes_project), None)
            ask = built.recall("hybrid")
            report[f"hybrid w={weight}"] = {
                split: evaluate(ask, load_queries(split, name), built.same) for split in splits
            }
        os.environ.pop("MEM_RECALL_HYBRID_WEIGHT", None)
    if costs is not None:
        report["hybrid"]["costs"] = costs
    return report


def show(name: str, report: dict[str, dict[str, dict]], splits: Sequence[str], misses: bool) -> dict | None:
    """The table of one corpus (and its misses); returns the hybrid's
    costs, taken out of ``report``."""
    costs = report.get("hybrid", {}).pop("costs", None)
    spec = corpus.CORPORA[name]
    print(f"relevance: {len(spec.load())} sections of {spec.what}, questions in {spec.queries.name}")
    print(f"{'system':<20} {'split':<9} {'queries':>7} {'recall@5':>9} {'MRR@10':>7} {'ms/query':>9}")
    for system, by_split in report.items():
        for split, figures in by_split.items():
            print(
                f"{system:<20} {split:<9} {figures['queries']:>7} {figures['recall@5']:>9.3f} "
                f"{figures['mrr@10']:>7.3f} {figures['ms_per_query']:>9.1f}"
            )
    if costs is not None:
        print(
            f"hybrid: model load {costs['model_load_s']:.2f} s (in process, cold imports; about 0 when an earlier "
            f"corpus loaded it); first index build {costs['sections']} sections at "
            f"{costs['sections_per_s']:.1f} sections/s"
        )
    else:
        print("hybrid: not measured (the embeddings extra is not installed)")
    if misses:
        for system, by_split in report.items():
            split = splits[-1]
            for row, rank in zip(load_queries(split, name), by_split[split]["ranks"], strict=True):
                if rank is None or rank > 5:
                    print(f"  miss {system}: {row['query']!r} -> {row['id']} (rank {rank})")
    return costs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=(*corpus.CORPORA, "all"), default="all", help="only this corpus")
    parser.add_argument("--split", choices=("held-out", "tune", "all"), help="only this half (default: every one)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON (corpus → system → split)")
    parser.add_argument("--misses", action="store_true", help="list the questions each system misses (top 5)")
    parser.add_argument(
        "--weights", metavar="W,…", help="also the hybrid ranking with these bm25 weights (recall_hybrid_weight)"
    )
    args = parser.parse_args(argv)
    splits = [args.split] if args.split else ["tune", "held-out", "all"]
    weights = [float(part) for part in args.weights.split(",")] if args.weights else []
    names = list(corpus.CORPORA) if args.corpus == "all" else [args.corpus]
    reports: dict[str, dict[str, dict[str, dict]]] = {}
    for n, name in enumerate(names):
        if n:
            print()
        with tempfile.TemporaryDirectory(prefix=f"mem-relevance-{name}-") as tmp:
            reports[name] = run(Path(tmp), splits, weights, name)
        costs = show(name, reports[name], splits, args.misses)
        if costs is not None:
            reports[name]["hybrid costs"] = costs
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    name: {
                        system: by_split
                        if system == "hybrid costs"
                        else {s: {k: v for k, v in f.items() if k != "ranks"} for s, f in by_split.items()}
                        for system, by_split in report.items()
                    }
                    for name, report in reports.items()
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
