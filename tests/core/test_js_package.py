"""mem_core.js: one ``undefined``, one key order, one ``Number()``, one set of
string helpers, and no import cycle through the clock or the evidence records."""

from __future__ import annotations

import ast
import copy
import math
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.js import jsonfmt, numbers, record, strings, values

ROOT = Path(__file__).resolve().parents[2]


def test_there_is_one_undefined_and_it_is_falsy() -> None:
    from mem_core.api import reinforce as reinforcement_api
    from mem_core.evidence import models

    assert record.UNDEFINED is values.UNDEFINED is models.UNDEFINED is reinforcement_api.UNDEFINED
    assert type(values.UNDEFINED)() is values.UNDEFINED
    assert copy.deepcopy(values.UNDEFINED) is values.UNDEFINED
    assert pickle.loads(pickle.dumps(values.UNDEFINED)) is values.UNDEFINED
    assert not values.UNDEFINED and repr(values.UNDEFINED) == "undefined"
    assert not values.truthy(values.UNDEFINED) and values.truthy([]) and values.truthy({})


def test_string_of_undefined_and_of_arrays_holding_it() -> None:
    assert values.js_string(values.UNDEFINED) == "undefined"
    assert values.js_string([None, values.UNDEFINED, 1, [2, 3]]) == ",,1,2,3"
    assert record.join([None, values.UNDEFINED, "a"], "-") == "--a"


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (" 0x1F ", 31.0),
        ("0b11", 3.0),
        ("-Infinity", -math.inf),
        ("", 0.0),
        ("1e3", 1000.0),
        ([], 0.0),
        ([5], 5.0),
        (["0x10"], 16.0),
        ([1, 2], math.nan),
        ({}, math.nan),
        (None, 0.0),
        (True, 1.0),
        ("1_000", math.nan),
    ],
)
def test_number_conversion(value: object, number: float) -> None:
    result = numbers.js_to_number(value)
    assert (math.isnan(result) and math.isnan(number)) or result == number
    assert math.isnan(numbers.js_to_number(values.UNDEFINED))


def test_key_order_is_one_function_applied_shallow_or_deep() -> None:
    obj = {"b": 1, "10": {"z": 0, "2": 1, "1": 2}, "2": [{"1": 0, "0": 1}], "01": 3, "4294967295": 4}
    shallow = jsonfmt.js_key_order(obj)
    assert list(shallow) == ["2", "10", "b", "01", "4294967295"]
    assert list(shallow["10"]) == ["z", "2", "1"]  # shallow leaves inner objects as they are
    deep = jsonfmt.reorder(obj)
    assert list(deep["10"]) == ["1", "2", "z"] and list(deep["2"][0]) == ["0", "1"]
    assert record.reorder is jsonfmt.reorder
    plain = {"b": 1, "a": 2}
    assert jsonfmt.js_key_order(plain) is plain
    assert [k for k in ("0", "7", "4294967294", "4294967295", "07", "-1", "") if jsonfmt.is_array_index(k)] == [
        "0",
        "7",
        "4294967294",
    ]


def test_string_helpers_count_and_cut_utf16_units() -> None:
    assert strings.js_trim("\ufeff\u3000 a \u2028") == "a"
    assert strings.utf16_len("a😀") == 3
    assert strings.utf16_prefix("a😀b", 2) == "a\ud83d"
    assert strings.js_sorted(["😀", "\uffff", "b"]) == ["b", "😀", "\uffff"]


def _runtime_nodes(tree: ast.AST, top_level_only: bool = False) -> list[ast.AST]:
    """The nodes that run: everything but ``if TYPE_CHECKING:`` blocks (and,
    with ``top_level_only``, but function bodies)."""
    nodes: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        nodes.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                todo.extend(child.orelse)
                continue
            if top_level_only and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            todo.append(child)
    return nodes


def _imports(path: Path, module: str, top_level_only: bool = False) -> set[str]:
    """Every mem_core/mem_plugins module ``path`` imports when it runs, at any
    depth of the code (``top_level_only``: when it is imported)."""
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text()), top_level_only):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("mem_core", "mem_plugins") and name != module}


def _graph(top_level_only: bool = False) -> dict[str, set[str]]:
    modules: dict[str, Path] = {}
    for package in ("mem_core", "mem_plugins"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return {name: {m for m in _imports(path, name, top_level_only) if m in modules} for name, path in modules.items()}


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        for nxt in graph.get(current, ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


@pytest.mark.parametrize(
    "module",
    [
        "mem_core.clock",
        "mem_core.js.jsdate",
        "mem_core.js.values",
        "mem_core.js.numbers",
        "mem_core.js.numtext",
        "mem_core.js.isodate",
        "mem_core.js.strings",
        "mem_core.js.jsonfmt",
        "mem_core.js.record",
        "mem_core.evidence.models",
        "mem_core.api.evidence",
        "mem_core.evidence.messages",
    ],
)
def test_no_import_cycle_runs_through(module: str) -> None:
    graph = _graph()
    assert module in graph
    cycle = [other for other in graph[module] if _reaches(graph, other, module)]
    assert cycle == [], f"{module} imports {cycle}, which import {module} back"


def test_no_module_imports_itself_back_at_import_time() -> None:
    """No import cycle anywhere in mem_core and mem_plugins among the imports
    that run when a module is imported."""
    graph = _graph(top_level_only=True)
    cycles = sorted(f"{a} -> {b}" for a in graph for b in graph[a] if _reaches(graph, b, a))
    assert cycles == []


def test_the_js_package_imports_nothing_but_itself() -> None:
    code = (
        "import sys, mem_core; before = set(sys.modules); import mem_core.js, mem_core.js.strings;"
        "print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "['mem_core.js', 'mem_core.js.strings']"
