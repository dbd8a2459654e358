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
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from mem_core.api.context import KernelRankContext, KernelSourceContext
from mem_core.errors import MemError
from mem_core.retrieval.query import Candidate, CandidateBlock, Candidates, Query, Scored

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.retrieval.results import RecallResult
    from mem_core.settings import Settings

__all__ = ["recall_all", "portfolio_projects", "Member"]

BRAIN_SOURCE = "portfolio"


class Member:
    """One project of a ``--scope all`` recall: its root, and — made when a
    source reads it itself — its settings, query and source context (a
    project the portfolio index serves whole needs none of them)."""

    __slots__ = (
        "root",
        "_make_settings",
        "_request",
        "_scope",
        "_index_dir",
        "_kernel",
        "_settings",
        "_query",
        "_context",
    )

    def __init__(
        self,
        root: str,
        settings: Callable[[], Settings],
        request: Query,
        kernel: Kernel,
        index_dir: str | None,
        scope: str = "project",
    ) -> None:
        self.root = root
        self._make_settings = settings
        self._request = request
        self._scope = scope
        self._index_dir = index_dir
        self._kernel = kernel
        self._settings: Settings | None = None
        self._query: Query | None = None
        self._context: KernelSourceContext | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = self._make_settings()
        return self._settings

    @property
    def query(self) -> Query:
        if self._query is None:
            portfolio = self.root if self._scope == "portfolio" else None
            self._query = self._request.replace(project=self.root, scope=self._scope, portfolio=portfolio)
        return self._query

    @property
    def context(self) -> KernelSourceContext:
        if self._context is None:
            self._context = KernelSourceContext(self._kernel, self.query, self.settings, index_dir=self._index_dir)
        return self._context

    @property
    def skipped(self) -> list[dict[str, str]]:
        return self._context.skipped if self._context is not None else []


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

    if index_dir is not None and (request.match_tokens is not None or request.analyzer is not None):
        from mem_core.portfolio.combined import Changed

        try:
            return _recall_all(kernel, settings, request, ranker, count, index_dir, True)
        except Changed:  # a file changed under this recall: it reads the files
            pass
        except IndexCorrupt as exc:  # never trusted: dropped (rebuilt by the next recall), this one reads the files
            if os.path.basename(os.path.dirname(os.path.dirname(exc.path))) == "portfolio":
                try:
                    os.unlink(os.path.join(os.path.dirname(exc.path), "manifest"))
                except OSError:
                    pass
            else:
                try:
                    os.unlink(exc.path)
                except OSError:
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
_MEMORIES = "mem_plugins.sources.memories"


def _recall_all(
    kernel: Kernel,
    settings: Settings,
    request: Query,
    ranker: Any,
    count: int,
    index_dir: str | None,
    combined: bool,
) -> RecallResult:
    from mem_core.retrieval.results import RecallResult, owned_result

    roots, registered = portfolio_projects(settings.project)
    brain = request.portfolio
    owners: dict[int, str] = {}
    served = None
    if combined and index_dir is not None:
        from mem_core.portfolio.combined import PortfolioIndex

        served = PortfolioIndex.open(index_dir, roots, registered, request, owners, kernel.stores)
    skipped: list[dict[str, str]] = []
    members: list[Member] = []
    bare: Settings | None = None  # the settings of a project without a config file
    for root in roots:
        if served is not None and served.whole(root):
            # its files are as indexed: a readable folder, and no config file in it
            if bare is None:
                bare = settings.for_unconfigured_project(root)
            make = partial(_bare_settings, settings, root)
            members.append(Member(root, make, request, kernel, index_dir))
            continue
        why = _unusable(root)
        if why is None:
            try:
                own = settings.for_project(root)
            except MemError as exc:
                why = exc.message
        if why is not None:
            skipped.append({"path": root, "reason": why, "project": root})
            continue
        members.append(Member(root, partial(_given, own), request, kernel, index_dir))
    brain_member = None
    if brain:
        why = _unusable(brain)
        if why is not None:
            skipped.append({"path": brain, "reason": why, "project": brain})
        else:
            brain_member = Member(brain, partial(_given, settings), request, kernel, index_dir, "portfolio")
    bare_store_layer = bare.layer("store") if bare is not None else None
    parts: list[list[Candidate] | CandidateBlock] = []
    try:
        for name, source_cls in sorted(kernel.note_sources.items(), key=lambda item: item[1].order):
            source = source_cls()
            group = [brain_member] if name == BRAIN_SOURCE else members
            builtin = served is not None and _SERVED.get(name) == source_cls.__module__
            storeless = served is not None and name == "memories" and source_cls.__module__ == _MEMORIES
            for member in group:
                if member is None:
                    continue
                if builtin:
                    own_parts = served.parts(name, member.root)  # type: ignore[union-attr]
                    if own_parts is not None:
                        parts.extend(own_parts)
                        continue
                if storeless and served.no_store(member.root):  # type: ignore[union-attr]
                    layer = bare_store_layer if served.whole(member.root) else member.settings.layer("store")  # type: ignore[union-attr]
                    if layer == "default":
                        continue  # no store there (its .bmad/memory/ unchanged since it had none): nothing to read
                if not source.active(member.query):
                    continue
                for part in _source_parts(source.candidates(member.query, member.context)):
                    parts.append(_owned(part, member.root, owners))
        ranked = ranker.rank(request, Candidates(parts), KernelRankContext(kernel, request))
        results = []
        for scored in ranked[:count]:
            mine = owned_result(scored)
            fields = dict(mine.candidate.fields)
            fields["project"] = owners[id(scored.candidate)]
            results.append(Scored(Candidate(mine.candidate.scored_text, fields, 1.0), mine.score, mine.extra))
    finally:
        if served is not None:
            served.close()
    for member in [*members, brain_member]:
        if member is not None:
            for item in member.skipped:
                skipped.append(
                    {"path": os.path.join(member.root, item["path"]), "reason": item["reason"], "project": member.root}
                )
    hints = None
    if not results and count:
        from mem_core.retrieval.hints import heading_hints

        hints = heading_hints(settings.project)
    result = RecallResult(request.text, request.scope, request.ranking, results, skipped, hints)
    result.labels = _Labels([m.root for m in members] + ([brain_member.root] if brain_member else []))
    return result


def _given(settings: Settings) -> Settings:
    return settings


def _bare_settings(settings: Settings, root: str) -> Settings:
    return settings.for_unconfigured_project(root)


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


class _Labels(dict):  # type: ignore[type-arg]
    """How the text output names each project: its folder's name, or its
    whole path when another project has the same name (worked out when the
    text output first asks: JSON needs none)."""

    def __init__(self, roots: list[str]) -> None:
        super().__init__()
        self._roots: list[str] | None = roots

    def get(self, key: Any, default: Any = None) -> Any:
        roots = self._roots
        if roots is not None:
            self._roots = None
            names: dict[str, int] = {}
            bases = [os.path.basename(root.rstrip(os.sep)) or root for root in roots]
            for base in bases:
                names[base] = names.get(base, 0) + 1
            for root, base in zip(roots, bases, strict=True):
                self[root] = base if names[base] == 1 else root
        return super().get(key, default)
