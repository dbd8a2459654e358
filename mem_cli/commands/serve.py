"""``mem serve``: the team server (docs/server.md) — run a replica, ``init``
its key and first human, manage agent keys, check the audit chain."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from mem_cli import output
from mem_cli.commands import INTEGRATION
from mem_cli.options import Directory, Json

serve_app = typer.Typer(
    name="serve",
    help="The team server: JSON over HTTP for agents (agent keys) and humans (human keys), with an audit log.",
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
)
keys_app = typer.Typer(name="keys", help="Agent keys: create, list, revoke.", no_args_is_help=True,
                       add_completion=False, rich_markup_mode=None)  # fmt: skip
audit_app = typer.Typer(name="audit", help="The audit log: check its hash chain.", no_args_is_help=True,
                        add_completion=False, rich_markup_mode=None)  # fmt: skip
serve_app.add_typer(keys_app)
serve_app.add_typer(audit_app)

Store = Annotated[
    Optional[str],
    typer.Option(help="sqlite (the project's file) or postgres (DSN from $MEM_POSTGRES_DSN or the variable "
                 "postgres_dsn_env names).  [default: the project's store setting]", metavar="sqlite|postgres"),
]  # fmt: skip
KeyFile = Annotated[
    Optional[str],
    typer.Option("--key-file", help="The server's own key.  [default: $MEM_SERVER_KEY_FILE, else "
                 "<user config dir>/server/server.key]", metavar="FILE"),
]  # fmt: skip


def _text(lines: list[str]) -> Any:
    return lambda _value: "\n".join(lines)


@serve_app.callback()
def serve(
    ctx: typer.Context,
    store: Store = None,
    directory: Directory = None,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.")] = 8765,
    tls_cert: Annotated[Optional[str], typer.Option(help="TLS certificate (PEM).", metavar="FILE")] = None,
    tls_key: Annotated[Optional[str], typer.Option(help="TLS private key (PEM).", metavar="FILE")] = None,
    insecure_http: Annotated[
        bool,
        typer.Option(
            help="Bind beyond 127.0.0.1 without TLS: keys and sessions cross the network in clear "
            "text (only behind a TLS-terminating proxy on a network you trust)."
        ),
    ] = False,  # fmt: skip
    key_file: KeyFile = None,
    rate: Annotated[int, typer.Option(help="Default requests a minute for new agent keys.")] = 600,
) -> None:
    """Serve the project's store over HTTP (one replica; run several over one PostgreSQL database)."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"store": store, "directory": directory, "key_file": key_file}
        return
    from mem_server.manage import serve as run
    from mem_server.manage import server_config

    run(server_config(directory, store, key_file, rate), host=host, port=port, tls_cert=tls_cert,
        tls_key=tls_key, insecure_http=insecure_http)  # fmt: skip


def _config(ctx: typer.Context, store: str | None, directory: str | None, key_file: str | None) -> Any:
    from mem_server.manage import server_config

    given = ctx.obj if isinstance(ctx.obj, dict) else {}
    return server_config(directory or given.get("directory"), store or given.get("store"),
                         key_file or given.get("key_file"))  # fmt: skip


@serve_app.command("init")
def init(
    ctx: typer.Context,
    human: Annotated[str, typer.Option("--human", help="The first human's name (a `mem human` key).")],
    public_key: Annotated[
        Optional[str],
        typer.Option(
            help="Their public key file (.pub).  [default: the public half of the `mem human` key "
            "NAME on this machine]",
            metavar="FILE",
        ),
    ] = None,  # fmt: skip
    store: Store = None,
    directory: Directory = None,
    key_file: KeyFile = None,
    json: Json = False,
) -> None:
    """At the server's terminal: make the server's key and trust its first human (asks 'yes' on the terminal)."""
    from mem_core.errors import MemError
    from mem_core.humans.keys import local_public
    from mem_core.humans.terminal import Terminal
    from mem_server.manage import init_server

    config = _config(ctx, store, directory, key_file)
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


@keys_app.command("create")
def keys_create(
    ctx: typer.Context,
    mind: Annotated[str, typer.Option(help="The one mind this key may read and write.")],
    read_only: Annotated[bool, typer.Option("--read-only", help="Reads only.")] = False,
    expires: Annotated[Optional[str], typer.Option(help="Expiry: a duration (30d) or a date.")] = None,
    rate: Annotated[int, typer.Option(help="Requests a minute, across every replica.")] = 600,
    label: Annotated[str, typer.Option(help="A note for `keys list`.")] = "",
    store: Store = None,
    directory: Directory = None,
    key_file: KeyFile = None,
    json: Json = False,
) -> None:
    """Make an agent key for MIND; it is printed once (only its hash is kept)."""
    from mem_server.credentials import create_key
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(ctx, store, directory, key_file))
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


@keys_app.command("list")
def keys_list(ctx: typer.Context, store: Store = None, directory: Directory = None, key_file: KeyFile = None,
              json: Json = False) -> None:  # fmt: skip
    """List the agent keys (never the keys themselves)."""
    from mem_server.credentials import list_keys
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(ctx, store, directory, key_file))
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


@keys_app.command("revoke")
def keys_revoke(ctx: typer.Context, key_id: Annotated[str, typer.Argument(metavar="ID")], store: Store = None,
                directory: Directory = None, key_file: KeyFile = None, json: Json = False) -> None:  # fmt: skip
    """Revoke an agent key: refused from the next request on, on every replica."""
    from mem_server.credentials import revoke_key
    from mem_server.manage import open_server_db

    db, _key = open_server_db(_config(ctx, store, directory, key_file))
    try:
        key = revoke_key(db, key_id, by="server-terminal")
    finally:
        db.close()
    output.show(key.to_json(), json, _text([f"mem serve keys: revoked {key.id} (mind {key.mind}) at {key.revoked_at}"]))


@audit_app.command("verify")
def audit_verify(
    ctx: typer.Context,
    expect: Annotated[
        Optional[str], typer.Option(help="A head seen earlier, SEQ:HASH, that must still be there.")
    ] = None,
    store: Store = None,
    directory: Directory = None,
    key_file: KeyFile = None,
    json: Json = False,
) -> None:
    """Recompute the audit log's hash chain and its signatures; report the first break (exit 1)."""
    from mem_core.errors import MemError
    from mem_server.audit import verify
    from mem_server.manage import open_server_db

    expected = None
    if expect is not None:
        seq, _, digest = expect.partition(":")
        if not seq.isdigit() or len(digest) != 64:
            raise MemError("--expect is SEQ:HASH (a head `audit verify` printed)")
        expected = (int(seq), digest)
    db, key = open_server_db(_config(ctx, store, directory, key_file))
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


def register(app: typer.Typer) -> None:
    app.add_typer(serve_app, rich_help_panel=INTEGRATION)
