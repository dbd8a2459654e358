"""Options shared by several commands."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

Directory = Annotated[
    Optional[str],
    typer.Option("-d", "--directory", help="Project directory (default: current directory).", metavar="PATH"),
]
Json = Annotated[bool, typer.Option("--json", help='Machine-readable JSON output; errors become {"error": ...}.')]

#: the three default reward signals (``write`` and ``reinforce``)
Eval = Annotated[
    Optional[str],
    typer.Option("--eval", help="Reward signal: eval suite score in [0,1] (weight 0.5).", metavar="SCORE"),
]
Accept = Annotated[
    Optional[str], typer.Option(help="Reward signal: true | false | yes | no | [0,1] (weight 0.3).", metavar="BOOL")
]
Ci = Annotated[Optional[str], typer.Option(help="Reward signal: pass | fail | [0,1] (weight 0.2).", metavar="RESULT")]
#: a plugin's reward signal
Signal = Annotated[
    Optional[list[str]],
    typer.Option(help="A plugin's reward signal, NAME=VALUE (repeatable); see `mem plugins`.", metavar="NAME=VALUE"),
]
