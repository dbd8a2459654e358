"""``mem human init|list|revoke``: the human keys that prove a human
(structured-memory.md, Trust)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mem_cli import output, render
from mem_cli.commands import MEMORIES
from mem_cli.options import Directory, Json

human_app = typer.Typer(
    name="human",
    help="Human keys: the proof of a human that `mem verify` and `remember --as-user` ask for.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

Name = Annotated[
    Optional[str],
    typer.Option(help="The person's name (visible characters, no spaces).  [default: your login name]", metavar="NAME"),
]


@human_app.command("init")
def init(
    name: Name = None,
    trust: Annotated[
        str,
        typer.Option(
            help="Where the public key is trusted: project (.bmad/memory/humans/NAME.pub, to commit) "
            "or user (your trust list, for every project).",
            metavar="project|user",
        ),
    ] = "project",
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Make your human key (at a terminal only): an Ed25519 key pair, the private key encrypted
    with a passphrase you type twice on the terminal, the public key trusted here."""
    from mem_core.humans.api import init_human

    result = init_human(name, trust=trust, directory=directory)
    output.show(result, json, render.human_init)


@human_app.command("list")
def list_(directory: Directory = None, json: Json = False) -> None:
    """List the trusted human keys (project and user trust list) and the private keys on this machine."""
    from mem_core.humans.api import list_humans

    result = list_humans(directory=directory)
    output.show(result, json, render.humans)


@human_app.command("revoke")
def revoke(
    name: Annotated[str, typer.Argument(help="The human no longer trusted.", metavar="NAME", show_default=False)],
    directory: Directory = None,
    json: Json = False,
) -> None:
    """Stop trusting NAME here: remove its public key from the project and your trust list
    (what it signed reads unverified from then on)."""
    from mem_core.humans.api import revoke_human

    result = revoke_human(name, directory=directory)
    output.show(result, json, render.human_revoke)


@human_app.command("login")
def login(
    url: Annotated[str, typer.Argument(help="The team server (mem serve).", metavar="URL", show_default=False)],
    human: Annotated[Optional[str], typer.Option(help="Which human key on this machine.", metavar="NAME")] = None,
    json: Json = False,
) -> None:
    """Log in to a team server: sign its one-time challenge with your human key (asks the passphrase on
    the terminal) and keep the session in your user config directory."""
    from mem_server.client import login as log_in

    result = log_in(url, human=human)
    output.show(
        result, json, lambda r: f"mem human login: {r['human']} ({r['fingerprint']}) is logged in to {r['url']}"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(human_app, rich_help_panel=MEMORIES)
