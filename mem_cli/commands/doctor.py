"""``mem doctor``: check a project's memory and repair what is provably safe."""

from __future__ import annotations

from typing import Annotated

import typer

from mem_cli import output
from mem_cli.options import Directory, Json

HELP = (
    "Check the project's memory: the writer lock (owner, host, alive, age), the final line and size of\n"
    "each store, pattern-scores.json, the memory store backend, broken plugins and installed adapters.\n"
    "Exit 0 when nothing is an error. --fix repairs what is provably safe (a stale lock, a torn final\n"
    "line moved to <store>.torn-<ts>, temporary files left by killed writers) and leaves a live lock."
)

Fix = Annotated[
    bool,
    typer.Option(
        "--fix",
        help="Repair what is provably safe: take over a stale lock, move a torn final line aside, "
        "remove orphan temporary files.",
    ),
]


def doctor(directory: Directory = None, fix: Fix = False, json: Json = False) -> int:
    from mem_core.doctor import doctor as run_doctor

    report = run_doctor(directory, fix=fix)
    if json:
        output.out_json(report)
    else:
        from mem_cli import render

        output.out(render.doctor(report))
    return 0 if report.ok else 1


def register(app: typer.Typer) -> None:
    app.command(name="doctor", help=HELP)(doctor)
