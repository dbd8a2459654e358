"""The ``hybrid`` ranker (issue 19): bm25 fused with the shipped MiniLM
embeddings over every source, trust labels and weight, and what happens
without the embeddings extra and in the prompt hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="the embeddings extra (tox installs it)")

from mem_core.api import memories  # noqa: E402
from mem_core.api.recall import recall  # noqa: E402
from tests.conftest import tree_bytes  # noqa: E402
from tests.humans import signer_for  # noqa: E402
from tests.nexus_builder import relocate  # noqa: E402

NOW = "2026-11-05T12:00:00.000Z"
DECISIONS = """\
### Schema changes
Migrations must be backwards compatible.
### Tokens
API tokens are revocable by their owner.
### Logging format
JSON lines on stderr, one event per line.
### Release train
We ship every second Tuesday from the main branch.
### Test database
Tests run against a throwaway PostgreSQL started per session.
"""


@pytest.fixture
def notes(project: Path) -> Path:
    memory = project / ".agents" / "memory"
    memory.mkdir(parents=True)
    (memory / "decisions.md").write_text(DECISIONS, encoding="utf-8")
    return project


def refs(query: str, project: Path, ranking: str = "hybrid", **options) -> list[str]:
    result = recall(query, directory=str(project), ranking=ranking, now=NOW, **options)
    return [hit.fields["ref"] for hit in result.results]


def test_a_question_in_other_words_finds_its_section(notes: Path) -> None:
    assert "Tokens" not in refs("how can I cancel an access key", notes, ranking="bm25")  # no word in common
    assert refs("how can I cancel an access key", notes)[0] == "Tokens"
    assert refs("when do we publish a new version", notes)[0] == "Release train"
    assert refs("migrating", notes)[0] == "Schema changes"  # bm25's half: the stems


def test_an_unrelated_note_is_not_brought_by_the_dense_list_alone(notes: Path) -> None:
    # normalised over five notes, the least unrelated would score well: the
    # cosine floor for what bm25 found nothing in keeps them out
    assert refs("which day do we release", notes) == ["Release train"]
    assert refs("write a haiku about cats", notes) == []
    assert refs("how can I cancel an access key", notes) == ["Tokens"]  # a paraphrase stays


def test_every_source_takes_part_and_each_result_says_its_trust(notes: Path, mem, now: str) -> None:
    project = str(notes)
    memories.remember("fact", "deploy_window", "Production deploys happen on Tuesday afternoons", directory=project)
    memories.remember(
        "preference", "release_day", "Releases go out on Tuesdays", as_user=True, signer=signer_for(project),
        directory=project,
    )  # fmt: skip
    run = mem("write", "--agent", "dev", "--task", "prepared the Tuesday release notes", "-d", project)
    assert run.code == 0, run.err
    run = mem("recall", "which day do we release", "--ranking", "hybrid", "--json", "-d", project)
    assert run.code == 0, run.err
    results = json.loads(run.out)["results"]
    kinds = {hit["kind"] for hit in results}
    assert kinds == {"note", "memory", "event"}, results
    trust = {hit["ref"]: hit["trust"] for hit in results}
    assert trust["preference/release_day"] == "verified" and trust["fact/deploy_window"] == "unverified"
    assert trust["Release train"] == "unverified"
    text = mem("recall", "which day do we release", "--ranking", "hybrid", "-d", project).out
    assert "memory user § preference/release_day [verified]" in text or "[verified]" in text, text
    assert "note decisions.md § Release train [unverified]" in text


def test_trust_weighs_as_the_setting_says(project: Path, mem) -> None:
    directory = str(project)
    for key, content in (("lunch", "Pizza on Fridays"), ("editor", "Tabs are four spaces"), ("ci", "CI runs on push")):
        memories.remember("note", key, content, directory=directory)  # so that min-max has a floor below both
    memories.remember("fact", "cache_a", "Cache entries live for one hour", directory=directory)
    memories.remember(
        "fact", "cache_b", "Cache entries live for one hour", as_user=True, signer=signer_for(directory),
        directory=directory,
    )  # fmt: skip

    def scores(weight: str) -> dict[str, float]:
        run = mem("recall", "how long are cache entries kept", "--ranking", "hybrid", "--json", "-d", directory,
                  env={"MEM_RECALL_TRUST_WEIGHT": weight})  # fmt: skip
        assert run.code == 0, run.err
        return {hit["ref"]: hit["score"] for hit in json.loads(run.out)["results"]}

    plain, trusted = scores("0"), scores("0.1")
    assert trusted["fact/cache_a"] == pytest.approx(plain["fact/cache_a"])
    assert trusted["fact/cache_b"] == pytest.approx(plain["fact/cache_b"] * 1.1)
    assert list(trusted)[0] == "fact/cache_b"


def test_a_note_a_receipt_backs_says_so(bmad_project: Path) -> None:
    relocate(bmad_project)  # the receipts of tests/fixtures, current for this copy
    result = recall("cache values", directory=str(bmad_project), ranking="hybrid", now=NOW)
    labels = {hit.fields["ref"]: hit.extra["trust"] for hit in result.results if hit.fields["kind"] == "note"}
    assert labels["Cache contract"] == "receipt: accepted-current", labels
    assert labels["Cache shortcut"] == "unverified"


def test_the_vectors_go_to_the_user_cache_never_the_project(notes: Path, tmp_path: Path) -> None:
    before = tree_bytes(notes)
    refs("how can I cancel an access key", notes)
    assert tree_bytes(notes) == before
    assert list((tmp_path / "user-cache" / "mem" / "embeddings").glob("*.sqlite"))


def _python(code: str, project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


BLOCKED = "import sys; sys.modules['onnxruntime'] = None; from mem_cli.main import main; sys.exit(main(sys.argv[1:]))"


def test_without_the_extra_it_says_so_once_and_bm25_serves(notes: Path, mem) -> None:
    bm25 = mem("recall", "migrating tokens", "--ranking", "bm25", "-d", str(notes))
    run = subprocess.run(
        [sys.executable, "-c", BLOCKED, "recall", "migrating tokens", "--ranking", "hybrid", "-d", str(notes)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        "mem: the hybrid ranking needs the embeddings extra (pip install 'mem-agent-memory[embeddings]'); "
        "ranking with bm25"
    ]
    labelled = [line + " [unverified]" if " § " in line else line for line in bm25.out.splitlines()]
    assert run.stdout.splitlines() == labelled  # bm25's results, labelled all the same
    assert "§ Schema changes [unverified]" in run.stdout and "§ Tokens [unverified]" in run.stdout


def test_the_prompt_hook_ranks_bm25_and_never_loads_the_model(notes: Path) -> None:
    (notes / ".bmad" / "memory").mkdir(parents=True)
    (notes / ".bmad" / "memory" / "mem.toml").write_text('recall_ranking = "hybrid"\n', encoding="utf-8")
    code = (
        "import json, sys\n"
        "from mem_core.hooks.prompt import prompt_context\n"
        "found = prompt_context(sys.argv[1], project='.', budget=600, kernel=None)\n"
        "print(json.dumps([found.floor, [hit.fields['ref'] for hit in found.results]]))\n"
        "print(json.dumps(sorted(name for name in ('onnxruntime', 'numpy', 'tokenizers') if name in sys.modules)))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, "are schema migrations backwards compatible?"],
        cwd=notes,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    found, loaded = run.stdout.splitlines()
    assert json.loads(found) == [3.0, ["Schema changes"]]  # bm25's floor and answer
    assert json.loads(loaded) == []


def test_a_large_first_build_goes_to_the_background_when_nobody_watches(
    notes: Path, mem, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from mem_plugins.rankers import hybrid

    monkeypatch.setattr(hybrid, "FOREGROUND", 2)  # the notes have 5 sections
    monkeypatch.setattr(hybrid, "_warned", False)
    monkeypatch.setattr(hybrid, "_children", [])
    bm25 = mem("recall", "cancel an access token", "--ranking", "bm25", "--json", "-d", str(notes))
    first = mem("recall", "cancel an access token", "--ranking", "hybrid", "--json", "-d", str(notes))
    assert first.code == 0 and first.err == (
        "mem: embedding 5 texts for the hybrid ranking in the background; ranking with bm25 until they are ready\n"
    )
    served = json.loads(first.out)["results"]
    assert [{k: v for k, v in hit.items() if k != "trust"} for hit in served] == json.loads(bm25.out)["results"]
    assert {hit["trust"] for hit in served} == {"unverified"}  # bm25 served, no wait, labelled
    again = mem("recall", "access key", "--ranking", "hybrid", "--json", "-d", str(notes))
    assert again.code == 0 and len(hybrid._children) == 1  # one builder at a time, even before it locks
    deadline = time.monotonic() + 90
    while True:  # the background process (a real one) embeds the five sections
        run = mem("recall", "how can I cancel an access key", "--ranking", "hybrid", "--json", "-d", str(notes))
        results = json.loads(run.out)["results"]
        if results and results[0]["ref"] == "Tokens":  # bm25 cannot find it: the vectors are there
            break
        assert time.monotonic() < deadline, run.err
        time.sleep(0.5)
    assert results[0]["ref"] == "Tokens"
    (builder,) = hybrid._children
    assert builder.wait(timeout=60) == 0


def test_the_portfolio_and_every_project_rank_too(mem, tmp_path: Path) -> None:
    def made(root: Path, text: str) -> Path:
        (root / ".agents/memory").mkdir(parents=True)
        (root / ".agents/memory/decisions.md").write_text(text, encoding="utf-8")
        return root

    alpha = made(tmp_path / "alpha", DECISIONS)
    beta = made(tmp_path / "beta", "### Access keys\nKeys are rotated every ninety days.\n")
    brain = made(tmp_path / "brain", "")
    (brain / "memory").mkdir()
    (brain / "memory/lessons.md").write_text("### Credentials\nNever commit a secret key.\n", encoding="utf-8")
    assert mem("portfolio", "add", str(alpha), str(beta)).code == 0
    assert mem("portfolio", "brain", str(brain)).code == 0
    every = mem("recall", "how often do we change access credentials", "--scope", "all", "--ranking", "hybrid",
                "--json", "-d", str(alpha))  # fmt: skip
    assert every.code == 0, every.err
    results = json.loads(every.out)["results"]
    top = {(hit["ref"], hit.get("project")) for hit in results[:2]}
    assert ("Access keys", str(beta)) in top, results  # another project's section, in other words
    assert {hit["trust"] for hit in results} == {"unverified"}
    text = mem("recall", "secret credentials", "--scope", "portfolio", "--ranking", "hybrid", "-d", str(alpha))
    assert "note lessons.md § Credentials (brain) [unverified]" in text.out, text.out


def test_echo_events_never_out_normalise_the_notes_in_the_hook(notes: Path, monkeypatch) -> None:
    """An echo of the very prompt has a cosine of about 1 with it: ranked,
    it is the dense list's best and presses every note's normalised score
    down (benchmarks/bench_hook_precision.py: 9 points of hit rate after 60
    sessions). The hook's recall leaves echoes out, so it injects what it
    injected before any session was journalled, scores included."""
    from mem_core.api.write import write
    from mem_core.hooks import prompt as hook_prompt

    monkeypatch.setenv("MEM_EMBEDDINGS_BUILD", "foreground")
    prompt = "what database do the tests run against"

    def injected() -> list[tuple[str, float]]:
        found = hook_prompt.prompt_context(prompt, project=str(notes), budget=600, kernel=None, ranking="hybrid")
        return [(hit.fields["ref"], round(hit.score, 6)) for hit in found.results]

    before = injected()
    assert [ref for ref, _score in before] == ["Test database"]
    write(agent="claude-code", cli="claude-code", task=prompt, directory=str(notes), via="session-end", now=NOW)
    assert injected() == before
    monkeypatch.setattr(hook_prompt, "ECHO", "no such writer")  # echoes ranked: the test can fail
    assert injected() != before


def test_doctor_says_when_the_extra_is_missing(notes: Path, monkeypatch) -> None:
    from mem_core.doctor import doctor

    (notes / ".bmad" / "memory").mkdir(parents=True)
    (notes / ".bmad" / "memory" / "mem.toml").write_text('recall_ranking = "hybrid"\n', encoding="utf-8")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if not installed
    said = {check.name: (check.status, check.detail) for check in doctor(str(notes)).checks}
    assert said["recall"] == ("warn", "the hybrid ranking needs the embeddings extra "
                              "(pip install 'mem-agent-memory[embeddings]'); ranking with bm25")  # fmt: skip
    assert "prompt hook" not in said


def test_the_model_reads_the_whole_prompt_and_bm25_its_words(notes: Path, monkeypatch) -> None:
    """The prompt hook asks recall for the prompt's words (its common words
    would only lower bm25's coverage) and gives the embedding model the
    prompt as written: on the calibrate half of benchmarks/hooks/ that
    found one more section of 22 (docs/recall.md)."""
    from mem_core.hooks.prompt import prompt_context
    from mem_plugins.rankers import hybrid

    monkeypatch.setenv("MEM_EMBEDDINGS_BUILD", "foreground")
    seen: list[tuple[str, str]] = []
    cosines = hybrid.HybridRanker._cosines

    def spy(query, *rest):  # type: ignore[no-untyped-def]
        seen.append((query.text, query.sentence))
        return cosines(query, *rest)

    monkeypatch.setattr(hybrid.HybridRanker, "_cosines", staticmethod(spy))
    prompt = "What did we decide about the schema migrations?"
    prompt_context(prompt, project=str(notes), budget=600, kernel=None, ranking="hybrid")
    recall("schema migrations", directory=str(notes), ranking="hybrid", now=NOW)
    assert seen == [("schema migrations", prompt), ("schema migrations", "schema migrations")]
