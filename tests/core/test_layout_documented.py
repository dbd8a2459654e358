"""CONTRIBUTING.md's layout table names every package and module of the
kernel, every kind of default plugin and every front end; the architecture
page draws the layers; the contract the code cites is in the repository."""

from __future__ import annotations

import re

from tests.conftest import REPO

PACKAGES = ("mem_core", "mem_plugins")


def layout_paths() -> str:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text[text.index("| path | what lives there |") :]
    return " ".join(re.findall(r"^\| ([^|]+) \|", table, re.MULTILINE))


def test_the_layout_table_covers_every_package() -> None:
    paths = layout_paths()
    wanted = ["mem_cli/", "mem_server/"]
    for package in PACKAGES:
        for entry in sorted((REPO / package).iterdir()):
            if entry.is_dir() and (entry / "__init__.py").exists():
                wanted.append(f"{package}/{entry.name}/")
            elif entry.suffix == ".py" and entry.name != "__init__.py":
                wanted.append(entry.name if package == "mem_core" else f"{package}/{entry.name}")
    missing = [name for name in wanted if name not in paths]
    assert missing == []


def test_the_architecture_page_draws_the_layers() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert page.count("```mermaid\n") >= 1
    for part in ("mem_cli", "mem_server", "mem_core.mcp", "mem_plugins", "plugin.py"):
        assert part in page, part


def test_the_code_cites_the_contract_page_and_every_section_exists() -> None:
    page = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## §(\d+) ", page, re.MULTILINE))
    assert sections == {str(n) for n in range(11)}
    for source in (REPO / "mem_core").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "mem-cli.md" not in text, source
        for cited in re.findall(r"docs/contract\.md §(\d+)", text):
            assert cited in sections, (source, cited)
