"""The prompt hook's ``hybrid`` ranking served by ``mem mcp`` (issue 19):
real ``mem mcp`` and ``mem hook`` processes; with no server, or a stale
socket, the hook ranks ``bm25`` as before."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="the embeddings extra (tox installs it)")

from tests.mcp.conftest import stdio_session  # noqa: E402

NOW = "2026-11-05T12:00:00.000Z"
PROMPT = "are the schema migrations backwards compatible?"
DECISIONS = """\
### Schema changes
Migrations must be backwards compatible.
### Tokens
API tokens are revocable by their owner.
### Logging format
JSON lines on stderr, one event per line.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # a unix socket's path is short: the runtime directory is not under tmp_path
    run = Path(tempfile.mkdtemp(prefix="mem-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("MEM_CACHE_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MEM_NOW", NOW)
    root = tmp_path / "app"
    (root / ".bmad" / "memory").mkdir(parents=True)
    (root / ".bmad" / "memory" / "decisions.md").write_text(DECISIONS, encoding="utf-8")
    (root / ".bmad" / "memory" / "mem.toml").write_text('recall_ranking = "hybrid"\n', encoding="utf-8")
    yield root
    shutil.rmtree(run, ignore_errors=True)


def hook(project: Path) -> tuple[str, float]:
    payload = json.dumps({"session_id": "s1", "cwd": str(project), "prompt": PROMPT}).encode()
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "mem_cli", "hook", "prompt-submit", "--assistant", "claude-code"],
        input=payload,
        capture_output=True,
        timeout=60,
    )
    seconds = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    return answer["hookSpecificOutput"]["additionalContext"], seconds


def expected(project: Path, ranking: str) -> str:
    from mem_core.hooks.prompt import prompt_context

    return prompt_context(PROMPT, project=str(project), budget=600, kernel=None, ranking=ranking).text


def served_socket(project: Path) -> Path:
    from mem_core.hooks.service import socket_path

    return Path(socket_path(str(project)))


def doctor_says(project: Path) -> dict[str, str]:
    """What ``mem doctor`` says of recall (name: detail)."""
    run = subprocess.run(
        [sys.executable, "-m", "mem_cli", "doctor", "--json", "-d", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    checks = json.loads(run.stdout)["checks"]
    names = ("recall", "embedding index", "prompt hook")
    return {check["name"]: check["detail"] for check in checks if check["name"] in names}


def test_with_no_server_the_hook_ranks_bm25(project: Path) -> None:
    text, _ = hook(project)
    assert text == expected(project, "bm25") != ""
    assert "§ Schema changes" in text
    said = doctor_says(project)
    assert said["recall"].startswith("ranking hybrid (from recall_ranking in ")
    assert said["prompt hook"].startswith("ranks bm25: no mem mcp serves hybrid for this project now")
    assert said["embedding index"].startswith("not built yet")
    expected(project, "hybrid")  # embeds the three sections
    assert doctor_says(project)["embedding index"].startswith("3 vector(s) in ")


def test_a_stale_socket_is_a_fallback(project: Path) -> None:
    path = served_socket(project)
    path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening, closed: what a killed server leaves
    stale.close()
    assert path.exists()
    text, _ = hook(project)
    assert text == expected(project, "bm25")
    assert doctor_says(project)["prompt hook"].startswith("ranks bm25")


def test_a_server_that_never_answers_is_a_fallback(project: Path) -> None:
    path = served_socket(project)
    path.parent.mkdir(parents=True)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(path))
    silent.listen(4)  # connections queue, nobody reads them
    try:
        text, seconds = hook(project)
    finally:
        silent.close()
    assert text == expected(project, "bm25")
    assert seconds < 10  # the answer's timeout, not the hook's watchdog


def test_a_running_mem_mcp_serves_the_hook_hybrid(project: Path, tmp_path: Path) -> None:
    assert_served(project, tmp_path)


def test_without_a_runtime_directory_mem_mcp_makes_platformdirs_fallback(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``XDG_RUNTIME_DIR`` (containers, ssh sessions, CI): platformdirs
    names ``runtime-<uid>`` in the temporary directory, which nobody made."""
    temporary = Path(tempfile.mkdtemp(prefix="mem-tmp-"))  # short: a socket's path is
    try:
        monkeypatch.delenv("XDG_RUNTIME_DIR")
        monkeypatch.setenv("TMPDIR", str(temporary))
        monkeypatch.setattr(tempfile, "tempdir", None)  # this process asks the variables again too
        assert_served(project, tmp_path)
        if served_socket(project).is_relative_to(temporary):  # not where the system has /run/user/<uid>
            runtime = temporary / f"runtime-{os.geteuid()}"
            assert stat.S_IMODE(os.stat(runtime).st_mode) == 0o700
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def assert_served(project: Path, tmp_path: Path) -> None:
    """A ``mem mcp`` started for ``project`` serves its hook ``hybrid``."""
    hybrid, bm25 = expected(project, "hybrid"), expected(project, "bm25")
    assert hybrid != bm25 and "§ Schema changes" in hybrid  # the same section, hybrid's score

    async def scenario() -> list[tuple[str, float]]:
        async with stdio_session(project, tmp_path / "mcp.log") as session:
            await session.list_tools()
            path = served_socket(project)
            deadline = time.monotonic() + 60
            while not path.exists() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert path.exists(), (tmp_path / "mcp.log").read_text()
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            said = await asyncio.to_thread(doctor_says, project)
            assert said["prompt hook"] == "ranks hybrid, served by a running mem mcp"
            return [await asyncio.to_thread(hook, project) for _ in range(3)]

    runs = asyncio.run(scenario())
    assert [text for text, _ in runs] == [hybrid] * 3
    assert not served_socket(project).exists()  # removed when mem mcp ends
    print("hook with the service, whole process (s):", sorted(seconds for _, seconds in runs))


def test_a_server_slower_than_the_hook_does_not_listen(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mem_core.hooks import server as listener
    from mem_core.kernel import Kernel
    from mem_core.settings import load_settings

    monkeypatch.setattr(listener, "SERVE_WITHIN", 0.0)  # no ranking is that fast
    server = listener.Service(str(project), Kernel(settings=load_settings(str(project))))
    server._run()  # what the thread runs: it returns without listening
    assert server.seconds is not None and server.seconds > 0
    assert not served_socket(project).exists()
    text, _ = hook(project)
    assert text == expected(project, "bm25")


def test_the_trial_ranks_the_projects_own_words_and_the_slowest_decides(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """How long a ranking takes depends on the prompt (a question in a large
    journal's own words took twice a general one's time): the trial also
    ranks the start of the project's best-matching texts, and one slow
    prompt is enough not to serve."""
    from mem_core.hooks import server as listener
    from mem_core.kernel import Kernel
    from mem_core.settings import load_settings

    server = listener.Service(str(project), Kernel(settings=load_settings(str(project))))
    general, *own = server._trial_prompts()
    assert general.startswith("which conventions")
    assert own and all(prompt.split()[0] in DECISIONS for prompt in own)  # the notes' own words
    times = {general: 0.001}
    monkeypatch.setattr(listener.Service, "_trial", lambda self, prompt: times.get(prompt, 0.2))
    server._run()
    assert server.seconds == 0.2
    assert not served_socket(project).exists()
