"""The relevance corpus: npm's own documentation (``npm-docs/``, copied
unchanged from the ``npm`` package, Artistic License 2.0 — see
``npm-docs/LICENSE``), split at its headings into sections.

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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent / "npm-docs"
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


def write_notes(project: Path, every: list[Section]) -> dict[tuple[str, str], str]:
    """The sections as ``### `` notes of ``project``; returns (file name,
    heading) → section id, to read recall's results back."""
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    back: dict[tuple[str, str], str] = {}
    for folder, name in FOLDERS.items():
        mine = [s for s in every if s.folder == folder]
        (memory / name).write_text("".join(note_text(s) for s in mine), encoding="utf-8")
        back.update({(name, s.heading): s.id for s in mine})
    return back


def write_memories(project: Path, every: list[Section], now: str, store: str = "sqlite") -> dict[str, str]:
    """The sections as structured memories of ``project``, in one
    transaction through the ``store`` backend; returns memory key → section
    id."""
    from mem_core.memories.records import FIELDS, project_store_dir
    from mem_core.settings import resolve

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
