"""Make ``token_samples.json``: English, Markdown, code and JSON samples with
their real token counts (run by hand, offline; see docs/brief.md).

    python tests/hooks/data/make_token_samples.py > /tmp/samples.json
    NODE_PATH=<dir>/node_modules node tests/hooks/data/count_tokens.cjs /tmp/samples.json \
        > tests/hooks/data/token_samples.json

``count_tokens.cjs`` needs the npm package ``gpt-tokenizer`` (3.4.0), which
ships the ``cl100k_base`` and ``o200k_base`` vocabularies.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))


def chunks(text: str, size: int) -> list[str]:
    lines, out, current = text.splitlines(keepends=True), [], ""
    for line in lines:
        if len(current) + len(line) > size and current:
            out.append(current)
            current = ""
        current += line
    if current.strip():
        out.append(current)
    return out


def main() -> None:
    samples = []
    for path in ("README.md", "CONTRIBUTING.md", "docs/settings.md", "docs/structured-memory.md"):
        for i, part in enumerate(chunks((ROOT / path).read_text(encoding="utf-8"), 1500)[:12]):
            samples.append({"name": f"markdown:{path}:{i}", "kind": "markdown", "text": part})
    for path in ("mem_core/files/io.py", "mem_plugins/rankers/lexical.py", "mem_core/settings.py",
                 "mem_cli/compat.py", "benchmarks/run.py", "mem_core/js/jsdate.py"):  # fmt: skip
        for i, part in enumerate(chunks((ROOT / path).read_text(encoding="utf-8"), 1500)[:10]):
            samples.append({"name": f"code:{path}:{i}", "kind": "code", "text": part})
    import tempfile

    from run import make_corpus  # the benchmark corpus: notes and journal lines

    with tempfile.TemporaryDirectory() as tmp:
        make_corpus(Path(tmp))
        notes = (Path(tmp) / ".agents/memory/decisions.md").read_text(encoding="utf-8")
        journal = (Path(tmp) / ".bmad/memory/journal.ndjson").read_text(encoding="utf-8")
    for i, part in enumerate(chunks(notes, 1500)[:10]):
        samples.append({"name": f"notes:{i}", "kind": "markdown", "text": part})
    for i, part in enumerate(chunks(journal, 1500)[:10]):
        samples.append({"name": f"json:{i}", "kind": "json", "text": part})
    rng = random.Random(3)
    words = "the a of to and in is it that for on with as was by this be are from at or".split()
    words += "memory session decision lesson pattern cache token budget recall prompt hook".split()
    for i in range(10):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(50, 300))) + "."
        samples.append({"name": f"prose:{i}", "kind": "english", "text": text})
    json.dump(samples, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
