"""What of ``.bmad/memory`` belongs in git, said in the project's
``.gitignore`` and ``.gitattributes`` (``mem init``, ``mem adapters install``).

Committed: the append-only NDJSON stores, ``pattern-scores.json``,
``mem.toml``, ``humans/`` and the archive. Not committed: what is local to
one clone or one process — SQLite's database and its ``-wal``/``-shm``
(binary, so two branches' writes cannot be merged, and a copy taken without
its ``-wal`` misses the latest writes: a team shares structured memories
through ``mem memories export``/``import`` or the PostgreSQL store), the
writer lock, the hooks log, the brief (rewritten by every ``mem write``)
and temporary files. The NDJSON stores are merged with git's ``union``
driver: two branches that both appended keep every line of both.
"""

from __future__ import annotations

import os

from mem_core.files.layout import JOURNAL, MEMORY_DIR, OUTCOMES, PROMOTIONS

__all__ = ["GIT_FILES", "with_lines", "git_file_texts", "ensure_git_files"]

_HEADER = "# mem: what of .bmad/memory is local to this clone (docs/git.md)"
_ATTRIBUTES_HEADER = "# mem: append-only stores; a merge keeps both branches' lines (docs/git.md)"

#: each file's header and the lines ``mem`` needs in it
GIT_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    ".gitignore": (
        _HEADER,
        (
            f"{MEMORY_DIR}/*.sqlite3",
            f"{MEMORY_DIR}/*.sqlite3-*",
            f"{MEMORY_DIR}/writer.lock",
            f"{MEMORY_DIR}/writer.lock.*",
            f"{MEMORY_DIR}/hooks.log",
            f"{MEMORY_DIR}/hooks.log.*",
            f"{MEMORY_DIR}/brief.md",
            f"{MEMORY_DIR}/**/*.tmp",
        ),
    ),
    ".gitattributes": (
        _ATTRIBUTES_HEADER,
        tuple(f"{store} merge=union" for store in (JOURNAL, PROMOTIONS, OUTCOMES)),
    ),
}


def with_lines(text: str | None, header: str, lines: tuple[str, ...]) -> str:
    """``text`` with each of ``lines`` it lacks appended (under ``header``
    when the header is not there yet); ``text`` unchanged when it has them all."""
    text = text or ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if line not in present]
    if not missing:
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    if header not in present:
        missing.insert(0, header)
        if text and not text.endswith("\n\n"):
            text += "\n"  # a blank line before mem's block
    return text + "\n".join(missing) + "\n"


def git_file_texts(read: dict[str, str | None]) -> dict[str, str]:
    """The new texts of the git files, from their current ones (``None``:
    absent); a file already complete is left out."""
    new = {}
    for name, (header, lines) in GIT_FILES.items():
        text = with_lines(read.get(name), header, lines)
        if text != (read.get(name) or ""):
            new[name] = text
    return new


def ensure_git_files(project: str) -> list[dict[str, str]]:
    """Add what is missing to ``project``'s ``.gitignore`` and
    ``.gitattributes`` (each replaced atomically); ``{"path", "change"}`` of each changed file."""
    from mem_core.errors import MemError
    from mem_core.files.io import read_text, replace_bytes

    current = {name: read_text(project, name, missing=True) for name in GIT_FILES}
    changed = []
    for name, text in git_file_texts(current).items():
        try:
            replace_bytes(project, name, text.encode("utf-8"))
        except OSError as exc:
            raise MemError(f"cannot write {os.path.join(project, name)}: {exc.strerror or exc}") from None
        changed.append({"path": name, "change": "updated" if current[name] is not None else "created"})
    return changed
