"""Every hook is documented (docstring with versionadded, the guide's table) and
exercised by a test."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from mem_core import hookspecs

REPO = Path(__file__).resolve().parents[2]
HOOKS = [name for name, obj in vars(hookspecs).items() if name.startswith("mem_") and inspect.isfunction(obj)]


def test_there_are_hooks() -> None:
    assert {"mem_register_note_sources", "mem_register_rankers", "mem_register_reward_signals",
            "mem_register_outcome_verifiers", "mem_register_stores"} <= set(HOOKS)  # fmt: skip


@pytest.mark.parametrize("hook", HOOKS)
def test_each_hook_has_a_docstring_with_versionadded(hook: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert ".. versionadded::" in doc and len(doc.split()) > 15


@pytest.mark.parametrize("hook", HOOKS)
def test_each_hook_is_in_the_guide(hook: str) -> None:
    assert f"`{hook}`" in (REPO / "docs" / "guide.md").read_text("utf-8")


@pytest.mark.parametrize("hook", HOOKS)
def test_each_hook_is_implemented_in_a_test(hook: str) -> None:
    tests = [p for p in (REPO / "tests").rglob("test_*.py") if p.name != "test_hooks_documented.py"]
    assert any(f"def {hook}(" in p.read_text("utf-8") for p in tests), f"no test implements {hook}"
