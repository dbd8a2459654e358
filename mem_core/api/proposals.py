"""``mem portfolio proposals``: lessons worth moving to the portfolio brain.

A lesson — a ``### `` section of a project's ``lessons.md`` — is *proposed*
when two or more registered projects hold it with current evidence: at
least one receipt that ``mem outcomes`` reports ``accepted-current`` for it
today (docs/contract.md §6: the section's text and the verified outcome both as
they were). Lessons are matched across projects by their ``textSha256``
(the hash of the heading and text, docs/contract.md §1): the same lesson word for
word, so what is proposed is one text. A lesson the brain's
``memory/lessons.md`` already holds (same hash) is marked ``inBrain``.

Read-only: nothing is written, moved or copied; the person decides.
"""

from __future__ import annotations

import os
from typing import Any

from mem_core.errors import MemError

__all__ = ["brain_proposals", "LESSONS"]

LESSONS = "lessons.md"
MIN_PROJECTS = 2


def _backed_lessons(project: str, kernel: Any) -> dict[str, dict[str, Any]]:
    """The project's lessons with current receipts: textSha256 → heading, file, receipt ids."""
    from mem_core.api.evidence import inspect_outcomes

    found: dict[str, dict[str, Any]] = {}
    for record in inspect_outcomes(project, kernel=kernel):
        memory = record.get("memory")
        if not record.get("eligible") or not isinstance(memory, dict):
            continue
        file, heading, digest = memory.get("file"), memory.get("heading"), memory.get("textSha256")
        if not (isinstance(file, str) and isinstance(heading, str) and isinstance(digest, str)):
            continue
        if file.rsplit("/", 1)[-1] != LESSONS:
            continue
        entry = found.setdefault(digest, {"heading": heading, "file": file, "receiptIds": []})
        entry["receiptIds"].append(record["id"])
    return found


def _section_text(root: str, file: str, heading: str, digest: str) -> str | None:
    """The text of the section ``heading`` of ``root/file`` whose hash is ``digest``."""
    from mem_core.api.evidence import section_anchor

    try:
        anchor = section_anchor(root, {"file": file, "heading": heading})
    except MemError:
        return None
    if anchor.get("textSha256") != digest:
        return None
    from mem_core.files import read_text
    from mem_core.files.markdown import split_sections
    from mem_core.js.strings import js_trim

    for name, text in split_sections(read_text(root, file) or ""):
        if name == heading:
            return js_trim(name + "\n" + text)
    return None


def _brain_hashes(brain: str | None) -> set[str]:
    if not brain:
        return set()
    from mem_core.files import read_text
    from mem_core.files.markdown import split_sections
    from mem_core.js.record import digest
    from mem_core.js.strings import js_trim

    try:
        text = read_text(brain, f"memory/{LESSONS}", missing=True)
    except MemError:
        return set()
    return {digest(js_trim(heading + "\n" + body)) for heading, body in split_sections(text or "")}


def brain_proposals(directory: str | None = None) -> dict[str, Any]:
    """The proposals (see the module): ``{"brain", "proposals": [...], "skipped": [...]}``,
    each proposal ``{"heading", "textSha256", "text", "inBrain", "projects":
    [{"project", "file", "receiptIds"}]}``, most-backed first. The receipts
    are checked by the verifiers of the project of ``directory``."""
    from mem_core.kernel import Kernel
    from mem_core.portfolio.registry import load_portfolio
    from mem_core.settings import load_settings

    portfolio = load_portfolio()
    kernel = Kernel(settings=load_settings(directory))
    skipped: list[dict[str, str]] = []
    by_lesson: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for root in portfolio.projects:
        if not os.path.isdir(root):
            skipped.append({"project": root, "reason": "no such directory"})
            continue
        try:
            lessons = _backed_lessons(root, kernel)
        except MemError as exc:
            skipped.append({"project": root, "reason": exc.message})
            continue
        for digest, entry in lessons.items():
            by_lesson.setdefault(digest, []).append((root, entry))
    in_brain = _brain_hashes(portfolio.brain)
    proposals = []
    for digest, backers in by_lesson.items():
        if len(backers) < MIN_PROJECTS:
            continue
        first_root, first = backers[0]
        proposals.append(
            {
                "heading": first["heading"],
                "textSha256": digest,
                "text": _section_text(first_root, first["file"], first["heading"], digest),
                "inBrain": digest in in_brain,
                "projects": [
                    {"project": root, "file": entry["file"], "receiptIds": entry["receiptIds"]}
                    for root, entry in backers
                ],
            }
        )
    proposals.sort(key=lambda p: -len(p["projects"]))  # stable: first seen first among equals
    return {"brain": portfolio.brain, "proposals": proposals, "skipped": skipped}
