"""``mem brief``: what an agent should know at the start of a session, within
a token budget (docs/brief.md).

Four sections, read-only (nothing asks, nothing is written unless
:func:`write_brief`):

* **memories** — the critical and high structured memories of the project's
  default mind (expired ones left out), each marked verified or unverified;
* **notes** — the ``### `` headings of each ``decisions.md``, ``lessons.md``
  and ``patterns.md`` (``.bmad/memory/``, ``.agents/memory/``), with the file
  they are in: ``mem recall <topic>`` reads the text;
* **failures** — the journal events whose outcome is ``failure`` or
  ``partial``, newest first (the 20 newest of the last 200 in the file);
* **promotions** — the promotions proposed in ``promotions.ndjson`` and not
  yet decided, newest first.

Critical memories are served first; then the other sections take one item
each in turn (:func:`mem_core.brief.budget.fit`), so that 200 decisions
cannot crowd out the failures. What does not fit is counted on the last line.

This module imports nothing heavy (no pydantic, no typer): ``mem hook
session-start`` runs it in every new session.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from mem_core.brief.budget import Fitted, Section, fit, parse_budget
from mem_core.errors import MemError
from mem_core.files import JOURNAL, MEMORY_DIR, PROMOTIONS, read_text
from mem_core.files.markdown import NOTE_DIRS, NOTE_FILES, split_sections
from mem_core.text import one_line

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

__all__ = ["BRIEF_FILE", "BriefResult", "brief", "write_brief", "gather", "shown"]

#: the file ``mem brief --write`` keeps current (Aider reads it)
BRIEF_FILE = MEMORY_DIR + "/brief.md"
#: how many failures and promotions the brief considers (newest first)
RECENT = 20
#: how many of the last matching lines are read to find them (the files are
#: append-only: a line far from the end is old)
SCANNED = 200
HINT_RECALL = "mem recall <topic>"
HINT_MEMORIES = "mem memories"
HEAD = "# Project memory (mem brief) — read more with `mem recall <topic>`"
#: the first line of the written file: it names the budget a refresh keeps
WRITTEN_MARK = "<!-- written by `mem brief --write --budget {budget}`; mem write and mem remember refresh it -->"
_WRITTEN = re.compile(r"<!-- written by `mem brief --write --budget (\d+)`")
_TITLES = {"decisions.md": "Decisions", "lessons.md": "Lessons", "patterns.md": "Patterns"}


def shown(text: str, limit: int = 160) -> str:
    """Stored text as one line a person or a model reads: control characters
    escaped (no stored text can start a line of its own or forge a mark),
    white space collapsed, cut to ``limit`` (as ``recall`` cuts)."""
    from mem_core.textsafe import escape_inline

    text = escape_inline(text.replace("\r\n", " ").replace("\n", " "))
    return one_line(text, limit)


class BriefResult:
    """The brief of one project: the text that fits, and its sections."""

    def __init__(self, project: str, fitted: Fitted, sections: list[Section], skipped: list[dict[str, str]]) -> None:
        self.project = project
        self.fitted = fitted
        self.sections = sections
        self.skipped = skipped
        #: the file written, project-relative (``write_brief``)
        self.written: str | None = None

    @property
    def text(self) -> str:
        return self.fitted.text

    @property
    def empty(self) -> bool:
        """True when the memory holds nothing a brief shows."""
        return not any(section.items for section in self.sections)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "project": self.project,
            "budget": self.fitted.budget,
            "tokens": self.fitted.tokens,
            "sections": [
                {
                    "name": section.name,
                    "title": section.title,
                    "items": section.data[: self.fitted.kept.get(section.name, 0)],
                    "omitted": self.fitted.omitted.get(section.name, 0),
                }
                for section in self.sections
                if section.items
            ],
            "omitted": self.fitted.omitted_total,
            "text": self.text,
        }
        if self.skipped:
            data["skipped"] = self.skipped
        if self.written is not None:
            data["written"] = self.written
        return data


# -- the sections -------------------------------------------------------------


def _memories(project: str, settings: Settings, kernel: Kernel, now: str) -> list[Section]:
    from mem_core.api.backend import choose_store
    from mem_core.memories.records import MemoryFilter, project_store_dir

    directory = project_store_dir(project)
    backend = choose_store(settings, kernel.stores, directory)
    if not backend.exists(directory):
        return []
    mind = settings.default_mind
    found: dict[str, list[dict[str, Any]]] = {}
    from mem_core.memories.trust import judge_records

    with backend.open_read_only(directory) as store:
        for priority in ("critical", "high"):
            records = store.query(MemoryFilter(now=now, mind_id=mind, priority=priority))
            found[priority] = judge_records(records, store, project)  # verified as the signatures say
    sections = []
    for rank, priority in enumerate(("critical", "high")):
        records = found[priority]
        items, data = [], []
        for record in records:
            mark = {"signed": "verified", "terminal": "verified (terminal)"}.get(record["verification"], "unverified")
            ref = f"{record['category']}/{record['key']}"
            items.append(f"- {ref} [{mark}]: {shown(record['content'], 240)}")
            data.append(
                {"ref": ref, "priority": priority, "verified": record["verified"], "content": record["content"]}
            )
        if items:
            title = f"## {priority.capitalize()} memories (mind {shown(mind, 64)}; all: mem memories)"
            sections.append(Section(f"memories:{priority}", title, items, hint=HINT_MEMORIES, rank=rank, data=data))
    return sections


def _notes(project: str, skipped: list[dict[str, str]]) -> list[Section]:
    sections = []
    seen: set[str] = set()
    for directory in NOTE_DIRS:
        for name in NOTE_FILES:
            relative = f"{directory}/{name}"
            real = os.path.realpath(os.path.join(project, relative))
            if real in seen:
                continue
            seen.add(real)
            try:
                text = read_text(project, relative, missing=True)
            except MemError as exc:
                if os.path.lexists(os.path.join(project, relative)):
                    skipped.append({"path": relative, "reason": exc.message})
                continue
            if not text:
                continue
            headings = [heading for heading, _body in split_sections(text) if heading]
            if headings:
                items = [f"- {shown(heading, 120)}" for heading in headings]
                title = f"## {_TITLES[name]} — {relative}"
                sections.append(Section(f"notes:{relative}", title, items, hint=HINT_RECALL, data=headings))
    return sections


def _ndjson(
    project: str, relative: str, wanted: tuple[str, ...], skipped: list[dict[str, str]]
) -> list[dict[str, Any]]:
    """The last :data:`SCANNED` objects of an NDJSON file whose line holds
    one of ``wanted`` (checked before parsing: the journal may be 2 MiB), in
    file order. The files are append-only, so the newest are near the end."""
    try:
        text = read_text(project, relative, missing=True)
    except MemError as exc:
        skipped.append({"path": relative, "reason": exc.message})
        return []
    records: list[dict[str, Any]] = []
    for line in reversed((text or "").split("\n")):
        if not any(word in line for word in wanted):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            records.append(value)
            if len(records) == SCANNED:
                break
    records.reverse()
    return records


def _newest_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ordered = list(reversed(records))  # later lines first among equal times
    ordered.sort(key=lambda r: r.get("ts") if isinstance(r.get("ts"), str) else "", reverse=True)
    return ordered[:RECENT]


def _failures(project: str, skipped: list[dict[str, str]]) -> list[Section]:
    events = [
        e
        for e in _ndjson(project, JOURNAL, ('"failure"', '"partial"'), skipped)
        if e.get("outcome") in ("failure", "partial")
    ]
    items, data = [], []
    for event in _newest_first(events):
        who = str(event.get("agent") or "-")
        if event.get("cli"):
            who += f" ({event['cli']})"
        task = shown(str(event.get("task") or ""), 120) or "-"
        items.append(f"- {shown(str(event.get('ts', '')), 40)} {event['outcome']} {shown(who, 60)}: {task}")
        data.append({k: event.get(k) for k in ("id", "ts", "agent", "cli", "task", "outcome")})
    if not items:
        return []
    return [Section("failures", "## Recent failures (journal)", items, hint=HINT_RECALL, data=data)]


def _promotions(project: str, skipped: list[dict[str, str]]) -> list[Section]:
    from mem_core.api.views import DECIDED, awaiting

    scanned = [
        r
        for r in _ndjson(project, PROMOTIONS, tuple(f'"{status}"' for status in ("PROPOSED", *DECIDED)), skipped)
        if isinstance(r.get("patternId"), str)
    ]
    # a proposal that a human (or Shield) decided since is no longer awaiting anyone
    pending = awaiting([(r.get("status"), r["patternId"]) for r in scanned])
    records = [r for r, waits in zip(scanned, pending, strict=True) if waits]
    items, data = [], []
    for record in _newest_first(records):
        change = f"{record.get('fromStatus', '?')} → {record.get('toStatus', '?')}"
        reason = shown(str(record.get("reason") or ""), 100)
        items.append(f"- {shown(record['patternId'], 100)}: {shown(change, 60)}, {reason}")
        data.append({k: record.get(k) for k in ("id", "ts", "patternId", "fromStatus", "toStatus", "reason")})
    if not items:
        return []
    title = "## Proposed promotions (awaiting a human or Shield decision)"
    return [Section("promotions", title, items, hint=HINT_RECALL, data=data)]


def gather(project: str, settings: Settings, kernel: Kernel, now: str) -> tuple[list[Section], list[dict[str, str]]]:
    """Every section of the brief of ``project``, uncut, and the files skipped
    (unsafe or unreadable: reported, not fatal). A memory store that cannot
    be read raises ``MemError``."""
    skipped: list[dict[str, str]] = []
    sections = _memories(project, settings, kernel, now)
    sections += _notes(project, skipped)
    sections += _failures(project, skipped)
    sections += _promotions(project, skipped)
    return sections, skipped


# -- the API ------------------------------------------------------------------


def brief(
    *,
    directory: str | None = None,
    budget: str | int | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
    head: tuple[str, ...] = (HEAD,),
) -> BriefResult:
    """The brief of the project of ``directory``, within ``budget`` tokens
    (default: the ``context_budget`` setting)."""
    from mem_core.clock import now_iso
    from mem_core.kernel import resolve

    tokens = parse_budget(budget) if budget is not None else None
    kernel, settings = resolve(directory, kernel)
    if tokens is None:
        tokens = settings.context_budget
    sections, skipped = gather(settings.project, settings, kernel, now or now_iso())
    if not any(s.items for s in sections):
        head = (*head, "(nothing in memory yet: mem write, mem remember, or notes in .bmad/memory/decisions.md)")
    return BriefResult(settings.project, fit(head, sections, tokens), sections, skipped)


def write_brief(
    *,
    directory: str | None = None,
    budget: str | int | None = None,
    now: str | None = None,
    kernel: Kernel | None = None,
) -> BriefResult:
    """Write the brief to ``.bmad/memory/brief.md``, atomically (a temporary
    file beside it, fsynced, renamed over it); its first line names the
    budget, which :func:`mem_core.api.refresh.refresh_brief` keeps."""
    from mem_core.kernel import resolve

    kernel, settings = resolve(directory, kernel)
    tokens = parse_budget(budget) if budget is not None else settings.context_budget
    result = brief(
        directory=settings.project,
        budget=tokens,
        now=now,
        kernel=kernel,
        head=(WRITTEN_MARK.format(budget=tokens), HEAD),
    )
    _replace(settings.project, BRIEF_FILE, result.text + "\n")
    result.written = BRIEF_FILE
    return result


def brief_state(directory: str | None = None, *, kernel: Kernel | None = None) -> str | None:
    """``"missing"`` when the project has no brief file, ``"stale"`` when
    ``mem brief --write`` would now write another text (with the budget
    the file names), else ``None`` (current, or not one ``mem`` wrote)."""
    from mem_core.kernel import resolve

    kernel, settings = resolve(directory, kernel)
    current = read_text(settings.project, BRIEF_FILE, missing=True)
    if current is None:
        return "missing"
    budget = written_budget(current)
    if budget is None:
        return None
    now = brief(
        directory=settings.project, budget=budget, kernel=kernel, head=(WRITTEN_MARK.format(budget=budget), HEAD)
    )
    return None if now.text + "\n" == current else "stale"


def written_budget(text: str) -> int | None:
    """The budget named on the first line of a written brief, if any."""
    match = _WRITTEN.match(text)
    return int(match.group(1)) if match else None


def _replace(project: str, relative: str, text: str) -> None:
    from mem_core.files.io import replace_bytes
    from mem_core.files.paths import os_error_message

    os.makedirs(os.path.join(project, MEMORY_DIR), exist_ok=True)
    try:
        replace_bytes(project, relative, text.encode("utf-8", "surrogatepass"))
    except OSError as exc:
        raise MemError(os_error_message(exc, "open", os.path.join(project, relative))) from None
