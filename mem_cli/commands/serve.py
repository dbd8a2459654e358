"""``mem serve``: the team server (docs/server.md) — run a replica, ``init``
its key and first human, manage agent keys, check the audit chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mem_cli import output
from mem_cli.commands import DIRECTORY, INTEGRATION, JSON
from mem_cli.declare import Argument, Command, Option

if TYPE_CHECKING:
    from mem_core.kernel import Kernel
    from mem_core.settings import Settings

STORE = Option(
    "store",
    "--store",
    "sqlite (the project's file) or postgres (DSN from $MEM_POSTGRES_DSN or the variable "
    "postgres_dsn_env names).  [default: the project's store setting]",
    metavar="sqlite|postgres",
)
KEY_FILE = Option(
    "key_file", "--key-file",
    "The server's own key.  [default: $MEM_SERVER_KEY_FILE, else <user config dir>/server/server.key]",
    metavar="FILE",
)  # fmt: skip
#: what a command on the server's own state (its database and key) takes
SERVER_STATE = (STORE, DIRECTORY, KEY_FILE, JSON)


def _text(lines: list[str]) -> Any:
    return lambda _value: "\n".join(lines)


def serve(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    from mem_server.manage import serve as run
    from mem_server.manage import server_config

    config = server_config(values["directory"], values["store"], values["key_file"], values["rate"])
    run(config, host=values["host"], port=values["port"], tls_cert=values["tls_cert"], tls_key=values["tls_key"],
        insecure_http=values["insecure_http"])  # fmt: skip


def _config(values: Mapping[str, Any]) -> Any:
    """The server's configuration: a subcommand's own options, else those given to ``mem serve``."""
    from mem_server.manage import server_config

    given = values["group"]
    return server_config(values["directory"] or given.get("directory"), values["store"] or given.get("store"),
                         values["key_file"] or given.get("key_file"))  # fmt: skip


def init(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    human = values["human"]
    public_key = values["public_key"]
    json = values["json"]
    from mem_core.errors import MemError
    from mem_core.humans.keys import local_public
    from mem_core.humans.terminal import Terminal
    from mem_server.manage import init_server

    config = _config(values)
    if public_key is not None:
        try:
            with open(public_key, encoding="utf-8") as handle:
                line = handle.read(4096)
        except OSError as exc:
            raise MemError(f"cannot read {public_key}: {exc.strerror}") from None
    else:
        found = local_public(human)
        if found is None:
            raise MemError(f"no `mem human` key named {human} on this machine: give --public-key FILE")
        line = found.line()
    with Terminal.open("mem serve init needs you at the server's terminal (no /dev/tty); nothing was changed.") as tty:
        if not tty.confirm(f"mem serve init: trust {human} ({line.split()[1][:24]}…) as this server's first human?"):
            raise MemError("Not confirmed; nothing was changed.")
    result = init_server(config, human, line)
    output.show(result, json, _text([
        f"mem serve init: the server trusts {result['human']['name']} ({result['human']['fingerprint']})",
        f"  server key: {result['serverKey']}" + (" (new)" if result["serverKeyCreated"] else ""),
    ]))  # fmt: skip


def keys_create(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    mind = values["mind"]
    read_only = values["read_only"]
    expires = values["expires"]
    rate = values["rate"]
    label = values["label"]
    json = values["json"]
    from mem_server.credentials import create_key
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(values))
    try:
        key, secret = create_key(db, mind, read_only=read_only, expires=expires, rate_per_minute=rate, label=label,
                                 by="server-terminal")  # fmt: skip
    finally:
        db.close()
    output.show({"key": secret, **key.to_json()}, json, _text([
        f"mem serve keys: agent key {key.id} for mind {key.mind}" + (" (read-only)" if key.read_only else "")
        + (f", expires {key.expires_at}" if key.expires_at else ""),
        f"  {secret}",
        "  shown once: keep it in the agent's environment, never in a file it commits",
    ]))  # fmt: skip


def keys_list(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    json = values["json"]
    from mem_server.credentials import list_keys
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(values))
    try:
        keys = list_keys(db)
    finally:
        db.close()
    lines = [f"mem serve keys: {len(keys)} agent key{'' if len(keys) == 1 else 's'}"]
    for key in keys:
        state = "revoked" if key.revoked_at else "read-only" if key.read_only else "read-write"
        lines.append(f"  {key.id} mind={key.mind} {state} expires={key.expires_at or '-'} rate={key.rate_per_minute}/min"
                     + (f" {key.label}" if key.label else ""))  # fmt: skip
    output.show({"count": len(keys), "keys": [k.to_json() for k in keys]}, json, _text(lines))


def keys_revoke(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    key_id = values["key_id"]
    json = values["json"]
    from mem_server.credentials import revoke_key
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(values))
    try:
        key = revoke_key(db, key_id, by="server-terminal")
    finally:
        db.close()
    output.show(key.to_json(), json, _text([f"mem serve keys: revoked {key.id} (mind {key.mind}) at {key.revoked_at}"]))


def audit_verify(values: Mapping[str, Any], kernel: Kernel | None, settings: Settings | None = None) -> None:
    expect = values["expect"]
    json = values["json"]
    from mem_core.errors import MemError
    from mem_server.audit import verify
    from mem_server.manage import open_server_db

    expected = None
    if expect is not None:
        seq, _, digest = expect.partition(":")
        if not seq.isdigit() or len(digest) != 64:
            raise MemError("--expect is SEQ:HASH (a head `audit verify` printed)")
        expected = (int(seq), digest)
    db, key = open_server_db(_config(values))
    try:
        report = verify(db, key, expect=expected)
    finally:
        db.close()
    if report.broken is not None:
        raise MemError(f"the audit chain breaks at entry {report.broken['seq']}: {report.broken['problem']} "
                       f"({report.entries} entries before it hold)")  # fmt: skip
    head = report.head
    output.show(report, json, _text([
        f"mem serve audit: {report.entries} entries, the chain holds"
        + (f"; head {head['seq']}:{head['hash']}" if head else ""),
    ]))  # fmt: skip


COMMAND = Command(
    "serve",
    "The team server: JSON over HTTP for agents (agent keys) and humans (human keys), with an audit log.",
    group=INTEGRATION,
    run=serve,
    options=(
        STORE,
        DIRECTORY,
        Option("host", "--host", "Address to bind.", kind=str, default="127.0.0.1"),
        Option("port", "--port", "Port to bind.", kind=int, default=8765),
        Option("tls_cert", "--tls-cert", "TLS certificate (PEM).", metavar="FILE"),
        Option("tls_key", "--tls-key", "TLS private key (PEM).", metavar="FILE"),
        Option(
            "insecure_http", "--insecure-http",
            "Bind beyond 127.0.0.1 without TLS: keys and sessions cross the network in clear "
            "text (only behind a TLS-terminating proxy on a network you trust).",
            negatable=True,
        ),
        KEY_FILE,
        Option("rate", "--rate", "Default requests a minute for new agent keys.", kind=int, default=600),
    ),
    subcommands=(
        Command(
            "keys",
            "Agent keys: create, list, revoke.",
            subcommands=(
                Command(
                    "create",
                    "Make an agent key for MIND; it is printed once (only its hash is kept).",
                    run=keys_create,
                    options=(
                        Option("mind", "--mind", "The one mind this key may read and write.", kind=str, required=True),
                        Option("read_only", "--read-only", "Reads only."),
                        Option("expires", "--expires", "Expiry: a duration (30d) or a date.", kind=str),
                        Option("rate", "--rate", "Requests a minute, across every replica.", kind=int, default=600),
                        Option("label", "--label", "A note for `keys list`.", kind=str, default=""),
                        *SERVER_STATE,
                    ),
                ),
                Command(
                    "list",
                    "List the agent keys (never the keys themselves).",
                    run=keys_list,
                    options=SERVER_STATE,
                ),
                Command(
                    "revoke",
                    "Revoke an agent key: refused from the next request on, on every replica.",
                    run=keys_revoke,
                    arguments=(Argument("key_id", "", metavar="ID"),),
                    options=SERVER_STATE,
                ),
            ),
        ),
        Command(
            "audit",
            "The audit log: check its hash chain.",
            subcommands=(
                Command(
                    "verify",
                    "Recompute the audit log's hash chain and its signatures; report the first break (exit 1).",
                    run=audit_verify,
                    options=(
                        Option("expect", "--expect", "A head seen earlier, SEQ:HASH, that must still be there.", kind=str),
                        *SERVER_STATE,
                    ),
                ),
            ),
        ),
        Command(
            "init",
            "At the server's terminal: make the server's key and trust its first human (asks 'yes' on the terminal).",
            run=init,
            options=(
                Option("human", "--human", "The first human's name (a `mem human` key).", kind=str, required=True),
                Option(
                    "public_key", "--public-key",
                    "Their public key file (.pub).  [default: the public half of the `mem human` key NAME on this machine]",
                    metavar="FILE",
                ),
                *SERVER_STATE,
            ),
        ),
    ),
)  # fmt: skip
