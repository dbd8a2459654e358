"""Shared fixtures: a temporary project, a pinned clock, a fresh kernel, and
two ways to run ``mem`` (in-process, and as a real process)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

#: the shipped plugin for plugin authors (the MemoryStore contract suite and its
#: fixtures), loaded as a third-party repository loads it with -p mem_core.testing
pytest_plugins = ["mem_core.testing"]

REPO = Path(__file__).resolve().parent.parent
#: real files written by the tools mem interoperates with (copied from the
#: project's shared folder, so that the suite needs nothing beside the clone)
FIXTURES = REPO / "tests" / "fixtures"
#: the project written by bmad-plus mem and BMAD+ Nexus (read-only original)
BMAD_PROJECT = FIXTURES / "bmad-plus-project"

NOW = "2026-11-05T12:00:00.000Z"
#: what bmad-plus mem printed for `mem recall cache values --ranking evidence
#: --context-scope work` on the fixture project at NOW (tests/fixtures/README.md)
EVIDENCE_RECALL_TEXT = """\
mem recall: 6 match(es) for "cache values" (scope: project)
  1. [1.190] note lessons.md § Cache contract
     Cache contract Preserve false and zero cache values.
  2. [1.122] note lessons.md § Cache resolution
     Cache resolution Inspect the cache caller contract for values.
  3. [1.099] note lessons.md § Cache alternative
     Cache alternative Discard zero cache values.
  4. [1.018] note patterns.md § Cache shortcut
     Cache shortcut Reuse cache values without inspection.
  5. [0.426] event journal.ndjson#da611e596f32
     zecher gemini-cli Fix cache zero values partial {"evalScore":0.6,"acceptance":true}
  6. [0.121] note decisions.md § 2026-06-01 — Use BullMQ for job queues
     2026-06-01 — Use BullMQ for job queues - **Decision**: BullMQ over cron - **Why**: retries and backoff for cache warmers
"""

#: the test plugin package (tests/plugin_pkg) is installed in the test env but
#: kept out of every test that does not ask for it, so outputs stay exact
TEST_PLUGINS = "testranker"


@dataclass
class Run:
    code: int
    out_bytes: bytes
    err_bytes: bytes

    @property
    def out(self) -> str:
        return self.out_bytes.decode("utf-8")

    @property
    def err(self) -> str:
        return self.err_bytes.decode("utf-8")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        # mem's settings are cleared; the test runners' own switches stay
        if name.startswith("MEM_") and not name.startswith(("MEM_TEST_", "MEM_ASSISTANTS_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", TEST_PLUGINS)
    monkeypatch.setenv("MEM_USER_DIR", str(tmp_path / "user-store"))
    # the machine's own ~/.config/mem/config.toml stays out of every test
    monkeypatch.setenv("MEM_USER_CONFIG", str(tmp_path / "user-config" / "config.toml"))
    # an in-process prompt never reaches the terminal pytest runs in: it has
    # none (as under an agent); tests that type at a prompt run mem in its own
    # session on a pseudo-terminal (tests/cli/test_trust_terminal.py)
    monkeypatch.setattr("mem_core.humans.terminal.TTY", str(tmp_path / "no-terminal"))
    # the recall index goes to the test's own cache, never the machine's ~/.cache/mem
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> str:
    """Pin the clock (``MEM_NOW``) and return the pinned value."""
    monkeypatch.setenv("MEM_NOW", NOW)
    return NOW


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def bmad_project(tmp_path: Path) -> Path:
    """A writable copy of the project ``bmad-plus mem`` wrote (tests/fixtures)."""
    if not BMAD_PROJECT.is_dir():
        pytest.fail("tests/fixtures (the reference fixtures) is missing")
    path = tmp_path / "bmad"
    shutil.copytree(BMAD_PROJECT, path)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
    os.chmod(path, 0o755)
    return path


@pytest.fixture
def kernel():
    """A fresh kernel with the default plugins only."""
    from mem_core.kernel import Kernel, make_plugin_manager

    return Kernel(make_plugin_manager(entry_points=False))


@pytest.fixture
def mem(monkeypatch: pytest.MonkeyPatch):
    """Run ``mem`` in-process: ``mem("recall", "x", cwd=...)`` -> :class:`Run`."""
    from mem_cli.main import main

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
        out, err = io.BytesIO(), io.BytesIO()
        out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        err_text = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
        with monkeypatch.context() as m:
            for key, value in (env or {}).items():
                m.setenv(key, value)
            if cwd is not None:
                m.chdir(cwd)
            m.setattr(sys, "stdout", out_text)
            m.setattr(sys, "stderr", err_text)
            code = main(list(args))
        out_text.flush()
        err_text.flush()
        result = Run(int(code), out.getvalue(), err.getvalue())
        out_text.detach()
        err_text.detach()
        return result

    return run


@pytest.fixture
def mem_process():
    """Run ``mem`` as a real process (``python -m mem_cli``)."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60) -> Run:
        full_env = dict(os.environ)
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "mem_cli", *args],
            cwd=cwd,
            env=full_env,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


@contextlib.contextmanager
def writer_lock_held(project: Path) -> Iterator[None]:
    """``project``'s writer lock held by another process for the ``with`` block."""
    code = (
        "import sys, time\nfrom mem_core.files import writer_lock\n"
        "with writer_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(120)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(project)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        yield
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def readers_beside_a_writer(reader: Callable[[], None], writer: Callable[[], None], readers: int = 8) -> None:
    """``readers`` threads running ``reader``, started before one running
    ``writer``; returns when all have ended."""
    threads = [threading.Thread(target=reader) for _ in range(readers)]
    for thread in threads:
        thread.start()
    write = threading.Thread(target=writer)
    write.start()
    write.join()
    for thread in threads:
        thread.join()


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (to prove nothing changed)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


@pytest.fixture
def signer(project: Path):
    """A human key trusted in ``project``, unlocked (tests/humans.py)."""
    from tests.humans import trusted_key

    return trusted_key(project)


# -- the fixture project at its original place, in a private mount namespace -------------------

#: where the reference fixture project was made (its Nexus runs are bound to it)
SRV = Path("/srv/example-project")
#: set in the pytest process that runs inside the private mount namespace
SRV_NAMESPACE = "MEM_TEST_SRV_NAMESPACE"
#: the command that gives that process a private /srv (a tmpfs): a user and a mount namespace
UNSHARE = ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
#: the config attribute holding the node ids of the srv tests this session
#: collected and left to the namespace (an attribute: this module may be
#: imported twice, as conftest and as tests.conftest)
SRV_ITEMS = "mem_srv_items"


def in_srv_namespace() -> bool:
    """Whether this process sees a private, temporary /srv: set up by
    :data:`UNSHARE` (``/srv`` is a tmpfs mount in this mount namespace)."""
    if os.environ.get(SRV_NAMESPACE) != "1":
        return False
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            mounts = [line.split() for line in fh]
    except OSError:
        return False
    for fields in mounts:
        if len(fields) > 4 and fields[4] == "/srv" and "-" in fields:
            if fields[fields.index("-") + 1] == "tmpfs":
                return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "srv: needs the fixture project at /srv/example-project; runs in a private mount namespace where /srv "
        "is a temporary file system (tests/test_srv_namespace.py), so nothing is written outside temporary places",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Outside the namespace, the ``srv`` tests are left to
    ``tests/test_srv_namespace.py``, which runs them inside one."""
    for item in items:
        if "srv_project" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.srv)
    if in_srv_namespace():
        return
    bound = [item for item in items if item.get_closest_marker("srv")]
    setattr(config, SRV_ITEMS, [item.nodeid for item in bound])
    if bound:
        config.hook.pytest_deselected(items=bound)
        items[:] = [item for item in items if not item.get_closest_marker("srv")]


@pytest.fixture
def srv_project():
    """A writable copy of the fixture project at /srv/example-project, where
    its runs were made — only inside the private namespace (a tmpfs /srv)."""
    if not in_srv_namespace():
        pytest.fail("srv tests run inside a private mount namespace (tests/test_srv_namespace.py)")
    if not BMAD_PROJECT.is_dir():
        pytest.fail("tests/fixtures (the reference fixtures) is missing")
    shutil.rmtree(SRV, ignore_errors=True)
    shutil.copytree(BMAD_PROJECT, SRV, symlinks=True)
    for root, dirs, files in os.walk(SRV):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
    os.chmod(SRV, 0o755)
    try:
        yield SRV
    finally:
        shutil.rmtree(SRV, ignore_errors=True)


@pytest.fixture
def at_srv(srv_project: Path) -> Path:
    """The fixture project at /srv/example-project, where its runs were made
    (in a private mount namespace: :func:`srv_project`), when /usr/bin/dash is
    the binary the runs were made with."""
    from tests.nexus_builder import FIXTURE_COMMAND, FIXTURE_COMMAND_HASH, sha256_file

    try:
        same = sha256_file(FIXTURE_COMMAND) == FIXTURE_COMMAND_HASH
    except OSError:
        same = False
    if not same:
        pytest.skip("/usr/bin/dash differs from the one the runs were made with")
    return srv_project


# -- under CI, a test may not skip because a file it needs is missing ----------------------------

_MISSING = ("missing", "not beside", "not found", "no such file", "does not exist", "filenotfounderror")


def missing_fixture_skip(reason: str) -> bool:
    """Whether a skip's reason says that a fixture file is absent."""
    text = reason.lower()
    return "fixture" in text and any(word in text for word in _MISSING)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if missing_fixture_skip(reason):
            report.outcome = "failed"
            report.longrepr = f"skipped for a missing fixture, which CI does not allow: {reason}"
