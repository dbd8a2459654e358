"""Options shared by every command."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

Directory = Annotated[
    Optional[str],
    typer.Option("-d", "--directory", help="Project directory (default: current directory).", metavar="PATH"),
]
Json = Annotated[bool, typer.Option("--json", help='Machine-readable JSON output; errors become {"error": ...}.')]
