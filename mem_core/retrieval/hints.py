"""Why a recall may have found nothing: note files that recall cannot read
as notes.

Recall reads the ``### `` sections of the note files (docs/contract.md §1); a file
written under ``## `` headings only has no section at all, so its notes are
never found, silently. When a recall finds nothing, :func:`heading_hints`
names such files so that the user hears of it (``mem recall`` prints one
line per file on stderr, or a ``"hints"`` list with ``--json``). Asked only
when there are no results: a recall that finds something reads nothing more.
"""

from __future__ import annotations

import re

from mem_core.errors import MemError
from mem_core.files import read_text
from mem_core.files.markdown import NOTE_DIRS, NOTE_FILES, split_sections

__all__ = ["heading_hints"]

#: a level-2 ATX heading: "## Title" (not "###"), after a newline or
#: (:data:`_FIRST_LEVEL_TWO`) at the start of the text. Not ``^`` under
#: MULTILINE, which re tries at every position: a prompt that finds nothing
#: in 1.8 MB of notes spent 16 ms of its hook there; a literal "\n##" lets
#: re skip ahead
_LEVEL_TWO = re.compile(r"\n##[ \t]+\S")
_FIRST_LEVEL_TWO = re.compile(r"##[ \t]+\S")


def heading_hints(project: str) -> list[str]:
    """One line per note file of ``project`` that has ``##`` headings and
    no ``###`` section (files that cannot be read are left to the sources,
    which report them)."""
    hints = []
    for directory in NOTE_DIRS:
        for name in NOTE_FILES:
            relative = f"{directory}/{name}"
            try:
                text = read_text(project, relative, missing=True)
            except MemError:
                continue
            if not text:
                continue
            if (_FIRST_LEVEL_TWO.match(text) or _LEVEL_TWO.search(text)) and not split_sections(text):
                hints.append(
                    f"{relative} has ## headings but no ### sections; recall reads only ### sections "
                    "(make each note a ### heading)"
                )
    return hints
