"""What the prompt hook lets through: a result needs its ranking's floor and
enough of the prompt's words (docs/brief.md, "The relevance floor")."""

from __future__ import annotations

from pathlib import Path

import pytest

from mem_core.hooks.prompt import FLOORS, hook_floor, prompt_context
from mem_core.settings import load_settings

NOTES = """\
### Hello world example
Print hello from the smallest package: a bin entry and one script.
### Publishing scoped packages
Scoped packages are private by default; publish them with public access.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    memory = tmp_path / "p" / ".bmad" / "memory"
    memory.mkdir(parents=True)
    (memory / "lessons.md").write_text(NOTES)
    return tmp_path / "p"


def refs(project: Path, prompt: str) -> list[str]:
    context = prompt_context(prompt, project=str(project), budget=600, kernel=None)  # type: ignore[arg-type]
    return [hit.fields["ref"] for hit in context.results]


@pytest.mark.parametrize("ranking", ["lexical", "bm25"])
def test_one_shared_word_is_not_enough(project: Path, ranking: str) -> None:
    # a floor that lets every score through: the words alone decide here
    (project / ".bmad/memory/mem.toml").write_text(f'recall_ranking = "{ranking}"\nhook_relevance = 0.0001\n')
    assert refs(project, "hello there!") == []  # one word, however rare
    assert refs(project, "publish a haiku about cats") == []  # one of four
    assert refs(project, "publish the scoped packages with public access") == ["Publishing scoped packages"]
    assert refs(project, "hello world") == ["Hello world example"]  # all of a two-word prompt


def test_each_ranking_has_its_floor_unless_one_is_set(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(str(project))
    assert (hook_floor(settings, "lexical"), hook_floor(settings, "bm25")) == (FLOORS["lexical"], FLOORS["bm25"])
    assert hook_floor(settings, "a-plugins-ranker") == settings.hook_relevance
    monkeypatch.setenv("MEM_HOOK_RELEVANCE", "0.5")
    settings = load_settings(str(project))
    assert (hook_floor(settings, "lexical"), hook_floor(settings, "bm25")) == (0.5, 0.5)
