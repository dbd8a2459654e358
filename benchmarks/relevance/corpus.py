"""The relevance corpora, each split into sections that become ``### ``
notes and structured memories:

* ``npm-docs`` — npm's own documentation (``npm-docs/``, copied unchanged
  from the ``npm`` package, Artistic License 2.0 — see
  ``npm-docs/LICENSE``), split at its headings (below);
* ``attrs-changelog`` — a journal of a real project: the changelog of
  *attrs* (``attrs-changelog/CHANGELOG.md``, copied unchanged from the
  sdist ``attrs-26.1.0.tar.gz`` on PyPI, MIT licence — see
  ``attrs-changelog/LICENSE``), one section per change item
  (:func:`changelog_sections`).

Each Markdown heading (``#`` to ``######``, outside fenced code) opens a
section whose heading is the page's title and the heading's text
(``npm-cache: Description``, ``config: `global```); the front matter, text
before the first heading and empty sections are left out. A section's id is
``<folder>/<page>#<heading>``, unique (a repeated heading within a page gets
`` (2)``, `` (3)`` …).

The sections become

* ``### `` notes of a project (:func:`write_notes`): ``commands/`` in
  ``lessons.md``, ``using-npm/`` in ``patterns.md``, ``configuring-npm/`` in
  ``decisions.md`` of ``.agents/memory/``;
* structured memories of another project (:func:`write_memories`), one per
  section: category ``note``, key from the id, content = heading + body.

Many pages repeat the description of a config option (``#### `global```
under ``npm install``, ``npm ls`` …) word for word: :func:`same_text` gives,
for a section, every section with the same body, all of which answer a
question about it equally well.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "npm-docs"
CHANGELOG = HERE / "attrs-changelog" / "CHANGELOG.md"
FOLDERS = {"configuring-npm": "decisions.md", "commands": "lessons.md", "using-npm": "patterns.md"}
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Section:
    id: str
    folder: str
    heading: str
    body: str

    @property
    def key(self) -> str:
        """The memory key of the section: the id in snake case (unique)."""
        slug = re.sub(r"[^a-z0-9]+", "_", self.id.lower()).strip("_")[:100]
        return f"{slug}_{hashlib.sha256(self.id.encode()).hexdigest()[:6]}"


def _title(text: str, fallback: str) -> str:
    match = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    if match:
        for line in match.group(1).splitlines():
            if line.startswith("title:"):
                return line.split(":", 1)[1].strip()
    return fallback


def _page_sections(folder: str, path: Path) -> Iterator[Section]:
    text = path.read_text(encoding="utf-8")
    title = _title(text, path.stem)
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    seen: dict[str, int] = {}
    heading: str | None = None
    body: list[str] = []
    fenced = False

    def close() -> Iterator[Section]:
        if heading is not None and "".join(body).strip():
            n = seen[heading] = seen.get(heading, 0) + 1
            shown = heading if n == 1 else f"{heading} ({n})"
            yield Section(f"{folder}/{path.stem}#{shown}", folder, f"{title}: {shown}", "".join(body).strip() + "\n")

    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line.rstrip("\n"))
        if match:
            yield from close()
            heading, body = match.group(2).strip(), []
        elif heading is not None:
            body.append(line)
    yield from close()


def sections() -> list[Section]:
    """Every section of the corpus, folder by folder, page by page (sorted)."""
    found: list[Section] = []
    for folder in FOLDERS:
        for path in sorted((DOCS / folder).glob("*.md")):
            found.extend(_page_sections(folder, path))
    return found


_RELEASE = re.compile(r"^## \[(?P<version>[^]]+)\]\([^)]*\) - (?P<date>\d{4}-\d{2}-\d{2})\s*$")
_CATEGORY = re.compile(r"^### (?P<category>.+?):?\s*$")
_ISSUE = re.compile(r"\[#(\d+)\]")


def changelog_sections() -> list[Section]:
    """Every change item of the attrs changelog, newest release first.

    A release (``## [25.4.0](…) - 2025-10-06``) holds categories
    (``### Changes``); each top-level ``- `` item of a category, with its
    indented continuation, is a section; a category's text that is not an
    item (``Initial release.``) is one too. The id is ``<version>#<n>``
    (the item's number in its release); the heading says only where the
    item stands — release, date, category and the first issue it links
    (``attrs 25.4.0 (2025-10-06) Changes #1427``) — as a journal's entry
    heading does, so a question is answered by the item's words, not by a
    title written for it."""
    found: list[Section] = []
    release: tuple[str, str] | None = None
    category = ""
    item: list[str] = []
    count = 0
    headings: set[str] = set()

    def close() -> None:
        nonlocal count
        text = "".join(item).strip()
        item.clear()
        if release is None or not text:
            return
        count += 1
        version, date = release
        issue = _ISSUE.search(text)
        mark = f"#{issue.group(1)}" if issue else f"item {count}"
        heading = f"attrs {version} ({date}) {category} {mark}"
        if heading in headings:
            heading = f"{heading} (item {count})"
        headings.add(heading)
        body = "\n".join(line[2:] if line.startswith("  ") else line for line in text.splitlines())
        found.append(Section(f"{version}#{count}", "changelog", heading, body.strip() + "\n"))

    for line in CHANGELOG.read_text(encoding="utf-8").splitlines(keepends=True):
        if match := _RELEASE.match(line):
            close()
            release, category, count = (match.group("version"), match.group("date")), "", 0
        elif release is None:
            continue
        elif match := _CATEGORY.match(line):
            close()
            category = match.group("category")
        elif line.startswith("- "):
            close()
            item.append(line[2:])
        elif line.strip() == "---" or re.match(r"^\[#\d+\]: ", line):
            continue  # a rule between releases; the link definitions at the end
        else:
            item.append(line)
    close()
    return found


@dataclass(frozen=True)
class Spec:
    """A corpus: its sections, the note file of each section's folder, its
    questions and a line that says what it is."""

    name: str
    what: str
    load: Callable[[], list[Section]]
    files: dict[str, str]
    queries: Path


CORPORA = {
    "npm-docs": Spec("npm-docs", "npm's documentation", sections, FOLDERS, HERE / "queries.jsonl"),
    "attrs-changelog": Spec(
        "attrs-changelog",
        "attrs' changelog, one per change item",
        changelog_sections,
        {"changelog": "decisions.md"},
        HERE / "attrs-changelog-queries.jsonl",
    ),
}


def same_text(every: list[Section]) -> dict[str, frozenset[str]]:
    """Section id → the ids of the sections with the same body (itself included)."""
    by_body: dict[str, set[str]] = {}
    for section in every:
        by_body.setdefault(section.body, set()).add(section.id)
    return {section.id: frozenset(by_body[section.body]) for section in every}


def note_text(section: Section) -> str:
    # a line of the body that looks like a notes heading would cut the section
    body = re.sub(r"^(#{3}\s)", r"\\\1", section.body, flags=re.MULTILINE)
    return f"### {section.heading}\n{body}\n"


def write_notes(project: Path, every: list[Section], files: dict[str, str] = FOLDERS) -> dict[tuple[str, str], str]:
    """The sections as ``### `` notes of ``project``, each folder's in its
    note file (``files``); returns (file name, heading) → section id, to
    read recall's results back."""
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    back: dict[tuple[str, str], str] = {}
    for folder, name in files.items():
        mine = [s for s in every if s.folder == folder]
        (memory / name).write_text("".join(note_text(s) for s in mine), encoding="utf-8")
        back.update({(name, s.heading): s.id for s in mine})
    return back


def write_memories(project: Path, every: list[Section], now: str, store: str = "sqlite") -> dict[str, str]:
    """The sections as structured memories of ``project``, in one
    transaction through the ``store`` backend; returns memory key → section
    id."""
    from mem_core.kernel import resolve
    from mem_core.memories.records import FIELDS, project_store_dir

    kernel, _ = resolve(str(project), None)
    backend = kernel.stores.get(store)
    (project / ".bmad" / "memory").mkdir(parents=True, exist_ok=True)
    back: dict[str, str] = {}
    with backend.open(project_store_dir(str(project)), create=True) as opened, opened.transaction():
        for n, section in enumerate(every):
            record = {
                "id": f"mem_{n:016x}",
                "category": "note",
                "key": section.key,
                "content": f"{section.heading}\n{section.body}",
                "tags": [],
                "priority": "normal",
                "source": "agent",
                "verified": False,
                "confidence": 0.7,
                "expires_at": None,
                "mind_id": "default",
                "created_at": now,
                "updated_at": now,
            }
            opened.insert({name: record[name] for name in FIELDS}, at=now)
            back[section.key] = section.id
    return back
