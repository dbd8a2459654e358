"""The proof of ``docs/plugins.md``: its examples, as a third party would use them.

Every code block of the page headed ``# file: <name>`` is written into a
temporary directory outside the repository (with the JSON-file store of
``docs/testing.md`` the page points to), checked to import nothing from
``mem`` but ``mem_core.plugin``, and used for real: ``python -m mem_cli``
processes with ``MEM_PLUGINS`` naming the files, in a temporary project, the
clock pinned. Then each example is broken on purpose, in one way at a time,
and must be reported for itself only while ``mem recall`` keeps working.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import mem_core
from tests.conftest import NOW, REPO, Run, tree_bytes

DOCS = REPO / "docs" / "plugins.md"
TESTING_DOCS = REPO / "docs" / "testing.md"
SIGNAL_DOCS = REPO / "docs" / "plugins-reward-signals.md"
#: the directory that makes ``mem_core`` importable (this worktree)
MEM_ROOT = Path(mem_core.__file__).resolve().parent.parent
#: a fenced Python block whose first line names its file: ``# file: mem_todo.py``
FILE_BLOCK = re.compile(r"^```python\n# file: ([\w.]+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: the backend file of docs/testing.md (its blocks are headed ``# json_store.py``)
TESTING_BLOCK = re.compile(r"^```python\n# (json_store\.py)\n(.*?)^```", re.MULTILINE | re.DOTALL)

#: example file -> its registration hook and what ``mem plugins`` says it provides
PLUGINS = {
    "mem_todo.py": ("mem_register_note_sources", [{"kind": "note source", "name": "todos"}]),
    "mem_coverage.py": ("mem_register_rankers", [{"kind": "ranker", "name": "coverage"}]),
    "mem_review.py": ("mem_register_reward_signals", [{"kind": "reward signal", "name": "review"}]),
    "mem_signoff.py": ("mem_register_outcome_verifiers", [{"kind": "outcome verifier", "name": "signoff"}]),
    "json_store.py": ("mem_register_stores", [{"kind": "memory store", "name": "json"}]),
    "mem_standup.py": ("mem_register_commands", []),
}


def doc_files() -> dict[str, str]:
    files = dict(FILE_BLOCK.findall(DOCS.read_text(encoding="utf-8")))
    files.update(FILE_BLOCK.findall(SIGNAL_DOCS.read_text(encoding="utf-8")))
    files.update(TESTING_BLOCK.findall(TESTING_DOCS.read_text(encoding="utf-8")))
    return files


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples, written where a plugin author keeps them: not in the repository."""
    root = tmp_path_factory.mktemp("plugin-author")
    assert not root.resolve().is_relative_to(REPO) and not root.resolve().is_relative_to(MEM_ROOT)
    for name, text in doc_files().items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def mem(*args: str, cwd: Path, plugins: Sequence[Path] = (), **env: str) -> Run:
    """``python -m mem_cli <args>`` in ``cwd``, with only ``mem_core``
    importable from the repository and the clock pinned."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    full.update({"PYTHONPATH": str(MEM_ROOT), "PYTHONDONTWRITEBYTECODE": "1", "MEM_NOW": NOW})
    if plugins:
        full["MEM_PLUGINS"] = ",".join(str(p) for p in plugins)
    full.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def write_project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    (root / ".bmad" / "memory").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def console_after(command: str) -> str:
    """The lines the docs show after ``$ <command>``, up to the next prompt or
    the end of its block."""
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"^\$ " + re.escape(command) + r"\n(.*?)(?=^\$ |^```)", text, re.MULTILINE | re.DOTALL)
    assert match, f"docs/plugins.md shows no `$ {command}`"
    return match.group(1)


# -- the examples import only the plugin surface ---------------------------------------


def imported_modules(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a plugin file has no package to import relatively from"
            found.add(node.module or "")
    return found


def test_the_docs_have_one_example_per_kind() -> None:
    files = doc_files()
    assert set(PLUGINS) | {"test_json_store.py", "test_review.py"} <= set(files)
    for name, (hook, _provides) in PLUGINS.items():
        tree = ast.parse(files[name])
        hooks = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("mem_")]
        assert hooks == [hook], name


@pytest.mark.parametrize("name", [*PLUGINS, "test_json_store.py", "test_review.py"])
def test_each_example_imports_nothing_of_mem_but_the_plugin_surface(name: str) -> None:
    modules = imported_modules(doc_files()[name])
    # a test also calls the Python API (`mem_core.reinforce`); a plugin only ever the plugin surface
    allowed = {"mem_core", "mem_core.plugin", "mem_core.testing"} if name.startswith("test_") else {"mem_core.plugin"}
    assert {m for m in modules if m.split(".")[0] == "mem_core"} <= allowed, modules
    assert not {m for m in modules if m.split(".")[0] in ("mem_plugins", "mem_cli")}, modules
    if not name.startswith("test_"):
        assert "mem_core.plugin" in modules


def test_the_checker_sees_imports_anywhere_in_a_file() -> None:
    assert imported_modules("def f():\n    from mem_core.files import read_text\n") == {"mem_core.files"}
    assert imported_modules("import mem_plugins.rankers.lexical as x\n") == {"mem_plugins.rankers.lexical"}


# -- each example, used through mem ---------------------------------------------------------


TODO = "# TODO\n- [ ] cache the auth tokens\n- [x] drop the auth cache\n"


def test_the_note_sources_candidates_are_recalled(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"TODO.md": TODO})
    run = mem("recall", "auth", "--json", cwd=project, plugins=[outside / "mem_todo.py"])
    assert run.code == 0, run.err
    assert run.out == console_after("MEM_PLUGINS=mem_todo.py mem recall auth --json")  # the docs show the bytes
    result = json.loads(run.out)
    assert [(r["kind"], r["ref"], r["text"]) for r in result["results"]] == [
        ("todo", "line 2", "cache the auth tokens")
    ]
    without = mem("recall", "auth", "--json", cwd=project)
    assert json.loads(without.out)["count"] == 0  # the plugin, not mem, found it


def test_an_unsafe_todo_file_is_skipped_not_followed(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"elsewhere.md": TODO})
    (project / "TODO.md").symlink_to(project / "elsewhere.md")
    run = mem("recall", "auth", cwd=project, plugins=[outside / "mem_todo.py"])
    assert run.code == 0, run.err
    assert "TODO.md" in run.out + run.err and "cache the auth tokens" not in run.out


NOTES = """\
### Auth
auth auth

### Auth tokens rotate on every deploy of the whole cluster of services
They are rotated, never reused, and every service reloads them.

### Tokens
Tokens expire hourly.
"""


def test_recall_orders_by_the_plugin_ranker(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {".bmad/memory/lessons.md": NOTES})
    plugins = [outside / "mem_coverage.py"]
    ranked = json.loads(
        mem("recall", "auth", "tokens", "--ranking", "coverage", "--json", cwd=project, plugins=plugins).out
    )
    assert ranked["ranking"] == "coverage"
    assert [(r["score"], r["ref"]) for r in ranked["results"]] == [
        (1, "Auth tokens rotate on every deploy of the whole cluster of services"),
        (0.5, "Auth"),  # half the words; shorter than "Tokens"
        (0.5, "Tokens"),
    ]
    lexical = json.loads(mem("recall", "auth", "tokens", "--json", cwd=project, plugins=plugins).out)
    assert [r["ref"] for r in lexical["results"]] != [r["ref"] for r in ranked["results"]]  # the test can tell
    unknown = mem("recall", "auth", "--ranking", "coverage", cwd=project)
    assert unknown.code == 1 and "ranking must be" in unknown.err


def test_the_reward_signal_has_its_own_option_and_weight(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {})
    plugins = [outside / "mem_review.py"]
    helped = mem("reinforce", "--help", cwd=project, plugins=plugins)
    assert re.search(r"^  --review VALUE +Code review: approve \| reject", helped.out, re.MULTILINE), helped.out
    assert "--review" in mem("write", "--help", cwd=project, plugins=plugins).out
    assert "--review" not in mem("reinforce", "--help", cwd=project).out

    alone = mem("reinforce", "--pattern", "p", "--review", "0.8", "--json", cwd=project, plugins=plugins)
    assert alone.code == 0, alone.err
    assert json.loads(alone.out)["reward"] == 0.4 * 0.8 / 0.4  # Σ weight·value / Σ weight, over the one signal given
    both = mem("reinforce", "--pattern", "q", "--review", "0.8", "--ci", "pass", cwd=project, plugins=plugins)
    assert both.code == 0, both.err
    assert '  reward   0.867 (from {"ci":"pass","review":0.8})' in both.out  # (0.2·1 + 0.4·0.8) / 0.6
    assert set(json.loads((project / ".bmad/memory/pattern-scores.json").read_text())) == {"p", "q"}

    wrote = mem("write", "--agent", "forge", "--task", "Fix cache", "--outcome", "success", "--review", "approve",
                cwd=project, plugins=plugins)  # fmt: skip
    assert wrote.code == 0, wrote.err
    journal = project / ".bmad/memory/journal.ndjson"
    assert json.loads(journal.read_text().splitlines()[-1])["signals"] == {"review": "approve"}

    before = tree_bytes(project)
    refused = mem("write", "--agent", "forge", "--task", "Fix", "--outcome", "success", "--review", "7",
                  cwd=project, plugins=plugins)  # fmt: skip
    assert (refused.code, refused.err) == (1, "mem write: --review must be approve, reject or a number in [0,1]\n")
    assert tree_bytes(project) == before


LESSONS = "### Cache contract\nPreserve zero values.\n"
OBSERVATION = {
    "verifier": "signoff",
    "taskId": "cache_fix",
    "memory": {"file": ".agents/memory/lessons.md", "heading": "Cache contract"},
    "scope": ["src/cache"],
    "interpretation": "Signed off; causality is not measured.",
}


def test_the_verifier_backs_a_receipt_that_outcomes_rechecks(outside: Path, tmp_path: Path) -> None:
    project = write_project(
        tmp_path / "p",
        {
            ".agents/memory/lessons.md": LESSONS,
            "signoffs/cache_fix.txt": "accepted\nsrc/cache\n",
            "observation.json": json.dumps(OBSERVATION),
        },
    )
    plugins = [outside / "mem_signoff.py"]
    assert mem("observe", "--input", "observation.json", cwd=project).code == 1  # no such verifier without it
    observed = mem("observe", "--input", "observation.json", "--json", cwd=project, plugins=plugins)
    assert observed.code == 0, observed.err
    receipt = json.loads(observed.out)["written"]
    assert receipt["source"]["kind"] == "signoff" and receipt["source"]["scope"] == ["src/cache"]
    stored = (project / ".bmad/memory/outcomes.ndjson").read_text().splitlines()
    assert [json.loads(line)["id"] for line in stored] == [receipt["id"]]

    def status() -> str:
        run = mem("outcomes", cwd=project, plugins=plugins)
        assert run.code == 0, run.err
        return run.out

    assert status() == f"{receipt['id']}: accepted-current\n"
    again = mem("observe", "--input", "observation.json", cwd=project, plugins=plugins)
    assert again.code == 1  # one receipt per attempt
    (project / "signoffs/cache_fix.txt").write_text("accepted\nsrc/cache\nsrc/db\n")
    assert status() == f"{receipt['id']}: stale-outcome-source\n"
    (project / "signoffs/cache_fix.txt").write_text("rejected\n")
    assert status() == (
        f"{receipt['id']}: unavailable-or-ineligible-source: "
        "Signoff: signoffs/cache_fix.txt is missing or not accepted.\n"
    )


def run_pytest(directory: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """``python -m pytest -p mem_core.testing <args>`` in ``directory``, in a
    clean environment where only ``mem_core`` and the directory are
    importable; the process and the last line of its summary, without timing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEM_", "PYTEST", "PYTHON"))}
    env.update({"PYTHONPATH": os.pathsep.join([str(MEM_ROOT), str(directory)]), "PYTHONDONTWRITEBYTECODE": "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "mem_core.testing", "-p", "no:cacheprovider", *args],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    return proc, re.sub(r" in [\d.]+s.*$", "", proc.stdout.strip().splitlines()[-1])


def test_the_store_passes_the_shipped_contract_suite_from_outside(outside: Path) -> None:
    from tests.plugins.test_testing_plugin import contract_size

    proc, summary = run_pytest(outside, "test_json_store.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary == f"{contract_size()} passed"
    assert f"{contract_size()} passed" in DOCS.read_text(encoding="utf-8")


def test_the_signal_docs_test_passes_from_outside(outside: Path) -> None:
    proc, summary = run_pytest(outside, "test_review.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary == "1 passed"


def test_remember_and_memories_use_the_plugin_store(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {})
    plugins = [outside / "json_store.py"]
    stored = mem("remember", "fact", "office_city", "The office is in Berlin", "--json",
                 cwd=project, plugins=plugins, MEM_STORE="json")  # fmt: skip
    assert stored.code == 0, stored.err
    memory_id = json.loads(stored.out)["memory"]["id"]
    assert sorted(p.name for p in (project / ".bmad/memory").iterdir() if p.name.startswith("memories")) == [
        "memories.json",
        "memories.json.lock",
    ]
    listed = mem("memories", "--json", cwd=project, plugins=plugins, MEM_STORE="json")
    assert [m["id"] for m in json.loads(listed.out)["memories"]] == [memory_id]
    recalled = json.loads(mem("recall", "berlin", "--json", cwd=project, plugins=plugins, MEM_STORE="json").out)
    assert [r["kind"] for r in recalled["results"]] == ["memory"]
    # without the plugin the project's store cannot be used: an error, never a second store
    before = tree_bytes(project)
    assert mem("memories", cwd=project, MEM_STORE="json").code == 1
    assert tree_bytes(project) == before


def test_the_command_is_listed_and_runs(outside: Path, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {})
    plugins = [outside / "mem_standup.py"]
    assert re.search(r"^  standup +The tasks of the latest journal events", mem("--help", cwd=project, plugins=plugins).out, re.M)  # fmt: skip
    assert "standup" not in mem("--help", cwd=project).out
    for task in ("First task", "Second task", "Third task"):
        assert mem("write", "--agent", "forge", "--task", task, "--outcome", "success", cwd=project).code == 0
    run = mem("standup", "--last", "2", cwd=project, plugins=plugins)
    assert (run.code, run.err) == (0, "")
    assert run.out == f"{NOW}  success    Third task\n{NOW}  success    Second task\n"
    refused = mem("standup", "--last", "0", cwd=project, plugins=plugins)
    assert (refused.code, refused.out, refused.err) == (1, "", "mem standup: --last must be at least 1\n")


# -- each example, broken on purpose ------------------------------------------------------------


def misspelled(source: str, hook: str) -> str:
    """The hook's name without its final ``s`` (``mem_register_ranker``)."""
    assert hook.endswith("s") and f"def {hook}(" in source
    return source.replace(f"def {hook}(", f"def {hook[:-1]}(")


def raising(source: str, hook: str) -> str:
    """The hook raising before it registers anything."""
    broken, count = re.subn(
        rf"^(def {hook}\(.*?\)(?: -> .*?)?:\n)", r'\1    raise RuntimeError("broken on purpose")\n', source, flags=re.M
    )
    assert count == 1
    return broken


BREAKAGES = {
    "misspelled": (misspelled, lambda hook: f"unknown hook '{hook[:-1]}'"),
    "raising": (raising, lambda hook: f"{hook}: RuntimeError: broken on purpose"),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
@pytest.mark.parametrize("name", PLUGINS)
def test_a_broken_example_is_reported_for_itself_only(outside: Path, tmp_path: Path, name: str, breakage: str) -> None:
    hook, _provides = PLUGINS[name]
    breaker, expected = BREAKAGES[breakage]
    broken = tmp_path / f"broken_{name}"
    broken.write_text(breaker((outside / name).read_text(), hook))
    healthy = "mem_coverage.py" if name == "mem_todo.py" else "mem_todo.py"
    project = write_project(tmp_path / "p", {".bmad/memory/lessons.md": LESSONS, "TODO.md": TODO})
    plugins = [broken, outside / healthy]

    report = mem("plugins", "--json", cwd=project, plugins=plugins)
    assert report.code == 0, report.err
    rows = {row["name"]: row for row in json.loads(report.out)["plugins"]}
    assert expected(hook) in rows[broken.stem]["error"]
    assert rows[broken.stem]["provides"] == []
    assert rows[Path(healthy).stem]["provides"] == PLUGINS[healthy][1]
    assert [row["name"] for row in rows.values() if row["error"]] == [broken.stem]
    assert "problems" not in json.loads(report.out)

    recall = mem("recall", "cache", "--json", cwd=project, plugins=plugins)
    assert recall.code == 0, recall.err
    kinds = [r["kind"] for r in json.loads(recall.out)["results"]]
    assert "note" in kinds  # the default plugins still serve
    assert ("todo" in kinds) == (healthy == "mem_todo.py")  # and so does the healthy one


# -- the user's guide says the same ---------------------------------------------------------------


def without_docstring(source: str) -> str:
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
        tree.body = tree.body[1:]
    return ast.dump(tree)


def test_the_guide_ranker_is_the_tested_example() -> None:
    guide = (REPO / "docs" / "guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Plugins\n") :]
    assert "(plugins.md)" in section
    block = re.search(r"^```python\n# mem_coverage\.py\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block, "the guide's Plugins section shows mem_coverage.py"
    assert without_docstring(block.group(1)) == without_docstring(doc_files()["mem_coverage.py"])
    assert 'coverage = "mem_coverage"' in section
    for hook, _provides in PLUGINS.values():
        assert f"`{hook}`" in section and f"`{hook}`" in DOCS.read_text(encoding="utf-8")
