"""``mem hook``: real processes, each assistant's output shape for each event,
the relevance floor, the session's journal event, and failing open."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.api import memories
from mem_core.hooks.prompt import prompt_query
from tests.conftest import writer_lock_held
from tests.hooks.conftest import DATA, NOW, hooks_log

PROMPTS = json.loads((DATA / "prompts.json").read_text(encoding="utf-8"))
RELEVANT = "How should we rate limit login attempts?"
IRRELEVANT = "Write a haiku about autumn leaves"

SLOW_PLUGIN = '''
import time
from mem_core import hookimpl
from mem_plugins.stores.sqlite import SqliteStore


class SlowStore(SqliteStore):
    """The SQLite store, 30 s late to open (a store on a hung network disk)."""

    name = "slow"

    @classmethod
    def open(cls, directory, *, create):
        time.sleep(30)
        return super().open(directory, create=create)

    @classmethod
    def open_read_only(cls, directory):
        time.sleep(30)
        return super().open_read_only(directory)


@hookimpl
def mem_register_stores():
    return [SlowStore]
'''


def payload(project: Path, **fields: object) -> dict:
    return {"session_id": "sess-1", "cwd": str(project), "transcript_path": "/dev/null", **fields}


def journal(project: Path) -> list[dict]:
    path = project / ".bmad/memory/journal.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- the shapes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("assistant", "event", "name"),
    [
        ("claude-code", "session-start", "SessionStart"),
        ("claude-code", "SessionStart", "SessionStart"),
        ("codex-cli", "session-start", "SessionStart"),
        ("gemini-cli", "session-start", "SessionStart"),
        ("gemini-cli", "SessionStart", "SessionStart"),
    ],
)
def test_session_start_json_shapes(hook, fixture_project: Path, assistant: str, event: str, name: str) -> None:
    run = hook(event, assistant, payload(fixture_project, hook_event_name=name, source="startup"))
    assert (run.code, run.err) == (0, "")
    assert run.out.endswith("\n") and run.out.count("\n") == 1
    answer = json.loads(run.out)
    assert list(answer) == ["hookSpecificOutput"]
    assert list(answer["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == name
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# Project memory (mem brief)")
    assert "- Use Redis for login rate limiting" in context


@pytest.mark.parametrize(
    ("assistant", "event", "name"),
    [
        ("claude-code", "prompt-submit", "UserPromptSubmit"),
        ("claude-code", "UserPromptSubmit", "UserPromptSubmit"),
        ("codex-cli", "UserPromptSubmit", "UserPromptSubmit"),
        ("gemini-cli", "prompt-submit", "BeforeAgent"),
        ("gemini-cli", "BeforeAgent", "BeforeAgent"),
    ],
)
def test_prompt_submit_json_shapes(hook, fixture_project: Path, assistant: str, event: str, name: str) -> None:
    run = hook(event, assistant, payload(fixture_project, prompt=RELEVANT))
    assert (run.code, run.err) == (0, "")
    answer = json.loads(run.out)
    assert answer["hookSpecificOutput"]["hookEventName"] == name
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[0].startswith("Project memory relevant to this prompt")
    assert "- .bmad/memory/decisions.md § Use Redis for login rate limiting [" in context


def test_gemini_before_agent_leaves_out_the_session_start_context(hook, fixture_project: Path) -> None:
    """Gemini CLI 0.61 (headless) puts SessionStart's context before the prompt, escaped, as
    ``<hook_context>…</hook_context>\\n\\n<prompt>``, and BeforeAgent gets that: the recall and the
    session's task are the user's prompt's, not the brief's."""
    start = hook("SessionStart", "gemini-cli", payload(fixture_project, session_id="g1"))
    brief = json.loads(start.out)["hookSpecificOutput"]["additionalContext"]
    escaped = brief.replace("<", "&lt;").replace(">", "&gt;")  # as Gemini CLI's getAdditionalContext
    sent = f"<hook_context>{escaped}</hook_context>\n\n{RELEVANT}"
    alone = hook("BeforeAgent", "gemini-cli", payload(fixture_project, session_id="g0", prompt=RELEVANT))
    wrapped = hook("BeforeAgent", "gemini-cli", payload(fixture_project, session_id="g1", prompt=sent))
    assert wrapped.out == alone.out and "Use Redis for login rate limiting" in wrapped.out
    hook("SessionEnd", "gemini-cli", payload(fixture_project, session_id="g1"))
    assert journal(fixture_project)[-1]["task"] == RELEVANT
    # another assistant's prompt is taken as it is
    claude = hook("prompt-submit", "claude-code", payload(fixture_project, session_id="c9", prompt=sent))
    assert claude.out != alone.out.replace("BeforeAgent", "UserPromptSubmit")


def test_cursor_shapes(hook, fixture_project: Path) -> None:
    start = hook("sessionStart", "cursor", {"conversation_id": "c1", "workspace_roots": [str(fixture_project)]})
    answer = json.loads(start.out)
    assert (
        list(answer) == ["additional_context"] and "- Use Redis for login rate limiting" in answer["additional_context"]
    )
    prompt = hook(
        "beforeSubmitPrompt", "cursor", {"conversation_id": "c1", "workspace_roots": [str(fixture_project)],
                                         "prompt": RELEVANT}
    )  # fmt: skip
    assert json.loads(prompt.out) == {"continue": True}  # beforeSubmitPrompt can only allow or block
    end = hook("stop", "cursor", {"conversation_id": "c1", "workspace_roots": [str(fixture_project)]})
    assert (end.code, end.out) == (0, "")
    assert journal(fixture_project)[-1]["task"] == RELEVANT


@pytest.mark.parametrize("assistant", ["opencode", "aider", "antigravity"])
def test_plain_text_assistants(hook, fixture_project: Path, assistant: str) -> None:
    start = hook("session-start", assistant, payload(fixture_project))
    assert start.out.startswith("# Project memory (mem brief)") and "- Use Redis for login rate limiting" in start.out
    prompt = hook("prompt-submit", assistant, payload(fixture_project, prompt=RELEVANT))
    assert prompt.out.startswith("Project memory relevant to this prompt")


def test_the_project_comes_from_cwd_not_the_process_directory(hook, fixture_project: Path, tmp_path: Path) -> None:
    sub = fixture_project / "src" / "auth"
    sub.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = hook("session-start", "opencode", payload(sub), cwd=elsewhere)
    assert "- Use Redis for login rate limiting" in run.out
    without_cwd = hook("session-start", "opencode", {"session_id": "x"}, cwd=sub)
    assert without_cwd.out == run.out


# -- the relevance floor ----------------------------------------------------------------


def test_nothing_at_all_for_an_irrelevant_prompt(hook, fixture_project: Path) -> None:
    for assistant in ("claude-code", "gemini-cli", "opencode"):
        run = hook("prompt-submit", assistant, payload(fixture_project, prompt=IRRELEVANT))
        assert (run.code, run.out, run.err) == (0, "", "")
    assert hooks_log(fixture_project) == []  # nothing relevant is not an error


def test_the_default_floor_separates_the_measured_prompts(fixture_project: Path) -> None:
    """The default ``hook_relevance`` (0.12) as measured on data/prompts.json:
    no irrelevant prompt reaches it; most relevant ones do (docs/brief.md)."""
    from mem_core.api.recall import recall
    from mem_core.kernel import Kernel
    from mem_core.settings import default_value, load_settings

    floor = default_value("hook_relevance")
    kernel = Kernel(settings=load_settings(str(fixture_project)))

    def top(prompt: str) -> float:
        query = prompt_query(prompt)
        results = recall(query, directory=str(fixture_project), kernel=kernel, now=NOW).results if query else []
        return results[0].score if results else 0.0

    assert max(top(p) for p in PROMPTS["irrelevant"]) < floor
    assert sum(top(p) >= floor for p in PROMPTS["relevant"]) >= 12


def test_the_floor_is_a_setting(hook, fixture_project: Path) -> None:
    run = hook("prompt-submit", "opencode", payload(fixture_project, prompt=RELEVANT), env={"MEM_HOOK_RELEVANCE": "50"})
    assert run.out == ""


def test_prompt_context_stays_within_its_budget(hook, fixture_project: Path) -> None:
    from mem_core.brief.tokens import estimate_tokens

    prompt = "login rate limit redis password reset cache zero values csv import flaky tests retries"
    full = hook("prompt-submit", "opencode", payload(fixture_project, prompt=prompt))
    small = hook("prompt-submit", "opencode", payload(fixture_project, prompt=prompt), env={"MEM_PROMPT_BUDGET": "80"})
    assert estimate_tokens(full.out.rstrip("\n")) <= 600
    assert estimate_tokens(small.out.rstrip("\n")) <= 80
    assert small.out.rstrip("\n").splitlines()[-1].endswith("more: mem recall <topic>")


# -- session end ------------------------------------------------------------------------------


def test_session_end_journals_the_first_prompt_once(hook, fixture_project: Path, cache: Path) -> None:
    before = len(journal(fixture_project))
    long_prompt = "Add   a limit on failed logins per account\nand " + "lock the account " * 20
    assert hook("UserPromptSubmit", "claude-code", payload(fixture_project, prompt=long_prompt)).code == 0
    assert hook("UserPromptSubmit", "claude-code", payload(fixture_project, prompt="second prompt")).code == 0
    assert list((cache / "mem" / "sessions").iterdir())
    assert hook("Stop", "claude-code", payload(fixture_project)).out == ""
    assert hook("SessionEnd", "claude-code", payload(fixture_project)).out == ""
    events = journal(fixture_project)
    assert len(events) == before + 1
    event = events[-1]
    from mem_core.text import one_line

    assert (event["agent"], event["cli"], event["outcome"], event["ts"]) == ("claude-code", "claude-code", None, NOW)
    assert list(event)[-2:] == ["id", "via"] and event["via"] == "session-end"  # the prompt's echo, marked
    assert event["task"] == one_line(long_prompt) and event["task"].endswith("…") and len(event["task"]) == 120
    assert hook("prompt-submit", "claude-code", payload(fixture_project, prompt="after the end")).code == 0
    assert hook("session-end", "claude-code", payload(fixture_project)).code == 0
    assert len(journal(fixture_project)) == before + 1


def test_echo_events_never_crowd_out_the_notes(hook, fixture_project: Path) -> None:
    """60 sessions that began with the same prompt: their events repeat its
    words, outrank the note for them, and are left out of the hook's recall
    (``mem recall`` still finds them)."""
    from mem_core.api.recall import recall
    from mem_core.api.write import write

    before = json.loads(hook("prompt-submit", "claude-code", payload(fixture_project, prompt=RELEVANT)).out)
    for n in range(60):
        session = payload(fixture_project, session_id=f"s{n}", prompt=RELEVANT) if n < 2 else None
        if session is not None:  # two through the real hooks, the rest through the same API call
            hook("prompt-submit", "claude-code", session)
            hook("session-end", "claude-code", session)
        else:
            write(
                agent="claude-code", cli="claude-code", task=RELEVANT, directory=str(fixture_project), via="session-end"
            )
    top = recall(prompt_query(RELEVANT), directory=str(fixture_project), now=NOW).results
    assert top[0].fields["kind"] == "event" and top[0].fields["event"]["via"] == "session-end"
    after = json.loads(hook("prompt-submit", "claude-code", payload(fixture_project, prompt=RELEVANT)).out)
    assert after == before
    assert "Use Redis for login rate limiting" in after["hookSpecificOutput"]["additionalContext"]
    assert "claude-code claude-code" not in after["hookSpecificOutput"]["additionalContext"]


def test_the_hook_ranks_with_the_recall_ranking_setting(hook, fixture_project: Path) -> None:
    prompt = "Rédis limits?"  # only bm25 folds the accent and stems
    assert hook("prompt-submit", "opencode", payload(fixture_project, prompt=prompt)).out == ""
    (fixture_project / ".bmad/memory/mem.toml").write_text('recall_ranking = "bm25"\nhook_relevance = 0.5\n')
    assert (
        "Use Redis for login rate limiting"
        in hook("prompt-submit", "opencode", payload(fixture_project, prompt=prompt)).out
    )


def test_sessions_are_kept_apart(hook, fixture_project: Path) -> None:
    before = len(journal(fixture_project))
    for session, prompt in (("a", "first of a"), ("b", "first of b")):
        hook("prompt-submit", "gemini-cli", payload(fixture_project, session_id=session, prompt=prompt))
    for session in ("b", "a"):
        hook("SessionEnd", "gemini-cli", payload(fixture_project, session_id=session))
    assert [e["task"] for e in journal(fixture_project)[before:]] == ["first of b", "first of a"]


def test_journal_sessions_off(hook, fixture_project: Path) -> None:
    before = len(journal(fixture_project))
    (fixture_project / ".bmad/memory/mem.toml").write_text("journal_sessions = false\n")
    hook("prompt-submit", "claude-code", payload(fixture_project, prompt=RELEVANT))
    assert hook("session-end", "claude-code", payload(fixture_project)).out == ""
    assert len(journal(fixture_project)) == before


def test_no_prompt_no_event(hook, fixture_project: Path) -> None:
    before = len(journal(fixture_project))
    assert hook("session-end", "codex-cli", payload(fixture_project)).code == 0
    assert len(journal(fixture_project)) == before


# -- failing open ---------------------------------------------------------------------------------


def assert_failed_open(run, project: Path | None, text: str, *, log: list[str] | None = None) -> None:
    assert (run.code, run.out, run.err) == (0, "", "")
    lines = hooks_log(project) if log is None else log
    assert len(lines) == 1, lines
    assert text in lines[0]


@pytest.mark.parametrize(
    "stdin",
    [b"not json", b"[1, 2]", b"\xff\xfe", b'{"cwd": 42, "prompt": ', b'{"cwd": "relative/dir"}'],
)
def test_garbage_on_stdin(hook, fixture_project: Path, stdin: bytes) -> None:
    run = hook("prompt-submit", "claude-code", stdin, cwd=fixture_project)
    assert_failed_open(run, fixture_project, "hook prompt-submit --assistant claude-code: hook input")


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["hook", "bogus", "--assistant", "claude-code"], "unknown hook event 'bogus'"),
        (["hook", "session-start", "--assistant", "vim"], "--assistant must be one of"),
        (["hook", "session-start"], "--assistant must be one of"),
        (["hook"], "missing the event"),
        (["hook", "session-start", "--assistant", "claude-code", "--what"], "unexpected argument '--what'"),
    ],
)
def test_bad_arguments(fixture_project: Path, args: list[str], text: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mem_cli", *args], input=b"{}", cwd=fixture_project, capture_output=True, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    if args != ["hook"] and "--what" not in args:
        assert text in hooks_log(fixture_project)[0]


def test_a_missing_project(hook, tmp_path: Path, cache: Path) -> None:
    gone = tmp_path / "gone"
    run = hook("session-start", "claude-code", payload(gone), cwd=tmp_path)
    log = (cache / "mem" / "hooks.log").read_text().splitlines()
    assert_failed_open(run, None, f"hook input cwd is not a directory: '{gone}'", log=log)
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    run = hook("session-start", "claude-code", payload(bare), cwd=tmp_path)
    assert (run.code, run.out) == (0, "")
    assert "no project memory (.bmad/ or .agents/) at or above" in (cache / "mem" / "hooks.log").read_text()


def test_a_held_writer_lock(hook, fixture_project: Path) -> None:
    hook("prompt-submit", "claude-code", payload(fixture_project, prompt=RELEVANT))
    before = len(journal(fixture_project))
    with writer_lock_held(fixture_project):
        run = hook("session-end", "claude-code", payload(fixture_project))
    assert_failed_open(run, fixture_project, "session-end --assistant claude-code")
    assert run.seconds < 1.0 + 1.5
    assert len(journal(fixture_project)) == before


def test_a_corrupt_store(hook, fixture_project: Path) -> None:
    (fixture_project / ".bmad/memory/memories.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\x13" * 4000)
    for event, fields in (("session-start", {}), ("prompt-submit", {"prompt": RELEVANT})):
        (fixture_project / ".bmad/memory/hooks.log").unlink(missing_ok=True)
        run = hook(event, "claude-code", payload(fixture_project, **fields))
        assert_failed_open(run, fixture_project, f"hook {event} --assistant claude-code: ")


def test_a_locked_store(hook, fixture_project: Path) -> None:
    memories.remember("fact", "k", "v", priority="critical", directory=str(fixture_project), now=NOW)
    path = fixture_project / ".bmad/memory/memories.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    try:
        run = hook("session-start", "claude-code", payload(fixture_project))
    finally:
        conn.close()
    assert_failed_open(run, fixture_project, "session-start --assistant claude-code: ")
    assert run.seconds < 1.0 + 1.5


@pytest.mark.parametrize("event", ["session-start", "prompt-submit"])
def test_a_slow_store_is_cut_off_by_the_timeout(hook, fixture_project: Path, tmp_path: Path, event: str) -> None:
    memories.remember("fact", "k", "v", priority="critical", directory=str(fixture_project), now=NOW)
    plugin = tmp_path / "slow_store.py"
    plugin.write_text(SLOW_PLUGIN)
    env = {"MEM_PLUGINS": str(plugin), "MEM_STORE": "slow"}
    (fixture_project / ".bmad/memory/mem.toml").write_text("hook_timeout = 0.5\n")
    run = hook(event, "claude-code", payload(fixture_project, prompt=RELEVANT), env=env)
    assert_failed_open(run, fixture_project, "timed out after 0.5 s; printed nothing")
    assert run.seconds < 0.5 + 1.5


def test_the_log_is_bounded(hook, fixture_project: Path) -> None:
    from mem_core.files.hookslog import MAX_BYTES, log_line

    log = fixture_project / ".bmad/memory/hooks.log"
    for _ in range(MAX_BYTES // 1000 + 5):
        log_line(str(fixture_project), "test", "x" * 1000)
    assert log.stat().st_size <= MAX_BYTES
    assert (fixture_project / ".bmad/memory/hooks.log.1").stat().st_size <= MAX_BYTES


def test_an_unwritable_log_still_fails_open(hook, fixture_project: Path) -> None:
    log = fixture_project / ".bmad/memory/hooks.log"
    log.mkdir()  # cannot be appended to
    run = hook("prompt-submit", "claude-code", b"garbage", cwd=fixture_project)
    assert (run.code, run.out, run.err) == (0, "", "")


def test_help_goes_through_typer(fixture_project: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mem_cli", "hook", "--help"], capture_output=True, timeout=60)
    assert proc.returncode == 0 and b"session-start" in proc.stdout and b"--assistant" in proc.stdout


def test_a_hook_never_waits_on_an_open_stdin(fixture_project: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mem_cli", "hook", "session-start", "--assistant", "claude-code"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=fixture_project,
        env=dict(os.environ, MEM_HOOK_TIMEOUT="0.5"),
    )  # fmt: skip
    # stdin stays open: only the watchdog can end the hook (the log says it did);
    # how long the interpreter took to start is not the hook's doing, so no bound on it
    proc.wait(timeout=60)
    assert proc.returncode == 0
    assert proc.stdout is not None and proc.stdout.read() == b""
    assert proc.stderr is not None and proc.stderr.read() == b""
    assert "timed out after 0.5 s" in hooks_log(fixture_project)[0]
    assert proc.stdin is not None
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()


@pytest.mark.parametrize("assistant", ["claude-code", "codex-cli", "gemini-cli", "cursor", "opencode", "aider",
                                       "antigravity"])  # fmt: skip
def test_session_end_for_every_assistant(hook, fixture_project: Path, assistant: str) -> None:
    before = len(journal(fixture_project))
    hook("prompt-submit", assistant, payload(fixture_project, session_id=assistant, prompt=f"work with {assistant}"))
    run = hook("session-end", assistant, payload(fixture_project, session_id=assistant))
    expected = "{}\n" if assistant in ("codex-cli", "gemini-cli") else ""  # their end hooks answer JSON
    assert (run.code, run.out, run.err) == (0, expected, "")
    events = journal(fixture_project)[before:]
    assert [(e["agent"], e["cli"], e["task"]) for e in events] == [(assistant, assistant, f"work with {assistant}")]
