"""The Markdown note format: ``decisions.md``, ``lessons.md`` and
``patterns.md`` under ``.bmad/memory/`` and ``.agents/memory/``, split at
``### `` headings (docs/contract.md §1, §2, §5)."""

from __future__ import annotations

from mem_core.files.layout import AGENTS_MEMORY_DIR, MEMORY_DIR
from mem_core.js.strings import JS_SPACE, js_trim
from mem_core.lazyre import lazy

__all__ = ["NOTE_DIRS", "NOTE_FILES", "split_sections"]

NOTE_DIRS = (MEMORY_DIR, AGENTS_MEMORY_DIR)
NOTE_FILES = ("decisions.md", "lessons.md", "patterns.md")

#: compiled when a note is first split (a recall served by the index splits none)
_HEADING = lazy(f"###[{JS_SPACE}]+([^\\n\\r\\u2028\\u2029]*)")


def split_sections(markdown: str) -> list[tuple[str, str]]:
    """Split a Markdown file at ``### `` headings into (heading, text) pairs.

    Text before the first heading is ignored; every later line is appended as
    ``line + "\\n"``. ``####`` is not a heading; ``\\r`` stays in the text.
    """
    sections: list[tuple[str, str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in markdown.split("\n"):
        m = _HEADING.match(line) if line.startswith("###") else None
        if m:
            if heading is not None:
                sections.append((heading, "".join(lines)))
            heading = js_trim(m.group(1))
            lines = []
        elif heading is not None:
            lines.append(line + "\n")
    if heading is not None:
        sections.append((heading, "".join(lines)))
    return sections
