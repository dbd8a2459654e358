"""``mem recall --scope all``: one ranked list over every registered project,
the current project (when it is not registered) and the portfolio brain.

What is recalled, in tie order (results that score alike keep it, as in a
one-project recall): the note sources by their ``order``, and within each
source the projects in portfolio order — the current project first when it
is not registered —, so the journals of every project, then their Markdown
notes, then the brain's notes (the ``portfolio`` source, once, for the brain
only), then the other sources (structured memories …) project by project.
Each project is read with its own settings (its ``mem.toml``) by one kernel:
the plugins are those of the project recall runs in.

Each result gets a ``project`` field (the project's root, or the brain's
directory) after its own fields; ``sourceFile`` stays relative to that
project. A project that is missing, not a directory or unreadable is left
out and reported in ``skipped`` (``{"path", "reason", "project"}``; the
paths of files skipped inside a project are made absolute).

With the on-disk recall index, the journals and notes of the projects whose
files are unchanged are served by the portfolio index
(:mod:`mem_core.portfolio.combined`): one set of postings for the whole
portfolio, so a recall over a thousand projects reads what its words touch
once instead of opening four thousand index files. The answer is the same,
byte for byte, as without it (tests/core/test_portfolio_index.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mem_core.errors import MemError
from mem_core.retrieval.context import RankContext, SourceContext
from mem_core.retrieval.interfaces import Candidate, CandidateBlock, Candidates, Query, Scored

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.retrieval.api import RecallResult
    from mem_core.settings import Settings

__all__ = ["recall_all", "portfolio_projects", "Member"]

BRAIN_SOURCE = "portfolio"


class Member:
    """One project of a ``--scope all`` recall: its root, its query and its
    source context (``None`` while it is skipped)."""

    __slots__ = ("root", "query", "context")

    def __init__(self, root: str, query: Query, context: SourceContext) -> None:
        self.root = root
        self.query = query
        self.context = context


def portfolio_projects(current: str) -> tuple[list[str], list[str]]:
    """The projects a ``--scope all`` recall from ``current`` reads (the
    current project first when it is not registered), and the registered ones."""
    from mem_core.portfolio.registry import load_portfolio

    registered = load_portfolio().projects
    roots = list(registered)
    if current not in roots and os.path.realpath(current) not in roots:
        roots.insert(0, current)
    return roots, registered


def _unusable(root: str) -> str | None:
    """Why the project ``root`` cannot be recalled, or ``None``."""
    try:
        st = os.stat(root)
    except FileNotFoundError:
        return "no such directory"
    except OSError as exc:
        return exc.strerror or str(exc)
    import stat

    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not os.access(root, os.R_OK | os.X_OK):
        return "permission denied"
    return None


def recall_all(
    kernel: Kernel, settings: Settings, request: Query, ranker: Any, count: int, index_dir: str | None
) -> RecallResult:
    """The ranked results of ``request`` (scope ``all``) over the portfolio
    (see the module)."""
    from mem_core.retrieval.diskindex import IndexCorrupt

    if index_dir is not None and request.match_tokens is not None:
        from mem_core.portfolio.combined import Changed

        try:
            return _recall_all(kernel, settings, request, ranker, count, index_dir, True)
        except (Changed, IndexCorrupt):  # never trusted: this recall reads the files
            pass
    try:
        return _recall_all(kernel, settings, request, ranker, count, index_dir, False)
    except IndexCorrupt as exc:  # a per-file index found corrupt late: dropped
        try:
            os.unlink(exc.path)
        except OSError:
            pass
        return _recall_all(kernel, settings, request, ranker, count, None, False)


#: the built-in sources the portfolio index serves, by name
_SERVED = {"journal": "mem_plugins.sources.journal", "notes": "mem_plugins.sources.notes"}


def _recall_all(
    kernel: Kernel,
    settings: Settings,
    request: Query,
    ranker: Any,
    count: int,
    index_dir: str | None,
    combined: bool,
) -> RecallResult:
    from mem_core.retrieval.api import RecallResult, _own

    roots, registered = portfolio_projects(settings.project)
    brain = request.portfolio
    skipped: list[dict[str, str]] = []
    members: list[Member] = []
    for root in roots:
        why = _unusable(root)
        if why is None:
            try:
                member_settings = settings.for_project(root)
            except MemError as exc:
                why = exc.message
        if why is not None:
            skipped.append({"path": root, "reason": why, "project": root})
            continue
        query = request.replace(project=root, scope="project", portfolio=None)
        members.append(Member(root, query, SourceContext(kernel, query, member_settings, index_dir=index_dir)))
    brain_member = None
    if brain:
        why = _unusable(brain)
        if why is not None:
            skipped.append({"path": brain, "reason": why, "project": brain})
        else:
            query = request.replace(project=brain, scope="portfolio", portfolio=brain)
            brain_member = Member(brain, query, SourceContext(kernel, query, settings, index_dir=index_dir))
    owners: dict[int, str] = {}
    parts: list[list[Candidate] | CandidateBlock] = []
    served = None
    sources = sorted(kernel.note_sources.items(), key=lambda item: item[1].order)
    if combined and index_dir is not None:
        from mem_core.portfolio.combined import PortfolioIndex

        served = PortfolioIndex.open(index_dir, members, registered, request, owners)
    try:
        for name, source_cls in sources:
            source = source_cls()
            group = [brain_member] if name == BRAIN_SOURCE else members
            builtin = served is not None and _SERVED.get(name) == source_cls.__module__
            for member in group:
                if member is None or not source.active(member.query):
                    continue
                own = served.parts(name, member) if builtin else None  # type: ignore[union-attr]
                if own is None:
                    for part in _source_parts(source.candidates(member.query, member.context)):
                        parts.append(_owned(part, member.root, owners))
                else:
                    parts.extend(own)
        ranked = ranker.rank(request, Candidates(parts), RankContext(kernel, request))
        results = []
        for scored in ranked[:count]:
            mine = _own(scored)
            fields = dict(mine.candidate.fields)
            fields["project"] = owners[id(scored.candidate)]
            results.append(Scored(Candidate(mine.candidate.scored_text, fields, 1.0), mine.score, mine.extra))
    finally:
        if served is not None:
            served.close()
    for member in [*members, brain_member]:
        if member is not None:
            for item in member.context.skipped:
                skipped.append(
                    {"path": os.path.join(member.root, item["path"]), "reason": item["reason"], "project": member.root}
                )
    hints = None
    if not results and count:
        from mem_core.retrieval.hints import heading_hints

        hints = heading_hints(settings.project)
    result = RecallResult(request.text, request.scope, request.ranking, results, skipped, hints)
    result.labels = _labels([m.root for m in members] + ([brain_member.root] if brain_member else []))
    return result


def _source_parts(items: Iterable[Candidate | CandidateBlock]) -> list[list[Candidate] | CandidateBlock]:
    parts: list[list[Candidate] | CandidateBlock] = []
    plain: list[Candidate] = []
    for item in items:
        if isinstance(item, CandidateBlock):
            if plain:
                parts.append(plain)
                plain = []
            parts.append(item)
        else:
            plain.append(item)
    if plain:
        parts.append(plain)
    return parts


def _owned(
    part: list[Candidate] | CandidateBlock, root: str, owners: dict[int, str]
) -> list[Candidate] | CandidateBlock:
    """``part`` with each of its candidates known to belong to ``root``."""
    if isinstance(part, CandidateBlock):
        block = part

        def make(position: int) -> Candidate:
            candidate = block.candidate(position)
            owners[id(candidate)] = root
            return candidate

        return CandidateBlock(block.index, make, tokens=block.tokens, unit_weight=block.unit_weight)
    for candidate in part:
        owners[id(candidate)] = root
    return part


def _labels(roots: list[str]) -> dict[str, str]:
    """How the text output names each project: its folder's name, or its
    whole path when another project has the same name."""
    names: dict[str, int] = {}
    for root in roots:
        base = os.path.basename(root.rstrip(os.sep)) or root
        names[base] = names.get(base, 0) + 1
    labels = {}
    for root in roots:
        base = os.path.basename(root.rstrip(os.sep)) or root
        labels[root] = base if names[base] == 1 else root
    return labels
