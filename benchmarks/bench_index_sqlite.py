"""The recall index's file format against SQLite (issue 20 item 7): the
same documents and postings — those a warm ``mem recall`` reads — kept in
the binary format of :mod:`mem_core.retrieval.diskindex` and in one SQLite
file per index (plain tables: ``docs`` and ``postings`` keyed by token,
WITHOUT ROWID), compared on build time, file size and a whole-process
lookup: open every index of the corpus, check its header, read the
document lengths and the postings of the query's three words — what
``DiskTermIndex`` does for a recall — next to ``python -c pass``.

FTS5 is not measured: its tokenizers are not mem-cli.md §1's nor
``bm25``'s analysis, and its ``bm25()`` is not the ranker's, so it could
not give the exact answers the index must give.

Usage: ``python benchmarks/bench_index_sqlite.py [--runs N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_index import make_large  # noqa: E402
from run import make_corpus  # noqa: E402

from mem_core.retrieval.diskindex import LEXICAL, IndexWriter, save  # noqa: E402
from mem_core.retrieval.indexers import JOURNAL_INDEXER, NOTE_INDEXER  # noqa: E402

QUERY = ["cache", "auth", "values"]

#: what every recall imports before it reads an index (both lookups start from it)
_BASE = "import sys\nimport mem_core.api.recall\n"

_BINARY = (
    _BASE
    + """
from mem_core.retrieval.diskindex import load
for path in sys.argv[2:]:
    index = load(path, {"space": "lexical/1"})
    index.lengths()
    for token in sys.argv[1].split():
        index.postings(token)
"""
)

_SQLITE = (
    _BASE
    + """
import sqlite3
tokens = sys.argv[1].split()
for path in sys.argv[2:]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    header = dict(db.execute("SELECT name, value FROM header"))
    assert header["space"] == "lexical/1"
    lengths = [row[0] for row in db.execute("SELECT length FROM docs ORDER BY doc")]
    marks = ",".join("?" * len(tokens))
    postings = db.execute(f"SELECT token, doc, count FROM postings WHERE token IN ({marks})", tokens).fetchall()
    db.close()
"""
)


def _docs(path: Path) -> tuple[object, list]:
    data = path.read_bytes()
    indexer = JOURNAL_INDEXER if path.suffix == ".ndjson" else NOTE_INDEXER
    built = indexer.build(data, 0).docs
    assert built is not None
    return indexer, built


def _binary(indexer: object, docs: list, where: Path) -> None:
    writer = IndexWriter(indexer, LEXICAL)  # type: ignore[arg-type]
    for doc in docs:
        writer.add(doc)
    save(str(where), writer.encode(root="/r", relative="f", identity=(0, 0, 0, 0, 0), built_ns=0, digest=b"",
                                   size=0, covered=0))  # fmt: skip


def _sqlite(indexer: object, docs: list, where: Path) -> None:
    columns = indexer.columns  # type: ignore[attr-defined]
    db = sqlite3.connect(where)
    with db:
        db.execute("CREATE TABLE header (name TEXT PRIMARY KEY, value) WITHOUT ROWID")
        cols = "".join(f", col{n}" for n in range(len(columns)))
        db.execute(f"CREATE TABLE docs (doc INTEGER PRIMARY KEY, length INTEGER{cols}, blob BLOB)")
        db.execute(
            "CREATE TABLE postings (token TEXT, doc INTEGER, count INTEGER, PRIMARY KEY (token, doc)) WITHOUT ROWID"
        )
        db.executemany(
            "INSERT INTO header VALUES (?, ?)", [("version", 1), ("space", LEXICAL.key), ("indexer", indexer.key)]
        )  # type: ignore[attr-defined]
        rows, postings = [], []
        for number, doc in enumerate(docs):
            counts, length = LEXICAL.analyse(doc.text, doc.headed)
            rows.append((number, length, *doc.cols, doc.blob))
            postings.extend((token, number, count) for token, count in counts.items())
        marks = ", ".join("?" * (len(columns) + 3))
        db.executemany(f"INSERT INTO docs VALUES ({marks})", rows)
        db.executemany("INSERT INTO postings VALUES (?, ?, ?)", postings)
    db.close()


def _time(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mem-bench-sqlite-") as tmp:
        base = Path(tmp)
        medium, large, brain = base / "medium", base / "large", base / "brain"
        medium.mkdir()
        large.mkdir()
        make_corpus(medium)
        make_large(large, brain)
        env = dict(os.environ)
        for label, roots in (("2 MB", [medium]), ("20 MB", [large, brain])):
            sources = sorted(p for root in roots for p in root.rglob("*") if p.suffix in (".md", ".ndjson"))
            built = [_docs(p) for p in sources]
            files: dict[str, list[str]] = {"binary": [], "sqlite": []}
            build_ms: dict[str, float] = {}
            for kind, write in (("binary", _binary), ("sqlite", _sqlite)):
                started = time.perf_counter()
                for number, (indexer, docs) in enumerate(built):
                    where = base / f"{label[:-3]}-{kind}-{number}.idx"
                    write(indexer, docs, where)
                    files[kind].append(str(where))
                build_ms[kind] = (time.perf_counter() - started) * 1000
            walls: dict[str, list[float]] = {name: [] for name in ("pass", "base", "binary", "sqlite")}
            commands = {
                "pass": [sys.executable, "-c", "pass"],
                "base": [sys.executable, "-c", _BASE],
                "binary": [sys.executable, "-c", _BINARY, " ".join(QUERY), *files["binary"]],
                "sqlite": [sys.executable, "-c", _SQLITE, " ".join(QUERY), *files["sqlite"]],
            }
            for cmd in commands.values():
                _time(cmd, env)
            for _ in range(args.runs):
                for name, cmd in commands.items():
                    walls[name].append(_time(cmd, env))
            median = {name: statistics.median(values) for name, values in walls.items()}
            rows.append(
                {
                    "corpus": label,
                    "files": len(sources),
                    "pass_ms": round(median["pass"], 1),
                    **{f"build_ms_{k}": round(build_ms[k]) for k in ("binary", "sqlite")},
                    **{f"bytes_{k}": sum(os.path.getsize(f) for f in files[k]) for k in ("binary", "sqlite")},
                    **{f"lookup_ms_{k}": round(median[k], 1) for k in ("binary", "sqlite")},
                    "base_ms": round(median["base"], 1),
                    **{f"lookup_over_base_ms_{k}": round(median[k] - median["base"], 1) for k in ("binary", "sqlite")},
                }
            )
    print(f"recall index format: binary against SQLite — python {sys.version.split()[0]}, {args.runs} runs")
    print("(base: python importing what recall imports before any index, whole process)")
    pairs = {"build ms": "build_ms", "bytes": "bytes", "lookup ms": "lookup_ms", "beyond base": "lookup_over_base_ms"}
    print(" | ".join(["corpus", "files", *pairs, "base", "pass"]) + "   (binary / sqlite)")
    for r in rows:
        cells = [str(r["corpus"]), str(r["files"])]
        cells += [f"{r[key + '_binary']} / {r[key + '_sqlite']}" for key in pairs.values()]
        print(" | ".join([*cells, str(r["base_ms"]), str(r["pass_ms"])]))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
