"""A throwaway PostgreSQL server for the ``postgres`` store's tests.

:func:`postgres_dsn` starts one server per test session, the first time a test
asks for it: ``initdb`` a cluster in a temporary directory, ``pg_ctl start``
it listening only on a unix socket in that directory (no TCP port), create a
database, and return a DSN for it. The server is stopped and its directory
deleted when the session ends (the :func:`postgres_server` fixture's teardown,
or at interpreter exit when only the contract suite started it).

The binaries are looked up on ``PATH``, then in ``/usr/lib/postgresql/<ver>/bin``
(Debian, newest version first) and ``/usr/local/pgsql/bin``. ``initdb``
refuses to run as root: as root the cluster is created and run by the
``postgres`` OS user (which Debian's package creates) through ``runuser``.
Without the binaries, without psycopg or when the server does not start, the
tests that need it are skipped with the reason.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import subprocess
import tempfile
import threading

import pytest

__all__ = [
    "PostgresServer",
    "postgres_dsn",
    "new_database_dsn",
    "postgres_server_fixture",
    "find_bin_dir",
]

DATABASE = "memtest"
#: the superuser initdb creates (trust authentication on the socket only)
USER = "mem"
#: in the DSN, to prove that ``location`` and every message leave it out
PASSWORD = "s3cret-pw"
PORT = 5432  # only names the socket file, in the server's own directory
START_TIMEOUT_SECONDS = 60


def find_bin_dir() -> str | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or ``None``."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return os.path.dirname(os.path.realpath(initdb))
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda path: [int(p) if p.isdigit() else 0 for p in path.split("/")[-2].split(".")],
        reverse=True,
    )
    for directory in [*candidates, "/usr/local/pgsql/bin"]:
        if os.access(os.path.join(directory, "initdb"), os.X_OK) and os.access(
            os.path.join(directory, "pg_ctl"), os.X_OK
        ):
            return directory
    return None


class PostgresServer:
    """One PostgreSQL cluster in a temporary directory, reachable on a unix socket."""

    def __init__(self, bin_dir: str) -> None:
        self.bin_dir = bin_dir
        self.root = tempfile.mkdtemp(prefix="mem-pg-")
        self.data = os.path.join(self.root, "data")
        self.log = os.path.join(self.root, "server.log")
        self.run_as: list[str] = []
        if os.geteuid() == 0:
            import pwd

            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' OS user to run initdb as") from None
            runuser = shutil.which("runuser")
            self.run_as = [runuser, "-u", "postgres", "--"] if runuser else ["su", "postgres", "-s", "/bin/sh", "-c"]
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
        os.chmod(self.root, 0o755)  # the socket directory must be reachable by the tests' user
        self.started = False
        self.databases = 0
        self.collation = ""

    def _run(self, *command: str) -> None:
        argv = [os.path.join(self.bin_dir, command[0]), *command[1:]]
        if self.run_as[:1] == ["su"]:
            import shlex

            argv = [*self.run_as, shlex.join(argv)]
        else:
            argv = [*self.run_as, *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=START_TIMEOUT_SECONDS, cwd=self.root)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise RuntimeError(f"{command[0]} failed: {detail[-1] if detail else done.returncode}")

    def start(self) -> None:
        self._run("initdb", "-D", self.data, "-U", USER, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-N")
        options = (
            f"-c listen_addresses='' -k {self.root} -p {PORT} -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=60"
        )
        try:
            self._run("pg_ctl", "-D", self.data, "-l", self.log, "-o", options, "-w", "-t", "60", "start")
        except RuntimeError as exc:
            tail = ""
            if os.path.exists(self.log):
                with open(self.log, encoding="utf-8", errors="replace") as log:
                    lines = log.read().strip().splitlines()
                tail = f" ({lines[-1]})" if lines else ""
            raise RuntimeError(f"{exc}{tail}") from None
        self.started = True
        self._create_database()

    def _create_database(self, name: str = DATABASE) -> None:
        import psycopg

        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            # a non-C default collation (ICU, when the server has it) shows
            # that the store orders by code point whatever the database's collation
            if self.collation != "C.UTF-8":
                try:
                    conn.execute(
                        f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' "
                        "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
                    )
                    self.collation = "icu en-US"
                    return
                except psycopg.Error:
                    self.collation = "C.UTF-8"
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")

    def new_database(self) -> str:
        """Create another empty database and return its DSN (for tests that
        need a database of their own: schema migrations, racing creators)."""
        self.databases += 1
        name = f"{DATABASE}_{self.databases}"
        self._create_database(name)
        return self.dsn.replace(f"/{DATABASE}?", f"/{name}?")

    @property
    def admin_dsn(self) -> str:
        return f"host={self.root} port={PORT} user={USER} dbname=postgres"

    @property
    def dsn(self) -> str:
        """A URL for the test database, with a password (ignored by trust
        authentication) that must never be shown."""
        from urllib.parse import quote

        return f"postgresql://{USER}:{PASSWORD}@/{DATABASE}?host={quote(self.root, safe='')}&port={PORT}"

    def stop(self) -> None:
        if self.started:
            self.started = False
            try:
                self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):  # pragma: no cover - reported by a leftover dir
                pass
        shutil.rmtree(self.root, ignore_errors=True)


_lock = threading.Lock()
_server: PostgresServer | None = None
_skip_reason: str | None = None


def postgres_dsn() -> str:
    """The session's server DSN, starting the server on first use;
    ``pytest.skip`` when no PostgreSQL server can be run here."""
    global _server, _skip_reason
    with _lock:
        if _server is None and _skip_reason is None:
            _skip_reason = _start()
        if _skip_reason is not None:
            pytest.skip(_skip_reason)
        assert _server is not None
        return _server.dsn


def _start() -> str | None:
    global _server
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    bin_dir = find_bin_dir()
    if bin_dir is None:
        return "PostgreSQL's initdb/pg_ctl are not installed (e.g. apt-get install postgresql)"
    try:
        server = PostgresServer(bin_dir)
    except (RuntimeError, OSError) as exc:
        return f"cannot run a PostgreSQL server here: {exc}"
    atexit.register(server.stop)
    try:
        server.start()
    except Exception as exc:  # the binaries exist but the server does not run here
        server.stop()
        return f"the throwaway PostgreSQL server did not start: {exc}"
    _server = server
    return None


def new_database_dsn() -> str:
    """The DSN of a new, empty database on the session's server (skips
    without PostgreSQL)."""
    postgres_dsn()
    with _lock:
        assert _server is not None
        return _server.new_database()


def admin_sql(statement: str) -> None:
    """Run one statement as the server's superuser (e.g. create a role)."""
    import psycopg

    postgres_dsn()
    assert _server is not None
    with psycopg.connect(_server.admin_dsn, autocommit=True) as conn:
        conn.execute(statement)


def stop_server() -> None:
    """Stop the session's server, if it runs (idempotent)."""
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None


@pytest.fixture(scope="session", name="postgres_server")
def postgres_server_fixture():
    """``postgres_server``: the session's DSN for a throwaway database (skips
    without PostgreSQL); the server stops and its directory goes at the end of
    the session. A test module imports ``postgres_server_fixture`` to use it."""
    yield postgres_dsn()
    stop_server()
