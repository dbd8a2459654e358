"""What ``mem serve`` and its subcommands do, as plain functions (the CLI
parses, calls one of these, renders): resolve a server's configuration,
``init`` (the server's key and its first human), agent keys, the audit check,
and running uvicorn."""

from __future__ import annotations

import json
import os
from typing import Any

from mem_core.errors import MemError
from mem_server.replica import ServerConfig

__all__ = ["server_config", "init_server", "serve", "check_bind", "LOCAL_HOSTS", "key_file_default"]

LOCAL_HOSTS = ("127.0.0.1", "::1", "localhost")
#: the variable naming the server key's file (else :func:`key_file_default`)
KEY_FILE_ENV = "MEM_SERVER_KEY_FILE"


def key_file_default() -> str:
    from mem_core.humans.keys import config_dir

    return os.environ.get(KEY_FILE_ENV) or os.path.join(config_dir(), "server", "server.key")


def server_config(
    directory: str | None, store: str | None = None, key_file: str | None = None, rate_per_minute: int = 600
) -> ServerConfig:
    """The configuration of a server over the project of ``directory``:
    ``store`` ``sqlite`` or ``postgres`` (default: the project's ``store``
    setting), the DSN from the variable ``postgres_dsn_env`` names."""
    from mem_core.kernel import project_settings

    settings = project_settings(directory, None)
    store = store or settings.store
    if store not in ("sqlite", "postgres"):
        raise MemError(f"--store must be sqlite or postgres (got {store!r})")
    dsn = None
    if store == "postgres":
        dsn = settings.postgres_dsn()
        if not dsn:
            raise MemError(f"--store postgres: set the DSN in ${settings.postgres_dsn_env} (never in a config file)")
        os.environ["MEM_STORE"] = "postgres"  # the mem_core calls of this process use the same store
    return ServerConfig(project=settings.project, store=store, key_file=key_file or key_file_default(), dsn=dsn,
                        rate_per_minute=rate_per_minute)  # fmt: skip


def init_server(config: ServerConfig, name: str, public_line: str) -> dict[str, Any]:
    """Create the server's tables and key (when missing) and register its
    first human. Refused when a human is registered already (the others
    are added by a human, ``POST /v1/humans``)."""
    from mem_server.credentials import ServerKey, register_human

    db = config.open_db()
    try:
        db.create_schema()
        with db.transaction() as cursor:
            count = cursor.one("SELECT count(*) FROM mem_srv_humans")
        if count and int(count[0]):
            raise MemError("this server has its first human already; add others as a human (POST /v1/humans)")
        made = not os.path.exists(config.key_file)
        key = ServerKey.create(config.key_file) if made else ServerKey.load(config.key_file)
        db.signer = key
        human = register_human(db, key, name, public_line, by="server-terminal")
    finally:
        db.close()
    return {"human": human, "serverKey": config.key_file, "serverKeyCreated": made,
            "serverFingerprint": key.fingerprint}  # fmt: skip


def open_server_db(config: ServerConfig) -> Any:
    """The server's database with its key loaded (what ``keys`` and
    ``audit`` need)."""
    from mem_server.credentials import ServerKey

    key = ServerKey.load(config.key_file)
    db = config.open_db()
    db.create_schema()
    db.signer = key
    return db, key


def check_bind(host: str, tls: bool, insecure_http: bool) -> None:
    if host in LOCAL_HOSTS or tls or insecure_http:
        return
    raise MemError(
        f"binding to {host} needs TLS (--tls-cert and --tls-key) or --insecure-http, which sends agent keys "
        "and sessions in clear text: use it only behind a TLS-terminating reverse proxy on a network you trust"
    )


def serve(config: ServerConfig, *, host: str, port: int, tls_cert: str | None, tls_key: str | None,
          insecure_http: bool, log_level: str = "info") -> None:  # fmt: skip
    """Run one replica in the foreground (uvicorn)."""
    import uvicorn

    if (tls_cert is None) != (tls_key is None):
        raise MemError("TLS needs both --tls-cert and --tls-key")
    check_bind(host, tls_cert is not None, insecure_http)
    db, _key = open_server_db(config)
    try:
        with db.transaction() as cursor:
            count = cursor.one("SELECT count(*) FROM mem_srv_humans")
    finally:
        db.close()
    if not count or not int(count[0]):
        raise MemError("this server trusts no human yet: run `mem serve init` at the server's terminal first")
    env_name = None
    if config.dsn:
        from mem_core.kernel import project_settings

        env_name = project_settings(config.project, None).postgres_dsn_env
    os.environ["MEM_SERVE_CONFIG"] = json.dumps({
        "project": config.project, "store": config.store, "key_file": config.key_file,
        "rate_per_minute": config.rate_per_minute, "dsn_env": env_name or "",
    })  # fmt: skip
    uvicorn.run("mem_server.app:app_from_environment", factory=True, host=host, port=port,
                ssl_certfile=tls_cert, ssl_keyfile=tls_key, log_level=log_level, access_log=False,
                timeout_graceful_shutdown=10)  # fmt: skip
