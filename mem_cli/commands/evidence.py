"""typer declarations of ``mem observe`` and ``mem outcomes`` (help texts; the
bodies are in :mod:`mem_cli.actions.evidence`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli.actions import evidence as actions
from mem_cli.options import Directory, Json


def observe(
    directory: Directory = None,
    input: Annotated[
        Optional[str],
        typer.Option(
            "--input",
            help=(
                "Project-relative JSON file: the verified work (runId and taskId for Nexus, or "
                '"verifier" and its fields), memory {file, heading}, scope, interpretation, '
                "optional supersedes / contradicts receipt ids."
            ),
            metavar="FILE",
        ),
    ] = None,
    json: Json = False,
) -> None:
    """Bind a lesson to accepted, independently verified work: append one receipt to
    .bmad/memory/outcomes.ndjson, only if every check passes."""
    actions.observe(directory, input, json)


def outcomes(directory: Directory = None, json: Json = False) -> None:
    """List every stored receipt and whether it is still current evidence
    (accepted-current, superseded, contradictory, stale-…)."""
    actions.outcomes(directory, json)


def register(app: typer.Typer) -> None:
    app.command()(observe)
    app.command()(outcomes)
