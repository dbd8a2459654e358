"""``mem portfolio add|remove|list|scan|brain|proposals``: the projects one
person works on, recalled together by ``mem recall --scope all``
(docs/portfolio.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, PROJECT
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def _dirs(directories: list[str] | None, directory: str | None) -> list[str]:
    if directories:
        return directories
    from mem_core.project import find_project

    return [find_project(directory)]


def _status(path: str) -> str:
    return "ok" if os.path.isdir(path) else "missing"


def _listing(portfolio: Any) -> dict[str, Any]:
    return {
        "file": portfolio.path,
        "brain": portfolio.brain,
        "projects": [{"path": p, "status": _status(p)} for p in portfolio.projects],
    }


def _add_projects(directories: list[str]) -> Any:
    from mem_core.portfolio.registry import add_projects

    return add_projects(directories)


def _remove_projects(directories: list[str]) -> Any:
    from mem_core.portfolio.registry import remove_projects

    return remove_projects(directories)


def _registration(change: Any, changed: str, nothing: str | None) -> Any:
    """The run of ``portfolio add`` or ``remove``: ``change`` applied to
    the registry, then the listing after it with what ``changed``, one line
    per project (``nothing`` when none changed)."""

    def run(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
        portfolio, done = change(_dirs(values["directories"], values["directory"]))
        result = {**_listing(portfolio), changed: done}

        def text(value: dict[str, Any]) -> str:
            lines = [f"mem portfolio: {changed} {p}" for p in done]
            if not lines and nothing is not None:
                lines = [nothing]
            lines.append(f"  {len(portfolio.projects)} project(s) registered in {portfolio.path}")
            return "\n".join(map(output.one_line, lines))

        output.show(result, values["json"], text)

    return run


add = _registration(_add_projects, "added", "mem portfolio: nothing to add (already registered)")
remove = _registration(_remove_projects, "removed", None)


def list_(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    directory = values["directory"]
    json = values["json"]
    from mem_core.portfolio.registry import load_portfolio
    from mem_core.project import find_project

    result = _listing(load_portfolio())
    current = find_project(directory)
    real = os.path.realpath(current)
    result["current"] = next((p["path"] for p in result["projects"] if p["path"] in (current, real)), None)

    def text(value: dict[str, Any]) -> str:
        lines = [f"mem portfolio: {len(value['projects'])} project(s) ({value['file']})"]
        lines += [
            f"  {p['path']}"
            + ("" if p["status"] == "ok" else " (missing)")
            + (" (current)" if p["path"] == value["current"] else "")
            for p in value["projects"]
        ]
        lines.append(f"  brain: {value['brain'] or 'none (mem portfolio brain DIR)'}")
        return "\n".join(map(output.one_line, lines))

    output.show(result, json, text)


def scan(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    folder = values["folder"]
    yes = values["yes"]
    depth = values["depth"]
    directory = values["directory"]
    json = values["json"]
    from mem_core.portfolio.registry import add_projects, load_portfolio, scan_projects

    if folder is None:
        folder = os.path.abspath(directory if directory is not None else ".")
    found = scan_projects(folder, depth)
    registered = set(load_portfolio().projects)
    new = [p for p in found if p not in registered]
    added: list[str] = []
    if yes and new:
        _portfolio, added = add_projects(new)
    result = {"directory": os.path.abspath(folder), "found": found, "new": new, "added": added, "registered": yes}

    def text(value: dict[str, Any]) -> str:
        lines = [f"mem portfolio scan: {len(found)} project(s) under {value['directory']}, {len(new)} not registered"]
        if yes:
            lines += [f"  added {p}" for p in added]
        else:
            lines += [f"  {p}" for p in new]
            if new:
                lines.append("re-run with --yes to register them")
        return "\n".join(map(output.one_line, lines))

    output.show(result, json, text)


def brain(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    folder = values["folder"]
    unset = values["unset"]
    directory = values["directory"]
    json = values["json"]
    from mem_core.errors import MemError
    from mem_core.portfolio.registry import load_portfolio, set_brain
    from mem_core.settings import load_settings

    if unset and folder is not None:
        raise MemError("give DIR or --unset, not both")
    portfolio = set_brain(folder) if folder is not None or unset else load_portfolio()
    settings = load_settings(directory)
    setting = settings.portfolio
    result = {
        "file": portfolio.path,
        "brain": portfolio.brain,
        "used": setting or portfolio.brain,
        "usedFrom": settings.source("portfolio") if setting else ("portfolio" if portfolio.brain else None),
    }

    def text(value: dict[str, Any]) -> str:
        line = f"mem portfolio: brain {value['brain'] or 'none'}"
        if setting:
            line += f" (recall here uses {setting}, from {value['usedFrom']})"
        return output.one_line(line)

    output.show(result, json, text)


def proposals(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    directory = values["directory"]
    json = values["json"]
    from mem_cli.render import portfolio_proposals
    from mem_core.api.proposals import brain_proposals

    result = brain_proposals(directory)
    for item in result["skipped"]:
        output.err(output.one_line(f"mem portfolio proposals: skipped {item['project']}: {item['reason']}"))
    output.show(result, json, portfolio_proposals)


DIRS = Argument("directories", "Project directories (default: the project of -d).", metavar="[DIR]...", multiple=True)

COMMAND = Command(
    "portfolio",
    "The portfolio: the projects `mem recall --scope all` recalls together, and their brain.",
    group=PROJECT,
    subcommands=(
        Command("add", "Register projects: each DIR's project root (the nearest folder up holding .bmad/ or .agents/, as -d finds it; else DIR), as a real path. Registering a project twice changes nothing.", run=add, arguments=(DIRS,), options=(DIRECTORY, JSON)),
        Command("remove", 'Unregister projects (their files are not touched). A DIR that is not registered is an error and nothing is removed.', run=remove, arguments=(DIRS,), options=(DIRECTORY, JSON)),
        Command("list", 'The registered projects (a project whose folder is gone shows as missing; the project of -d is marked current) and the brain.', run=list_, options=(DIRECTORY, JSON)),
        Command(
            "scan", 'Find the projects under DIR (a folder holding .bmad/memory/, .agents/memory/ or a mem.toml; node_modules, .git, virtual environments, hidden folders and the inside of a project are not searched). Lists them; registers them only with --yes (never asks).', run=scan,
            arguments=(
                Argument("folder", "The folder to search (default: the -d directory).", metavar="[DIR]", required=False),
            ),
            options=(
                Option("yes", "--yes", "Register the projects found (without it: only list them)."),
                Option("depth", "--depth", "How many folder levels below DIR to search.", metavar="N", kind=int, default=4),
                DIRECTORY,
                JSON,
            ),
        ),
        Command(
            "brain", 'Show the portfolio brain, or set it to DIR: recall --scope portfolio and --scope all read DIR/memory/ when neither --portfolio nor the portfolio setting names another (the setting of the project of -d is shown when it does).', run=brain,
            arguments=(
                Argument(
                    "folder", "The brain folder (its memory/ holds the shared notes).", metavar="[DIR]", required=False
                ),
            ),
            options=(Option("unset", "--unset", "Forget the brain (its files are not touched)."), DIRECTORY, JSON),
        ),
        Command("proposals", 'Lessons to move to the brain (read-only; mem moves nothing): a lessons.md section backed by current receipts (as mem outcomes reports them) in two or more registered projects. Receipts are checked by the verifiers of the project of -d.', run=proposals, options=(DIRECTORY, JSON)),
    ),
)  # fmt: skip
