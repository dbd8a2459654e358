"""The public Python API behind ``mem recall``, ``mem write`` and ``mem plugins``.

Every function takes plain values, asks the plugin registries, and returns a
result object the CLI renders as text or JSON. Results of the hot-path
commands are plain dataclasses: importing pydantic costs more than the whole
``mem write`` budget (see benchmarks/).
"""

from __future__ import annotations

import math
import os
from typing import Any

from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.interfaces import Candidate, RecallRequest
from mem_core.js.strings import js_trim
from mem_core.kernel.manager import Kernel, get_kernel
from mem_core.retrieval.text import query_tokens

__all__ = ["RecallResult", "WriteResult", "PluginsReport", "recall", "write", "plugins_report", "project_dir"]

DEFAULT_LIMIT = 8


def project_dir(directory: str | None) -> str:
    """``-d`` as an absolute path (symlinks not resolved); default: the cwd."""
    return os.path.abspath(directory or ".")


class RecallResult:
    """The ranked results of one recall (and the sources it skipped)."""

    def __init__(
        self, query: str, scope: str, ranking: str, results: list[Candidate], skipped: list[dict[str, str]]
    ) -> None:
        self.query = query
        self.scope = scope
        self.ranking = ranking
        self.results = results
        self.skipped = skipped

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "scope": self.scope,
            "ranking": self.ranking,
            "count": len(self.results),
            "results": [c.to_json() for c in self.results],
        }
        if self.skipped:
            data["skipped"] = self.skipped
        return data


def _ranking_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def parse_limit(limit: str | int | None) -> int:
    """``--limit``: a whole number ≥ 0 as JavaScript reads numbers (``3``,
    ``3.0``, ``0x3``, `` 3 ``); none or empty: 8. Anything else is refused
    (the reference would slice with NaN or a fraction)."""
    if limit is None or limit == "":
        return DEFAULT_LIMIT
    if isinstance(limit, int) and not isinstance(limit, bool):
        value: float = limit
    elif isinstance(limit, str):
        from mem_core.js.numbers import js_to_number

        value = js_to_number(limit)
    else:
        value = math.nan
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise MemError("--limit must be a non-negative integer")
    return int(value)


def recall(
    query: str,
    *,
    directory: str | None = None,
    scope: str | None = None,
    portfolio: str | None = None,
    limit: str | int | None = None,
    ranking: str | None = None,
    context_scope: str | list[str] | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> RecallResult:
    """Ranked retrieval over every active note source (mem-cli.md §2)."""
    scope = scope or "project"
    ranking = ranking or "lexical"
    if not isinstance(query, str) or not js_trim(query):
        raise MemError("recall: query must be a non-empty string")
    kernel = get_kernel(kernel)
    rankers = kernel.rankers
    if ranking not in rankers:
        raise MemError(f"recall: ranking must be {_ranking_names(rankers.names())}")
    count = parse_limit(limit)
    now = now or now_iso()
    if isinstance(context_scope, str):  # commander: an empty value is no value; trim as JS trims
        context_scope = [js_trim(part) for part in context_scope.split(",")] if context_scope else None
    request = RecallRequest(
        project_dir(directory),
        query,
        query_tokens(query),
        scope=scope,
        portfolio=os.path.abspath(portfolio) if portfolio else None,
        limit=count,
        ranking=ranking,
        context_scope=context_scope,
        now=now,
        now_ms=parse_ms(now),
        kernel=kernel,
    )
    ranker = rankers.get(ranking)()
    if ranker.needs_query_match:
        request.match_tokens = request.tokens
    ranker.validate(request)
    sources = sorted(kernel.note_sources.items(), key=lambda item: item[1].order)
    candidates: list[Candidate] = []
    for _name, source_cls in sources:
        source = source_cls()
        if source.active(request):
            candidates.extend(source.candidates(request))
    ranked = ranker.rank(request, candidates)
    return RecallResult(query, scope, ranking, ranked[:count], request.skipped)


class WriteResult:
    """The journal record ``write`` appended."""

    def __init__(self, written: dict[str, Any]) -> None:
        self.written = written

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written}


def write(
    *,
    agent: str | None,
    directory: str | None = None,
    cli: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    signals: dict[str, str] | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> WriteResult:
    """Append one event to the journal (mem-cli.md §3). ``signals`` maps
    signal names (``eval``, ``accept``, ``ci`` or a plugin's) to option text."""
    from mem_core.journal.records import append_event
    from mem_core.reinforcement.signals import parse_signals

    project = project_dir(directory)
    now = now or now_iso()
    recorded = parse_signals(get_kernel(kernel), signals or {})
    event = append_event(
        project, ts=now, agent=agent, cli=cli, model=model, task=task, outcome=outcome, signals=recorded
    )
    return WriteResult(event)


class PluginsReport:
    """One row per plugin: name, provider, version, origin, what it provides, error."""

    def __init__(self, plugins: list[dict[str, Any]]) -> None:
        self.plugins = plugins

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.plugins), "plugins": self.plugins}


def plugins_report(kernel: Kernel | None = None) -> PluginsReport:
    """Every plugin loaded (or broken) and what it provides."""
    kernel = get_kernel(kernel)
    provided: dict[str, list[dict[str, str]]] = {}
    registries = [
        ("note source", kernel.note_sources),
        ("ranker", kernel.rankers),
        ("reward signal", kernel.reward_signals),
        ("outcome verifier", kernel.outcome_verifiers),
        ("memory store", kernel.stores),
    ]
    for kind, registry in registries:
        for name in registry.names():
            provided.setdefault(registry.provider(name), []).append({"kind": kind, "name": name})
    rows = []
    for info in kernel.plugin_infos():
        rows.append(
            {
                "name": info.name,
                "provider": info.provider,
                "version": info.version,
                "origin": info.origin,
                "provides": provided.get(info.name, []),
                "error": info.error,
            }
        )
    return PluginsReport(rows)
