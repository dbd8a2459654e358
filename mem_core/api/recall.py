"""The public Python API behind ``mem recall``: the kernel's orchestration of
sources and rankers (the algorithms live in the plugins)."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from mem_core.api.context import KernelRankContext, KernelSourceContext
from mem_core.clock import now_iso, parse_ms
from mem_core.errors import MemError
from mem_core.js.strings import js_trim
from mem_core.kernel import Kernel, resolve
from mem_core.retrieval.query import Candidate, CandidateBlock, Candidates, Query
from mem_core.retrieval.results import RecallResult, owned_result
from mem_core.text import query_tokens

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

__all__ = ["recall", "parse_limit"]

DEFAULT_LIMIT = 8


#: built-in rankers the reference does not have: left out of the "ranking
#: must be …" message, whose bytes are the reference's (``mem plugins`` and
#: ``--help`` list them)
_NOT_IN_MESSAGE = frozenset(("bm25", "hybrid"))


def _ranking_names(names: list[str], *, every: bool = False) -> str:
    """``a, b or c``; without ``every``, as the reference says it (see :data:`_NOT_IN_MESSAGE`)."""
    names = names if every else [name for name in names if name not in _NOT_IN_MESSAGE] or names
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
    index: bool | None = None,
    leave_out_via: Iterable[str] = (),
    sentence: str | None = None,
) -> RecallResult:
    """Ranked retrieval over every active note source (docs/contract.md §2) of the
    project of ``directory`` (see :func:`mem_core.project.find_project`);
    ``portfolio`` defaults to the ``portfolio`` setting, then (for
    ``scope`` ``portfolio`` or ``all``) to the portfolio's brain
    (:mod:`mem_core.portfolio.registry`); ``scope`` ``all`` recalls every
    registered project too (:mod:`mem_core.api.portfolio`); ``ranking`` to the
    ``recall_ranking`` setting (``lexical`` unless a config file says
    otherwise).

    ``index``: read the journal and the note files through the on-disk
    recall index (:mod:`mem_core.retrieval.diskindex`) — same answers,
    faster for a process that recalls once. Default: when no ``kernel`` is
    given (a long-lived kernel keeps its own in-memory index); never when
    the ``recall_index`` setting is off.

    ``leave_out_via``: journal events written by these (their ``via``) are
    no candidates (:attr:`Query.leave_out_via`). ``sentence``: the question
    as written, when ``query`` holds only its words (:attr:`Query.sentence`)."""
    if index is None:
        index = kernel is None
    scope = scope or "project"
    if not isinstance(query, str) or not js_trim(query):
        raise MemError("recall: query must be a non-empty string")
    kernel, settings = resolve(directory, kernel)
    rankers = kernel.rankers
    if ranking:
        ranker_cls = rankers.require(ranking, f"recall: ranking must be {_ranking_names(rankers.names())}")
    else:
        ranking = settings.get("recall_ranking")
        ranker_cls = rankers.require(
            ranking,
            f"recall: ranking must be {_ranking_names(rankers.names(), every=True)} "
            f"(got {ranking!r} from {settings.where('recall_ranking')})",
        )
    count = parse_limit(limit)
    now = now or now_iso()
    if isinstance(context_scope, str):  # commander: an empty value is no value; trim as JS trims
        context_scope = [js_trim(part) for part in context_scope.split(",")] if context_scope else None
    tokens = query_tokens(query)
    if portfolio:
        portfolio = os.path.abspath(portfolio)
    elif settings.portfolio:
        portfolio = settings.portfolio
    elif scope in ("portfolio", "all"):  # the portfolio's brain, when one is set (mem portfolio brain)
        from mem_core.portfolio.registry import brain_path

        portfolio = brain_path()
    request = Query(
        settings.project,
        query,
        tokens,
        scope=scope,
        portfolio=portfolio,
        limit=count,
        ranking=ranking,
        context_scope=context_scope,
        now=now,
        now_ms=parse_ms(now),
        strict=ranker_cls.strict_sources,
        match_tokens=tokens if ranker_cls.needs_query_match else None,
        analyzer=ranker_cls.index_analyzer,
        leave_out_via=leave_out_via,
        sentence=sentence,
    )
    ranker = ranker_cls()
    ranker.validate(request)
    index_dir = None
    if index and settings.recall_index:
        from mem_core.retrieval.diskindex import cache_root

        index_dir = cache_root(settings.cache_dir)
    if scope == "all":  # every registered project and the brain (mem_core.api.portfolio)
        from mem_core.api.portfolio import recall_all

        result = recall_all(kernel, settings, request, ranker, count, index_dir)
    elif index_dir is None:
        result = _recall(kernel, settings, request, ranker, count)
    else:
        from mem_core.retrieval.diskindex import IndexCorrupt

        try:
            result = _recall(kernel, settings, request, ranker, count, index_dir)
        except IndexCorrupt as exc:  # found late: never trusted — dropped, and this recall reads the files
            try:
                os.unlink(exc.path)
            except OSError:
                pass
            result = _recall(kernel, settings, request, ranker, count)
    result.notes = _nothing_to_search(settings.project, directory is None, scope, portfolio)
    if scope == "all":
        result.places = [_place(hit.fields, settings.project, portfolio) for hit in result.results]
    elif scope == "portfolio" and portfolio:
        places = [_place(hit.fields, settings.project, portfolio) for hit in result.results]
        if any(in_brain for _root, in_brain in places):  # results from two places: each says which
            result.places = places
            result.labels = {settings.project: os.path.basename(settings.project.rstrip(os.sep)) or settings.project}
    return result


def _place(fields: Mapping[str, Any], project: str, portfolio: str | None) -> tuple[str | None, bool]:
    """Where one result of a recall beyond the project lives: its project's
    root, or the brain (``--scope all`` names the root in ``project``;
    ``--scope portfolio`` tells the brain's notes by their path)."""
    brain = os.path.normpath(portfolio) if portfolio else None
    owner = fields.get("project")
    if owner is not None:
        return (None, True) if brain is not None and os.path.normpath(owner) == brain else (owner, False)
    source_file = fields.get("sourceFile")
    if brain is not None and isinstance(source_file, str):
        path = os.path.normpath(os.path.join(project, source_file))
        if path.startswith(os.path.join(brain, "memory") + os.sep):
            return None, True
    return project, False


def _nothing_to_search(project: str, discovered: bool, scope: str, portfolio: str | None) -> list[str]:
    """What a recall had nothing of: a project (no ``.bmad/`` nor ``.agents/``
    in the directory ``-d`` named, or here and above up to the git root when
    ``discovered``), a portfolio brain (``--scope portfolio`` without one)."""
    from mem_core.project import MARKERS

    notes = []
    if not any(os.path.isdir(os.path.join(project, marker)) for marker in MARKERS):
        where = "here or above, up to the git root" if discovered else "in it"
        notes.append(
            f"no project memory in {project} (no .bmad/ or .agents/ {where}): nothing of a project to search; "
            "`mem init` starts one"
        )
    if scope == "portfolio" and not portfolio:
        notes.append(
            "no portfolio brain: `mem portfolio brain DIR` sets one (or --portfolio DIR), "
            "so --scope portfolio searched no brain"
        )
    return notes


def _recall(
    kernel: Kernel, settings: Any, request: Query, ranker: Any, count: int, index_dir: str | None = None
) -> RecallResult:
    sources = sorted(kernel.note_sources.items(), key=lambda item: item[1].order)
    context = KernelSourceContext(kernel, request, settings, index_dir=index_dir)
    parts: list[list[Candidate] | CandidateBlock] = []
    for _name, source_cls in sources:
        source = source_cls()
        if source.active(request):
            plain: list[Candidate] = []
            for item in source.candidates(request, context):
                if isinstance(item, CandidateBlock):
                    if plain:
                        parts.append(plain)
                        plain = []
                    parts.append(item)  # type: ignore[arg-type]
                else:
                    plain.append(item)  # type: ignore[arg-type]
            if plain:
                parts.append(plain)
    ranked = ranker.rank(request, Candidates(parts), KernelRankContext(kernel, request))
    results = [owned_result(scored) for scored in ranked[:count]]
    hints = None
    if not results and count:
        from mem_core.retrieval.hints import heading_hints

        hints = heading_hints(settings.project)
    return RecallResult(request.text, request.scope, request.ranking, results, context.skipped, hints)
