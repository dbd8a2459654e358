"""``mem human init|list|revoke|login``: the human keys that prove a human
(structured-memory.md, Trust)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mem_cli import output
from mem_cli.commands import DIRECTORY, JSON, MEMORIES, show
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from typing import Any

    from mem_core.kernel import Kernel
    from mem_core.settings import Settings


def init(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.humans.api import init_human

    result = init_human(values["name"], trust=values["trust"], directory=values["directory"])
    show(result, values["json"], "human_init")


def list_(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.humans.api import list_humans

    result = list_humans(directory=values["directory"])
    show(result, values["json"], "humans")


def revoke(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_core.humans.api import revoke_human

    result = revoke_human(values["name"], directory=values["directory"])
    show(result, values["json"], "human_revoke")


def login(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_server.client import login as log_in

    result = log_in(values["url"], human=values["human"])
    output.show(
        result,
        values["json"],
        lambda r: f"mem human login: {r['human']} ({r['fingerprint']}) is logged in to {r['url']}",
    )


COMMAND = Command(
    "human",
    "Human keys: the proof of a human that `mem verify` and `remember --as-user` ask for.",
    group=MEMORIES,
    subcommands=(
        Command(
            "init",
            "Make your human key (at a terminal only): an Ed25519 key pair, the private key encrypted with a "
            "passphrase you type twice on the terminal, the public key trusted here.",
            run=init,
            options=(
                Option(
                    "name", "--name", "The person's name (visible characters, no spaces).  [default: your login name]",
                    metavar="NAME",
                ),
                Option(
                    "trust", "--trust",
                    "Where the public key is trusted: project (.bmad/memory/humans/NAME.pub, to commit) "
                    "or user (your trust list, for every project).",
                    metavar="project|user", default="project",
                ),
                DIRECTORY,
                JSON,
            ),
        ),
        Command(
            "list",
            "List the trusted human keys (project and user trust list) and the private keys on this machine.",
            run=list_,
            options=(DIRECTORY, JSON),
        ),
        Command(
            "revoke",
            "Stop trusting NAME here: remove its public key from the project and your trust list "
            "(what it signed reads unverified from then on).",
            run=revoke,
            arguments=(Argument("name", "The human no longer trusted.", metavar="NAME"),),
            options=(DIRECTORY, JSON),
        ),
        Command(
            "login",
            "Log in to a team server: sign its one-time challenge with your human key (asks the passphrase on "
            "the terminal) and keep the session in your user config directory.",
            run=login,
            arguments=(Argument("url", "The team server (mem serve).", metavar="URL"),),
            options=(Option("human", "--human", "Which human key on this machine.", metavar="NAME"), JSON),
        ),
    ),
)  # fmt: skip
