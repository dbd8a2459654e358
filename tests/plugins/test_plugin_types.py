"""The plugin API is typed: ``mem_core`` ships ``py.typed``, every name of
``mem_core.plugin`` and ``mem_core`` resolves for a type checker to what the
lazy ``__getattr__`` loads at run time, and the example plugins of the docs
pass ``mypy --strict`` as a third party's code would (``mem_core`` found as
an installed package, the examples outside the repository)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mem_core
import mem_core.plugin
from tests.conftest import REPO
from tests.plugins.test_plugins_from_docs import MEM_ROOT, PLUGINS, doc_files

#: what the checked file asks mypy to reveal, and what it must name
REVEALED = {
    "mem_core.plugin.Ranker": "mem_core.retrieval.interfaces.Ranker",
    "mem_core.plugin.MemoryStore": "mem_core.memories.interfaces.MemoryStore",
    "mem_core.plugin.tokenize": "def (text: str, *, lowered: bool =) -> list[str]",
    "mem_core.plugin.json_dumps": ") -> str",
    "mem_core.recall": "mem_core.retrieval.results.RecallResult",
    "mem_core.remember": "mem_core.memories.results.RememberResult",
}


def type_checking_names(module: object) -> dict[str, object]:
    """Name -> object for every name bound under ``if TYPE_CHECKING:`` in
    ``module``'s source, resolved as the import statements say."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
    ]
    bound: dict[str, object] = {}
    for node in block.body:
        if isinstance(node, ast.ImportFrom) and node.module != "typing":
            for alias in node.names:
                bound[alias.asname or alias.name] = getattr(importlib.import_module(node.module or ""), alias.name)
        elif isinstance(node, ast.Assign):
            (target,) = node.targets
            assert isinstance(target, ast.Name) and isinstance(node.value, ast.Name)
            bound[target.id] = bound.pop(node.value.id)
        elif isinstance(node, ast.AnnAssign):  # declared for the type checker, made by __getattr__
            assert isinstance(node.target, ast.Name)
            bound[node.target.id] = getattr(module, node.target.id)
    return {name: value for name, value in bound.items() if not name.startswith("_")}


@pytest.mark.parametrize("module", [mem_core.plugin, mem_core], ids=["mem_core.plugin", "mem_core"])
def test_every_lazy_name_is_imported_for_type_checkers(module: object) -> None:
    names = type_checking_names(module)
    eager = {"MemError", "TryAgain", "ExitCode", "__version__"}  # bound at run time already
    assert set(names) == set(module.__all__) - eager  # type: ignore[attr-defined]
    for name, value in names.items():
        assert getattr(module, name) is value, name


def test_hookimpl_is_one_pluggy_marker_made_on_first_use() -> None:
    import pluggy

    assert mem_core.plugin.hookimpl is mem_core.hookimpl
    assert isinstance(mem_core.hookimpl, pluggy.HookimplMarker) and mem_core.hookimpl.project_name == "mem"


def test_every_name_of_the_plugin_api_is_documented() -> None:
    page = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = page[page.index("### What `mem_core.plugin` offers") : page.index("## Broken plugins")]
    assert set(mem_core.plugin.__all__) - set(re.findall(r"`(\w+)`", section)) == set()


def test_mem_core_is_marked_typed() -> None:
    assert (MEM_ROOT / "mem_core" / "py.typed").is_file()


def test_the_docs_example_plugins_pass_mypy_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (tox's test env installs it)")
    assert not tmp_path.resolve().is_relative_to(REPO)
    files = doc_files()
    checked = [name for name in files if name in PLUGINS]
    assert sorted(checked) == sorted(PLUGINS)
    for name in checked:
        (tmp_path / name).write_text(files[name], encoding="utf-8")
    reveal = "import mem_core\nimport mem_core.plugin\n\n" + "".join(f"reveal_type({e})\n" for e in REVEALED)
    (tmp_path / "reveal.py").write_text(reveal, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), *checked, "reveal.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    notes = [line for line in proc.stdout.splitlines() if "Revealed type is" in line]
    assert len(notes) == len(REVEALED), proc.stdout
    for note, (expression, named) in zip(notes, REVEALED.items(), strict=True):
        assert named in note and "Any" not in note.split("Revealed type is", 1)[1].split("->")[-1], (expression, note)
