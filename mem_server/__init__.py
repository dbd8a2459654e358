"""``mem serve``: the team server (docs/server.md).

A front end beside :mod:`mem_cli`: an ASGI application (Starlette, served by
uvicorn) that answers JSON over HTTP by calling the same :mod:`mem_core`
functions the command line calls, over one store — the project's SQLite file
for one person, or a PostgreSQL database that any number of replicas share.

* :mod:`~mem_server.db` — the server's own tables (agent keys, humans,
  sessions, rate counters, the audit log) in the store's database;
* :mod:`~mem_server.credentials` — agent keys, the humans the server trusts,
  login challenges and sessions, the server's own key;
* :mod:`~mem_server.audit` — the hash-chained audit log and its check;
* :mod:`~mem_server.replica` — a replica's configuration and state, a request,
  and what the routes share;
* :mod:`~mem_server.app` — the routes.

Nothing a replica keeps in memory is needed by another: every credential,
counter and audit entry is read from and written to the database.
"""
