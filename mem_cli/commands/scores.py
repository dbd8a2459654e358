"""``mem scores``: every pattern's score, highest Elo first (read-only)."""

from __future__ import annotations

import typer

from mem_cli import output, render
from mem_cli.options import Directory, Json


def scores(directory: Directory = None, json: Json = False) -> None:
    """The pattern scores `mem reinforce` keeps: Elo, mean, updates, last update; highest Elo first (read-only)."""
    from mem_core.reinforcement.views import pattern_scores

    result = pattern_scores(directory)
    output.show(result, json, render.scores)


def register(app: typer.Typer) -> None:
    app.command()(scores)
