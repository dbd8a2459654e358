"""``mem_core.testing``, the pytest plugin shipped to plugin authors.

The proof that it serves a third party: a project built in a temporary
directory outside the repository from the code blocks of ``docs/testing.md``
(its own JSON-file store, written against ``mem_core.plugin`` only, and its
own tests) passes ``python -m pytest -p mem_core.testing`` run there in a real
process, with the expected number of tests; backends that break the contract
fail it. Then the fixtures, here in-process (the repository loads the plugin
in ``tests/conftest.py``).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import mem_core
from mem_core import hookimpl
from mem_core.clock import now_iso
from mem_core.plugin import MemoryStore
from mem_core.testing import NOW, MemoryStoreContract
from tests.plugins.dict_store import DictStore

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs" / "testing.md"
#: the directory that makes ``mem_core`` importable (this worktree)
MEM_ROOT = Path(mem_core.__file__).resolve().parent.parent
#: a fenced block whose first line names its file: ``# json_store.py``
FILE_BLOCK = re.compile(r"^```\w*\n# ([\w.]+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def contract_size() -> int:
    """How many tests one ``MemoryStoreContract`` subclass holds, counted from
    the class (parametrizations multiplied), not from a pytest run."""
    total = 0
    for name in dir(MemoryStoreContract):
        if name.startswith("test"):
            marks = getattr(getattr(MemoryStoreContract, name), "pytestmark", [])
            total += math.prod(len(m.args[1]) for m in marks if m.name == "parametrize")
    return total


def docs_project(root: Path) -> Path:
    """The example project of docs/testing.md, written under ``root``."""
    files = dict(FILE_BLOCK.findall(DOCS.read_text(encoding="utf-8")))
    assert {"json_store.py", "test_contract.py", "test_plugin.py", "pyproject.toml"} <= set(files)
    project = root / "mem-json-store"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    return project


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest <args>`` in ``project``, in a clean environment where
    only ``mem_core`` and the project are importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEM_", "PYTEST", "PYTHON"))}
    env["PYTHONPATH"] = os.pathsep.join([str(MEM_ROOT), str(project)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def summary(proc: subprocess.CompletedProcess[str]) -> str:
    """The last line of a ``pytest -q`` run, without its timing."""
    return re.sub(r" in [\d.]+s.*$", "", proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("third-party")
    assert not root.resolve().is_relative_to(REPO) and not root.resolve().is_relative_to(MEM_ROOT)
    return root


def test_the_contract_has_the_size_the_docs_state() -> None:
    assert contract_size() == 57
    assert f"{contract_size() + 2} passed" in DOCS.read_text(encoding="utf-8")


def test_a_third_party_store_written_from_the_docs_passes_the_shipped_suite(outside: Path) -> None:
    project = docs_project(outside)
    for name in ("json_store.py", "test_contract.py", "test_plugin.py"):
        imports = re.findall(r"^(?:from|import) (\S+)", (project / name).read_text(), re.MULTILINE)
        assert {i for i in imports if i.startswith("mem")} <= {"mem_core.plugin", "mem_core.testing", "mem_core"}
    assert re.findall(r"^from (mem\S*)", (project / "json_store.py").read_text(), re.MULTILINE) == ["mem_core.plugin"]
    proc = run_pytest(project, "-p", "mem_core.testing")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary(proc) == f"{contract_size() + 2} passed", proc.stdout
    assert (project / "test_contract.py").read_text().count("def test") == 0  # every contract test is shipped


BROKEN_STORES = '''\
"""Backends that break the contract, each in one way."""

import copy

from json_store import JsonStore


class RewritingHistoryStore(JsonStore):
    """An update overwrites the memory's last history entry instead of appending one."""

    name = "json-rewriting-history"

    def _log(self, state, record, action, at):
        if action in ("update", "verify"):
            for entry in reversed(state["history"]):
                if entry["memory_id"] == record["id"]:
                    entry.update(action=action, at=at, memory=copy.deepcopy(record))
                    return
        super()._log(state, record, action, at)


class CaseSensitiveStore(JsonStore):
    """Search finds a memory only when it holds every word as typed: case
    counts, and one missing word hides it."""

    name = "json-case-sensitive"

    def search(self, query_words, where):
        def text(r):
            return " ".join([r["key"], r["content"], *r["tags"]])

        return [r for r in super().search(query_words, where) if all(w in text(r) for w in query_words)]
'''

TEST_BROKEN = """\
from broken_stores import CaseSensitiveStore, RewritingHistoryStore
from mem_core.testing import MemoryStoreContract


class TestRewritingHistory(MemoryStoreContract):
    store_class = RewritingHistoryStore


class TestCaseSensitive(MemoryStoreContract):
    store_class = CaseSensitiveStore


class TestNoBackend(MemoryStoreContract):
    pass
"""


def test_backends_that_break_the_contract_fail_it(outside: Path) -> None:
    project = outside / "mem-broken-stores"
    project.mkdir()
    (project / "json_store.py").write_text(dict(FILE_BLOCK.findall(DOCS.read_text()))["json_store.py"])
    (project / "broken_stores.py").write_text(BROKEN_STORES)
    (project / "test_broken.py").write_text(TEST_BROKEN)
    proc = run_pytest(project, "-p", "mem_core.testing", "test_broken.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = set(re.findall(r"^FAILED test_broken.py::(\S+)", proc.stdout, re.MULTILINE))
    assert failed == {
        "TestRewritingHistory::test_update_keeps_every_previous_value",
        "TestRewritingHistory::test_an_imported_memory_keeps_its_history_as_it_was",
        "TestCaseSensitive::test_search_covers_key_content_and_tags_without_case_or_accents",
        "TestCaseSensitive::test_search_input_is_never_query_syntax",
        "TestCaseSensitive::test_search_matches_any_word_and_applies_the_filter",
        "TestCaseSensitive::test_search_ranks_memories_matching_more_words_first",
        "TestCaseSensitive::test_search_finds_stems_and_prefixes",
    }, proc.stdout
    errors = re.findall(r"^ERROR test_broken.py::(\w+)::", proc.stdout, re.MULTILINE)
    assert errors == ["TestNoBackend"] * contract_size()
    assert "mem_core.testing: set store_class on your MemoryStoreContract subclass" in proc.stdout
    assert summary(proc) == f"7 failed, {2 * contract_size() - 7} passed, {contract_size()} errors"


def test_the_plugin_is_loaded_only_when_asked_for(outside: Path) -> None:
    assert not [ep for ep in entry_points(group="pytest11") if ep.value.startswith("mem_core")]
    assert "pytest11" not in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    project = outside / "mem-without-plugin"
    project.mkdir()
    (project / "json_store.py").write_text(dict(FILE_BLOCK.findall(DOCS.read_text()))["json_store.py"])
    (project / "test_contract.py").write_text(dict(FILE_BLOCK.findall(DOCS.read_text()))["test_contract.py"])
    proc = run_pytest(project, "test_contract.py")
    assert proc.returncode == 1 and "fixture 'mem_store' not found" in proc.stdout, proc.stdout


def test_importing_the_plugin_is_cheap() -> None:
    code = (
        "import sys, mem_core.testing; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'sqlite3', 'mem_plugins', 'typer')"
        " or m == 'mem_core.kernel.manager'))"
    )
    env = {**os.environ, "PYTHONPATH": str(MEM_ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "[]\n", proc.stdout + proc.stderr


# -- the fixtures -------------------------------------------------------------------------


def test_mem_project_is_an_empty_directory_and_keeps_the_user_store_in_the_test(
    mem_project: Path, tmp_path: Path
) -> None:
    assert mem_project.is_dir() and list(mem_project.iterdir()) == []
    assert mem_project.parent == tmp_path
    assert Path(os.environ["MEM_USER_DIR"]).parent == tmp_path


def test_mem_now_pins_the_clock(mem_now: str) -> None:
    assert mem_now == NOW == os.environ["MEM_NOW"] == now_iso()


class DictStorePlugin:
    @hookimpl
    def mem_register_stores(self) -> list[type[MemoryStore]]:
        return [DictStore]


def test_bare_kernel_has_no_plugins(bare_kernel: mem_core.Kernel) -> None:
    assert bare_kernel.plugin_infos() == []
    for registry in (bare_kernel.stores, bare_kernel.rankers, bare_kernel.note_sources, bare_kernel.reward_signals):
        assert len(registry) == 0


@pytest.fixture
def shell_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A shell that names a team plugin and blocks a default one."""
    plugin = tmp_path / "team_ranker.py"
    plugin.write_text(
        "from mem_core.plugin import Ranker, hookimpl\n\n"
        "class Team(Ranker):\n    name = 'test-team'\n\n"
        "@hookimpl\ndef mem_register_rankers():\n    return [Team]\n"
    )
    monkeypatch.setenv("MEM_PLUGINS", str(plugin))
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "lexical")
    return str(plugin)


def test_default_kernel_has_the_defaults_and_nothing_from_the_shell(
    shell_plugins: str, default_kernel: mem_core.Kernel
) -> None:
    assert {"sqlite", "postgres"} <= set(default_kernel.stores.names())
    assert "lexical" in default_kernel.rankers and "test-team" not in default_kernel.rankers
    assert {info.origin for info in default_kernel.plugin_infos()} == {"default"}
    assert os.environ["MEM_PLUGINS"] == shell_plugins and os.environ["MEM_DISABLE_PLUGINS"] == "lexical"


def test_make_kernel_builds_a_fresh_manager_each_time(
    make_kernel: Callable[..., mem_core.Kernel], bare_kernel: mem_core.Kernel
) -> None:
    plugin = DictStorePlugin()
    with_it = make_kernel(plugin)
    with_defaults = make_kernel(plugin, defaults=True)
    assert with_it.stores.names() == ["dict"] and len(with_it.rankers) == 0
    assert with_defaults.stores.names()[-1] == "dict" and "sqlite" in with_defaults.stores
    assert with_defaults.stores.provider("dict") == "DictStorePlugin"
    assert "dict" not in make_kernel().stores and "dict" not in bare_kernel.stores
    assert len({id(with_it.pm), id(with_defaults.pm), id(bare_kernel.pm)}) == 3
