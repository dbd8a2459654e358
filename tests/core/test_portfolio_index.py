"""``recall --scope all`` through the portfolio index is byte for byte the
recall without any index (``recall_index`` off), over random small
portfolios and queries, while projects change between recalls; a corrupt
or stale portfolio index is never trusted."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from mem_core.files.cache import FINE_RACY_SECONDS
from mem_core.portfolio import combined
from mem_core.portfolio.registry import add_projects, set_brain

WORDS = "cache auth values token queue retry deploy schema index login redis worker batch zero false caching".split()
NOW = "2026-11-05T12:00:00.000Z"


def _section(rng: random.Random, i: int) -> str:
    heading = " ".join(rng.choices(WORDS, k=rng.randint(1, 3))).capitalize()
    body = " ".join(rng.choices(WORDS, k=rng.randint(1, 12)))
    return f"### {heading} {i}\n{body}\n"


def _notes(rng: random.Random, n: int) -> str:
    return "# Notes\n\n" + "\n".join(_section(rng, i) for i in range(n))


def _journal(rng: random.Random, n: int) -> str:
    lines = []
    for i in range(n):
        event = {"ts": f"2026-1{rng.randint(0, 1)}-0{rng.randint(1, 9)}T10:00:00.000Z", "agent": rng.choice(WORDS),
                 "task": " ".join(rng.choices(WORDS, k=rng.randint(1, 5))), "id": f"e{i:04d}{rng.randint(0, 99)}"}  # fmt: skip
        if rng.random() < 0.2:
            del event["ts"]
        lines.append(json.dumps(event))
    return "\n".join(lines) + "\n"


def _make(root: Path, rng: random.Random) -> None:
    for directory in (".bmad/memory", ".agents/memory"):
        for name in ("decisions.md", "lessons.md", "patterns.md"):
            if rng.random() < 0.5:
                path = root / directory / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(_notes(rng, rng.randint(0, 6)), encoding="utf-8")
    if rng.random() < 0.7:
        journal = root / ".bmad" / "memory" / "journal.ndjson"
        journal.parent.mkdir(parents=True, exist_ok=True)
        journal.write_text(_journal(rng, rng.randint(0, 8)), encoding="utf-8")
    root.mkdir(parents=True, exist_ok=True)


def _change(root: Path, rng: random.Random) -> None:
    """One change a project may see between two recalls."""
    kind = rng.choice(["append", "edit", "new", "remove", "touch", "archive", "toplevel", "link"])
    journal = root / ".bmad" / "memory" / "journal.ndjson"
    notes = sorted(root.glob(".*/memory/*.md"))
    if kind == "append" or (kind == "archive" and not journal.exists()):
        journal.parent.mkdir(parents=True, exist_ok=True)
        with journal.open("a", encoding="utf-8") as fh:
            fh.write(_journal(rng, 1))
    elif kind == "edit" and notes:
        rng.choice(notes).write_text(_notes(rng, rng.randint(1, 5)), encoding="utf-8")
    elif kind == "new":
        path = root / ".agents" / "memory" / "patterns.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(path.read_text() + _section(rng, 99) if path.exists() else _section(rng, 98))
    elif kind == "remove" and notes:
        rng.choice(notes).unlink()
    elif kind == "touch" and notes:
        os.utime(rng.choice(notes))
    elif kind == "archive":
        (root / ".bmad" / "memory" / "archive").mkdir(exist_ok=True)
    elif kind == "toplevel":  # the root changes, its memory folders do not
        (root / f"README-{rng.randint(0, 9999)}.md").write_text("hello")
    elif kind == "link" and (root / ".agents").is_dir() and not (root / ".agents").is_symlink():
        (root / ".agents").rename(root / "agents-moved")  # the same files, reached through a link
        (root / ".agents").symlink_to(root / "agents-moved")


def _recall(query: str, project: Path, index: bool, limit: int, ranking: str | None = None) -> str:
    from mem_core.api.recall import recall
    from mem_core.js.jsonfmt import dumps

    result = recall(query, directory=str(project), scope="all", limit=limit, now=NOW, index=index, ranking=ranking)
    return dumps(result.to_json(), 2)


def _settle() -> None:
    time.sleep(FINE_RACY_SECONDS + 0.05)  # what was just written is settled (ns timestamps)


@pytest.mark.parametrize(
    ("seed", "ranking"), [(seed, "lexical") for seed in range(10)] + [(seed, "bm25") for seed in range(10, 16)]
)
def test_index_matches_no_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, ranking: str) -> None:
    rng = random.Random(seed)
    roots = [tmp_path / f"p{i}" for i in range(rng.randint(2, 6))]
    for root in roots:
        _make(root, rng)
    add_projects([str(r) for r in roots[1:]])  # roots[0] is the current, unregistered project
    if rng.random() < 0.6:
        brain = tmp_path / "brain"
        (brain / "memory").mkdir(parents=True)
        (brain / "memory" / "lessons.md").write_text(_notes(rng, 4), encoding="utf-8")
        set_brain(str(brain))
    served: list[str] = []
    real_parts = combined.PortfolioIndex.parts

    def parts(self, source, member):  # type: ignore[no-untyped-def]
        found = real_parts(self, source, member)
        if found:
            served.append(source)
        return found

    monkeypatch.setattr(combined.PortfolioIndex, "parts", parts)
    _settle()
    for step in range(8):
        query = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        limit = rng.choice([1, 3, 8, 50])
        expected = _recall(query, roots[0], False, limit, ranking)
        assert _recall(query, roots[0], True, limit, ranking) == expected, (step, query)
        _settle()
        assert _recall(query, roots[0], True, limit, ranking) == expected, (step, query)
        for root in rng.sample(roots, rng.randint(0, 2)):
            _change(root, rng)
        if rng.random() < 0.5:
            _settle()
    assert served, "the portfolio index never served a unit"


def _index_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "user-cache").rglob("portfolio/*/*"))


def test_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    rng = random.Random(3)
    roots = [tmp_path / f"p{i}" for i in range(3)]
    for root in roots:
        _make(root, rng)
        (root / ".agents" / "memory").mkdir(parents=True, exist_ok=True)
        (root / ".agents" / "memory" / "lessons.md").write_text("### Cache rule\ncache values cache\n")
    add_projects([str(r) for r in roots])
    expected = _recall("cache values", roots[0], False, 8)
    _settle()
    assert _recall("cache values", roots[0], True, 8) == expected
    files = _index_files(tmp_path)
    assert {p.name.split("-")[0] for p in files} == {"manifest", "notes", "journal"}
    for prefix, where in (("notes", "tail"), ("journal", "tail"), ("notes", "spread"), ("manifest", "spread")):
        victim = next(p for p in _index_files(tmp_path) if p.name.split("-")[0] == prefix)
        data = bytearray(victim.read_bytes())
        # tail: a piece read during the recall (the header is intact); spread: the header too
        for at in range(20, len(data), max(1, len(data) // 7)) if where == "spread" else (len(data) - 3,):
            data[at] ^= 0x5A
        victim.write_bytes(bytes(data))
        assert _recall("cache values", roots[0], True, 8) == expected, prefix
        _settle()
        assert _recall("cache values", roots[0], True, 8) == expected, prefix
        assert victim.name == "manifest" or not victim.exists()  # rebuilt: new files
    (roots[1] / ".agents" / "memory" / "lessons.md").write_text("### Cache rule\nnow different values\n")
    changed = _recall("cache values", roots[0], False, 8)
    assert changed != expected
    assert _recall("cache values", roots[0], True, 8) == changed


def test_stale_share_rebuilds(tmp_path: Path) -> None:
    rng = random.Random(5)
    roots = [tmp_path / f"p{i}" for i in range(4)]
    for root in roots:
        _make(root, rng)
    add_projects([str(r) for r in roots])
    _recall("cache", roots[0], True, 8)
    first = {p.name for p in _index_files(tmp_path) if p.suffix == ".idx"}
    _settle()
    for root in roots[:2]:  # half the projects changed: more than an eighth
        _change(root, random.Random(1))
        (root / ".bmad" / "memory").mkdir(parents=True, exist_ok=True)
        with (root / ".bmad" / "memory" / "journal.ndjson").open("a") as fh:
            fh.write('{"agent":"a","task":"cache again","id":"x"}\n')
    assert _recall("cache", roots[0], True, 8) == _recall("cache", roots[0], False, 8)
    assert {p.name for p in _index_files(tmp_path) if p.suffix == ".idx"}.isdisjoint(first)


def test_a_folder_made_a_link_is_not_served(tmp_path: Path) -> None:
    roots = [tmp_path / f"p{i}" for i in range(3)]
    for root in roots:
        (root / ".agents" / "memory").mkdir(parents=True)
        (root / ".agents" / "memory" / "lessons.md").write_text(f"### Cache {root.name}\ncache values\n")
    add_projects([str(r) for r in roots])
    _recall("cache", roots[0], True, 8)
    _settle()
    before = _recall("cache", roots[0], True, 8)
    assert before == _recall("cache", roots[0], False, 8)
    (roots[1] / ".agents").rename(roots[1] / "agents-moved")
    (roots[1] / ".agents").symlink_to(roots[1] / "agents-moved")
    expected = _recall("cache", roots[0], False, 8)
    assert '"skipped"' in expected and expected != before
    assert _recall("cache", roots[0], True, 8) == expected
