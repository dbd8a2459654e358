"""What each assistant's real program needs to run one headless turn against the fake model.

One function per assistant, all with the same shape::

    run_turn(project, home, prompt, fake_model_url, mcp_command=None, *, mcp_name="mem",
             env=None, args=(), timeout=TURN_TIMEOUT) -> Completed

``home`` is a throwaway HOME (every config and cache directory of the program is
put under it); ``project`` is the working directory. The user-level files the
program needs to talk to ``fake_model_url`` and nothing else are written into
``home``; the project's files are left to the test (or to ``mem adapters
install``). ``mcp_command`` (an argv), when given, is registered as a stdio MCP
server named ``mcp_name`` at the user level, approved for headless use; without
it, whatever MCP servers the project's own files configure are used, and the
switches that let a headless turn call ``mcp_name``'s tools are set anyway.

``mcp_list(project, home, fake_model_url, …)`` runs the program's own ``mcp
list`` (Claude Code, Gemini CLI, OpenCode), which starts each server and reports
whether it connected.

Every process gets: the throwaway HOME and XDG directories, no credentials or
proxies from the calling environment, ``HTTP(S)_PROXY`` pointing at the fake
model (a proxied request to the outside world shows up there as a ``CONNECT`` or
an absolute URL and fails — see ``FakeModel.escapes``) with loopback excluded
through ``NO_PROXY``, and each program's switches against non-essential
traffic (``assistants.md``).

The executables come from the manifest ``install.py`` writes; :func:`available`
tells whether it is there (and why not).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import install

TURN_TIMEOUT = 180.0
LIST_TIMEOUT = 120.0
FAKE_KEY = "dummy-key-for-the-fake-model"
AIDER_MODEL = "openai/fake-model"


@dataclass
class Completed:
    """A finished program run."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    elapsed: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        """A compact account for assertion messages."""
        return f"{self.argv[0]} exited {self.returncode} in {self.elapsed:.1f} s\n--- stdout\n{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-4000:]}"


class Unavailable(Exception):
    """The programs are not installed (the reason is the message)."""


# --- the installed programs ------------------------------------------------------------


@cache
def manifest() -> dict[str, object]:
    path = install.manifest_path()
    if not path.is_file():
        raise Unavailable(
            f"the assistants' programs are not installed: run python {Path(install.__file__).name} (tox -e assistants does)"
        )
    data = json.loads(path.read_text())
    if not data.get("ok"):
        raise Unavailable(str(data.get("reason")))
    return data  # type: ignore[no-any-return]


E2E_SWITCH = "MEM_ASSISTANTS_E2E"


def available(name: str) -> str | None:
    """None when ``name`` (claude-code, codex-cli, gemini-cli, opencode, aider, inspector) can run, else why not.

    The real programs run only when ``MEM_ASSISTANTS_E2E=1`` (``tox -e assistants`` sets it), so that a
    plain ``pytest`` of the whole tree stays fast even where the programs are installed.
    """
    if os.environ.get(E2E_SWITCH, "") in ("", "0"):
        return f"the assistants' programs run only with {E2E_SWITCH}=1 (tox -e assistants)"
    try:
        info = manifest()["programs"][name]  # type: ignore[index]
    except Unavailable as exc:
        return str(exc)
    except KeyError:
        return f"{name} is not in the manifest {install.manifest_path()}"
    if not Path(info["path"]).exists():
        return f"{info['path']} is missing: run install.py again"
    return None


def need(name: str) -> None:
    """Skip the test (or the module, from a module fixture) when ``name`` cannot run here."""
    import pytest

    reason = available(name)
    if reason:
        pytest.skip(reason)


def executable(name: str) -> str:
    reason = available(name)
    if reason:
        raise Unavailable(reason)
    return str(manifest()["programs"][name]["path"])  # type: ignore[index]


def version(name: str) -> str:
    return str(manifest()["programs"][name]["version"])  # type: ignore[index]


# --- the environment -------------------------------------------------------------------

#: variables never passed on: credentials and endpoints of the real services, proxies
_DROPPED_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE_",
    "OPENAI_",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_",
    "OPENCODE_",
    "AIDER_",
    "LITELLM_",
)
_DROPPED = {
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "ftp_proxy",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
}


def base_env(home: Path, fake_model_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of every program run: a throwaway HOME and only loopback traffic."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_DROPPED_PREFIXES) and k.lower() not in _DROPPED and k not in _DROPPED
    }
    node = shutil.which("node")
    path = [str(Path(sys.executable).parent)]  # the test env's python and mem
    if node:
        path.append(str(Path(node).parent))
    env["PATH"] = os.pathsep.join([*path, env.get("PATH", "/usr/bin:/bin")])
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        TERM="dumb",
        NO_COLOR="1",
        CI="1",
        HTTP_PROXY=fake_model_url,
        HTTPS_PROXY=fake_model_url,
        http_proxy=fake_model_url,
        https_proxy=fake_model_url,
        NO_PROXY="127.0.0.1,localhost,::1",
        no_proxy="127.0.0.1,localhost,::1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(extra or {})
    return env


def _run(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float, stdin: int | None = subprocess.DEVNULL
) -> Completed:
    env = {**env, "PWD": str(cwd)}  # OpenCode takes its directory from $PWD, not from getcwd()
    start = time.monotonic()
    try:
        proc = subprocess.run(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc = -9
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = (
            exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
        ) + f"\n[timed out after {timeout} s]"
    return Completed(list(argv), rc, out, err, time.monotonic() - start)


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


# --- Claude Code -------------------------------------------------------------------------


def claude_env(home: Path, fake_model_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return base_env(
        home,
        fake_model_url,
        {
            "ANTHROPIC_BASE_URL": fake_model_url,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            # newer versions (2.1.332) defer MCP tools behind a ToolSearch tool (listed by name in a
            # system message, schemas fetched on demand); off, they are offered at the top as before
            "ENABLE_TOOL_SEARCH": "false",
            # `claude -p` connects MCP servers in the background and sends the first request without
            # the tools of any not yet up (a Python MCP server takes 1-2.5 s to start on a busy machine;
            # the echo round trip failed 3 times in 4); not "nonblocking", it waits MCP_CONNECT_TIMEOUT_MS
            "MCP_CONNECTION_NONBLOCKING": "0",
            "MCP_CONNECT_TIMEOUT_MS": "60000",
            **(extra or {}),
        },
    )


def claude_setup(home: Path, mcp_command: Sequence[str] | None, mcp_name: str) -> None:
    """User settings: project MCP servers (``.mcp.json``) approved; ``mcp_command`` as a user-scope server."""
    settings = home / ".claude" / "settings.json"
    if not settings.exists():
        _write_json(settings, {"enableAllProjectMcpServers": True})
    if mcp_command:
        state = home / ".claude.json"
        data = json.loads(state.read_text()) if state.exists() else {}
        data.setdefault("mcpServers", {})[mcp_name] = {
            "type": "stdio",
            "command": mcp_command[0],
            "args": list(mcp_command[1:]),
            "env": {},
        }
        _write_json(state, data)


def claude_run_turn(
    project: Path,
    home: Path,
    prompt: str,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = TURN_TIMEOUT,
) -> Completed:
    claude_setup(home, mcp_command, mcp_name)
    argv = [executable("claude-code"), "-p", prompt, "--allowedTools", f"mcp__{mcp_name}", *args]
    return _run(argv, project, claude_env(home, fake_model_url, env), timeout)


def claude_mcp_list(
    project: Path,
    home: Path,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    timeout: float = LIST_TIMEOUT,
) -> Completed:
    """``claude mcp list``: ``NAME: … - ✔ Connected`` per server (exit 0 whatever the state)."""
    claude_setup(home, mcp_command, mcp_name)
    return _run([executable("claude-code"), "mcp", "list"], project, claude_env(home, fake_model_url), timeout)


# --- Codex CLI ---------------------------------------------------------------------------


def codex_setup(
    project: Path, home: Path, fake_model_url: str, mcp_command: Sequence[str] | None, mcp_name: str
) -> Path:
    """``$CODEX_HOME/config.toml``: the fake provider, the project trusted, no update check/analytics/plugins."""
    codex_home = home / ".codex"
    lines = [
        'model = "fake-model"',
        'model_provider = "fake"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.fake]",
        'name = "fake"',
        f"base_url = {_toml_str(fake_model_url + '/v1')}",
        'wire_api = "responses"',
        'env_key = "MEM_FAKE_MODEL_KEY"',
        "",
        f"[projects.{_toml_str(str(project.resolve()))}]",
        'trust_level = "trusted"',
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[features]",
        "plugins = false",
    ]
    if mcp_command:
        lines += [
            "",
            f"[mcp_servers.{_toml_str(mcp_name)}]",
            f"command = {_toml_str(mcp_command[0])}",
            f"args = [{', '.join(_toml_str(a) for a in mcp_command[1:])}]",
            "required = true",
            'default_tools_approval_mode = "approve"',
        ]
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n")
    return codex_home


def codex_run_turn(
    project: Path,
    home: Path,
    prompt: str,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = TURN_TIMEOUT,
) -> Completed:
    codex_home = codex_setup(project, home, fake_model_url, mcp_command, mcp_name)
    full_env = base_env(
        home, fake_model_url, {"CODEX_HOME": str(codex_home), "MEM_FAKE_MODEL_KEY": FAKE_KEY, **(env or {})}
    )
    argv = [executable("codex-cli"), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", *args, prompt]
    return _run(argv, project, full_env, timeout)


# --- Gemini CLI --------------------------------------------------------------------------


def gemini_setup(project: Path, home: Path, mcp_command: Sequence[str] | None, mcp_name: str) -> None:
    """``~/.gemini/settings.json`` (API-key auth, no statistics, no updates) and the project folder trusted."""
    settings: dict[str, object] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    if mcp_command:
        settings["mcpServers"] = {mcp_name: {"command": mcp_command[0], "args": list(mcp_command[1:]), "trust": True}}
    _write_json(home / ".gemini" / "settings.json", settings)
    _write_json(home / ".gemini" / "trustedFolders.json", {str(project.resolve()): "TRUST_FOLDER"})


def gemini_env(home: Path, fake_model_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return base_env(
        home, fake_model_url, {"GEMINI_API_KEY": FAKE_KEY, "GOOGLE_GEMINI_BASE_URL": fake_model_url, **(extra or {})}
    )


def gemini_run_turn(
    project: Path,
    home: Path,
    prompt: str,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = TURN_TIMEOUT,
) -> Completed:
    gemini_setup(project, home, mcp_command, mcp_name)
    argv = [executable("gemini-cli"), "-p", prompt, *args]
    return _run(argv, project, gemini_env(home, fake_model_url, env), timeout)


def gemini_mcp_list(
    project: Path,
    home: Path,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    timeout: float = LIST_TIMEOUT,
) -> Completed:
    """``gemini mcp list``: ``✓ NAME: … - Connected`` per server."""
    gemini_setup(project, home, mcp_command, mcp_name)
    return _run([executable("gemini-cli"), "mcp", "list"], project, gemini_env(home, fake_model_url), timeout)


# --- OpenCode ----------------------------------------------------------------------------

OPENCODE_SWITCHES = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}


def opencode_seed_config_dir(directory: Path) -> None:
    """Put the installed ``@opencode-ai/plugin`` into an OpenCode config directory.

    At every start OpenCode npm-installs ``@opencode-ai/plugin`` (its own version) into each config
    directory it loads: ``~/.config/opencode`` and a project's ``.opencode/`` (where plugins such as
    ``mem``'s live). Seeded, it finds the package there and makes no request to the registry.
    """
    source = Path(str(manifest()["opencode_plugin_dir"]))
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        if not (directory / name).exists():
            shutil.copy2(source / name, directory / name)
    if not (directory / "node_modules").exists():
        try:
            shutil.copytree(source / "node_modules", directory / "node_modules", symlinks=True, copy_function=os.link)
        except OSError:  # another file system
            shutil.rmtree(directory / "node_modules", ignore_errors=True)
            shutil.copytree(source / "node_modules", directory / "node_modules", symlinks=True)


def opencode_setup(home: Path, fake_model_url: str, mcp_command: Sequence[str] | None, mcp_name: str) -> Path:
    """A config file named by ``OPENCODE_CONFIG``: the fake provider as model and small model."""
    opencode_seed_config_dir(home / ".config" / "opencode")
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-model",
        "small_model": "fake/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "fake",
                "options": {"baseURL": fake_model_url + "/v1", "apiKey": FAKE_KEY},
                "models": {"fake-model": {"name": "fake-model"}},
            }
        },
    }
    if mcp_command:
        config["mcp"] = {mcp_name: {"type": "local", "command": list(mcp_command), "environment": {}, "enabled": True}}
    path = home / "opencode-config.json"  # not in a config directory: OpenCode npm-installs the dependencies of those
    _write_json(path, config)
    return path


def opencode_run_turn(
    project: Path,
    home: Path,
    prompt: str,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = TURN_TIMEOUT,
) -> Completed:
    config = opencode_setup(home, fake_model_url, mcp_command, mcp_name)
    if (project / ".opencode").is_dir():
        opencode_seed_config_dir(project / ".opencode")
    argv = [executable("opencode"), "run", *args, prompt]
    full_env = base_env(home, fake_model_url, {**OPENCODE_SWITCHES, "OPENCODE_CONFIG": str(config), **(env or {})})
    return _run(argv, project, full_env, timeout)


def opencode_mcp_list(
    project: Path,
    home: Path,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    timeout: float = LIST_TIMEOUT,
) -> Completed:
    """``opencode mcp list``: ``● ✓ NAME connected`` per server."""
    config = opencode_setup(home, fake_model_url, mcp_command, mcp_name)
    full_env = base_env(home, fake_model_url, {**OPENCODE_SWITCHES, "OPENCODE_CONFIG": str(config)})
    return _run([executable("opencode"), "mcp", "list"], project, full_env, timeout)


# --- Aider -------------------------------------------------------------------------------


def aider_run_turn(
    project: Path,
    home: Path,
    prompt: str,
    fake_model_url: str,
    mcp_command: Sequence[str] | None = None,
    *,
    mcp_name: str = "mem",
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    timeout: float = TURN_TIMEOUT,
) -> Completed:
    """Aider has no MCP client: ``mcp_command`` must be None. Read-only files come from the project's ``.aider.conf.yml``."""
    if mcp_command:
        raise ValueError("aider has no MCP client")
    metadata = home / ".aider.model.metadata.json"
    _write_json(
        metadata,
        {
            AIDER_MODEL: {
                "max_tokens": 4096,
                "max_input_tokens": 32000,
                "max_output_tokens": 4096,
                "input_cost_per_token": 0,
                "output_cost_per_token": 0,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        },
    )
    argv = [
        executable("aider"),
        "--openai-api-base",
        fake_model_url + "/v1",
        "--openai-api-key",
        FAKE_KEY,
        "--model",
        AIDER_MODEL,
        "--model-metadata-file",
        str(metadata),
        "--yes-always",
        "--no-check-update",
        "--analytics-disable",
        "--no-show-release-notes",
        "--no-show-model-warnings",
        "--no-auto-commits",
        "--no-gitignore",
        "--no-pretty",
        "--no-fancy-input",
        *([] if (project / ".git").exists() else ["--no-git"]),
        *args,
        "--message",
        prompt,
    ]
    full_env = base_env(home, fake_model_url, {"LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})})
    return _run(argv, project, full_env, timeout)


# --- the MCP Inspector CLI ---------------------------------------------------------------


def inspector(
    server_command: Sequence[str], *method_args: str, cwd: Path, home: Path, timeout: float = LIST_TIMEOUT
) -> Completed:
    """``mcp-inspector --cli SERVER… --method …`` (e.g. ``"--method", "tools/list"``); prints JSON."""
    argv = [executable("inspector"), "--cli", *server_command, *method_args]
    return _run(argv, cwd, base_env(home, "http://127.0.0.1:9"), timeout)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def mcp_list_state(output: str, server: str) -> str | None:
    """What an ``mcp list`` output says of ``server``: connected, failed, pending, disabled, or None when absent.

    Claude Code prints ``NAME: CMD - ✔ Connected`` / ``✘ Failed to connect`` / ``⏸ Pending approval``;
    Gemini CLI ``✓ NAME: CMD (stdio) - Connected`` / ``✗ … - Disconnected`` / ``○ … Disabled``;
    OpenCode ``●  ✓ NAME connected`` / ``✗ NAME failed`` (and the error on the next line).
    """
    name = re.compile(rf"(^|[\s:])({re.escape(server)})(:|\s|$)")
    for line in _ANSI.sub("", output).splitlines():
        if not name.search(line):
            continue
        low = line.lower()
        if re.search(r"\bconnected\b", low) and "disconnected" not in low:
            return "connected"
        for state, words in (
            ("pending", ("pending",)),
            ("disabled", ("disabled",)),
            ("failed", ("fail", "disconnected", "error")),
        ):
            if any(w in low for w in words):
                return state
    return None


#: the assistants that run a headless turn, by their adapter names
RUN_TURN = {
    "claude-code": claude_run_turn,
    "codex-cli": codex_run_turn,
    "gemini-cli": gemini_run_turn,
    "opencode": opencode_run_turn,
    "aider": aider_run_turn,
}
#: the assistants whose ``mcp list`` starts the servers and reports them
MCP_LIST = {"claude-code": claude_mcp_list, "gemini-cli": gemini_mcp_list, "opencode": opencode_mcp_list}
#: where each one reads its project instructions
INSTRUCTION_FILE = {
    "claude-code": "CLAUDE.md",
    "codex-cli": "AGENTS.md",
    "gemini-cli": "GEMINI.md",
    "opencode": "AGENTS.md",
    "aider": "CONVENTIONS.md",
}


def assert_listed(listed: Completed, server: str, state: str) -> None:
    """``listed``, an ``mcp list``, exited 0 and says ``server`` is ``state`` (:func:`mcp_list_state`)."""
    assert listed.returncode == 0, listed.describe()
    assert mcp_list_state(listed.output, server) == state, listed.describe()


def mcp_tool_name(assistant: str, server: str, tool: str) -> str:
    """The name under which an assistant offers an MCP tool to the model (as ``FakeModel.tool_names`` reports it)."""
    return {
        "claude-code": f"mcp__{server}__{tool}",
        "codex-cli": f"mcp__{server}__{tool}",  # namespace mcp__SERVER, function TOOL
        "gemini-cli": f"mcp_{server}_{tool}",
        "opencode": f"{server}_{tool}",
    }[assistant]
