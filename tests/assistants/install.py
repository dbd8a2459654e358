"""Install the assistants' real programs for the end-to-end tests, pinned (or the newest).

    python tests/assistants/install.py            # the pinned versions below
    MEM_ASSISTANTS_LATEST=1 python tests/assistants/install.py   # the newest the registries serve

The npm packages go into one ``node_modules`` and aider into its own venv (its
dependencies are heavy and pinned; they stay out of the test env), under a cache
directory keyed by the versions: ``$MEM_ASSISTANTS_CACHE``, else
``$XDG_CACHE_HOME/mem-assistants`` (``~/.cache/mem-assistants``). Nothing is
committed; a second run with the same versions installs nothing and needs no
network. Node comes from Debian's packages (``apt-get install nodejs npm``) only
when ``node`` is missing.

The result is a manifest, ``<cache>/pinned.json`` (or ``latest.json``) that
``programs.py`` reads: each program's executable and ``--version``. When the
registries cannot be reached, the manifest says why (``"ok": false``), this
script exits 0 and the tests skip with that reason; any other failure exits 1,
so that CI fails.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: npm packages: name → (pinned version, the executable it installs)
NPM = {
    "@anthropic-ai/claude-code": ("2.1.197", "claude"),
    "@openai/codex": ("0.171.0", "codex"),
    "@google/gemini-cli": ("0.61.0", "gemini"),
    "opencode-ai": ("1.18.33", "opencode"),
    "@modelcontextprotocol/inspector": ("2.12.0", "mcp-inspector"),
}
#: PyPI packages installed in their own venv: name → (pinned version, executable)
PYPI = {"aider-chat": ("0.86.2", "aider")}

#: what each program is called in the manifest (and in programs.py)
NAMES = {
    "@anthropic-ai/claude-code": "claude-code",
    "@openai/codex": "codex-cli",
    "@google/gemini-cli": "gemini-cli",
    "opencode-ai": "opencode",
    "@modelcontextprotocol/inspector": "inspector",
    "aider-chat": "aider",
}

REGISTRY_TIMEOUT = 60
INSTALL_TIMEOUT = 900


def cache_root() -> Path:
    if os.environ.get("MEM_ASSISTANTS_CACHE"):
        return Path(os.environ["MEM_ASSISTANTS_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mem-assistants"


def latest_wanted() -> bool:
    return os.environ.get("MEM_ASSISTANTS_LATEST", "") not in ("", "0")


def manifest_path(latest: bool | None = None) -> Path:
    return cache_root() / ("latest.json" if (latest_wanted() if latest is None else latest) else "pinned.json")


def log(msg: str) -> None:
    print(f"assistants-install: {msg}", flush=True)


class Unreachable(Exception):
    """The registries cannot be reached: the tests skip."""


def machine_npmrc() -> list[str]:
    """``--globalconfig`` naming the machine's own global npmrc: npm looks for it under
    ``--prefix``, so installing into a prefix of ours would otherwise lose what the
    machine configured there (a CA file for a TLS-inspecting proxy, a registry mirror)."""
    try:
        proc = run(["npm", "config", "get", "globalconfig"], REGISTRY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return []
    path = proc.stdout.strip()
    return [f"--globalconfig={path}"] if proc.returncode == 0 and os.path.isfile(path) else []


def run(argv: list[str], timeout: float, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, **kw)  # type: ignore[call-overload,no-any-return]


def ensure_node() -> None:
    if shutil.which("node") and shutil.which("npm"):
        return
    if not shutil.which("apt-get"):
        raise Unreachable("node and npm are missing and there is no apt-get to install them")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    log("node is missing: installing nodejs and npm from Debian's packages")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for argv in (sudo + ["apt-get", "update", "-qq"], sudo + ["apt-get", "install", "-y", "-qq", "nodejs", "npm"]):
        try:
            proc = run(argv, 900, env=env)
        except subprocess.TimeoutExpired as exc:
            raise Unreachable(f"{' '.join(argv)} timed out") from exc
        if proc.returncode != 0:
            raise Unreachable(f"{' '.join(argv)} failed: {first_line(proc.stderr)}")


def first_line(text: str) -> str:
    """The first line that says something (messages are one line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING: Location")]
    return lines[0][:200] if lines else "no answer"


def npm_latest(pkg: str) -> str:
    try:
        proc = run(["npm", "view", "--fetch-retries=1", pkg, "version"], REGISTRY_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise Unreachable(f"the npm registry did not answer for {pkg}") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        raise Unreachable(f"the npm registry did not answer for {pkg}: {first_line(proc.stderr)}")
    return proc.stdout.strip().splitlines()[-1]


def pypi_latest(pkg: str) -> str:
    try:
        proc = run([sys.executable, "-m", "pip", "index", "versions", pkg], REGISTRY_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise Unreachable(f"PyPI did not answer for {pkg}") from exc
    for line in proc.stdout.splitlines():
        if line.startswith(pkg) and "(" in line:
            return line.split("(", 1)[1].split(")", 1)[0]
    raise Unreachable(f"PyPI did not answer for {pkg}: {first_line(proc.stderr)}")


def wanted_versions(latest: bool) -> dict[str, str]:
    if not latest:
        return {pkg: ver for pkg, (ver, _) in {**NPM, **PYPI}.items()}
    versions = {pkg: npm_latest(pkg) for pkg in NPM}
    versions.update({pkg: pypi_latest(pkg) for pkg in PYPI})
    return versions


def version_of(exe: Path) -> str:
    try:
        proc = run([str(exe), "--version"], 60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"? ({exc})"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[-1].strip() if lines else "?"


def check_registries() -> None:
    """Fail fast (as Unreachable) when neither client can reach its registry."""
    npm_latest("@openai/codex")
    pypi_latest("aider-chat")


def install(latest: bool) -> dict[str, object]:
    start = time.monotonic()
    ensure_node()
    if latest:
        versions = wanted_versions(True)
    else:
        versions = wanted_versions(False)
    key = hashlib.sha256(json.dumps(versions, sort_keys=True).encode()).hexdigest()[:12]
    root = cache_root() / f"programs-{key}"
    npm_dir, aider_venv = root / "npm", root / "aider-venv"
    exes = {NAMES[pkg]: npm_dir / "node_modules" / ".bin" / exe for pkg, (_, exe) in NPM.items()}
    exes["aider"] = aider_venv / "bin" / "aider"
    # OpenCode npm-installs @opencode-ai/plugin (its own version) into every config directory it
    # loads (~/.config/opencode, a project's .opencode/) at each start; a copy of this one is
    # put there by programs.py beforehand, so that a turn needs no network
    oc_plugin = root / "opencode-plugin"
    done_marker = root / "installed.json"

    if done_marker.is_file() and all(p.exists() for p in exes.values()) and (oc_plugin / "node_modules").is_dir():
        log(f"cached in {root}")
    else:
        check_registries()
        root.mkdir(parents=True, exist_ok=True)
        npmrc = machine_npmrc()
        npm_argv = ["npm", "install", "--prefix", str(npm_dir), *npmrc, "--no-audit", "--no-fund"]
        npm_argv.append("--loglevel=error")
        npm_argv += [f"{pkg}@{versions[pkg]}" for pkg in NPM]
        # the two installs run side by side: npm mostly waits on the network, pip on it and the disk
        log("installing " + ", ".join(f"{pkg}@{versions[pkg]}" for pkg in NPM) + f" into {npm_dir}")
        npm = subprocess.Popen(npm_argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        pip_spec = [f"{pkg}=={versions[pkg]}" for pkg in PYPI]
        log("installing " + ", ".join(pip_spec) + f" into {aider_venv}")
        pip_log = ""
        pip_rc = 0
        t0 = time.monotonic()
        if not (aider_venv / "bin" / "python").exists():
            venv = run([sys.executable, "-m", "venv", str(aider_venv)], 300)
            if venv.returncode != 0:
                npm.kill()
                raise RuntimeError(f"python -m venv failed: {venv.stderr.strip()}")
        try:
            pip = run(
                [
                    str(aider_venv / "bin" / "python"),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    *pip_spec,
                ],
                INSTALL_TIMEOUT,
            )
            pip_rc, pip_log = pip.returncode, pip.stdout + pip.stderr
        except subprocess.TimeoutExpired:
            pip_rc, pip_log = 1, "pip install timed out"
        log(f"pip finished in {time.monotonic() - t0:.0f} s (exit {pip_rc})")
        try:
            npm_out, _ = npm.communicate(timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            npm.kill()
            npm_out = "npm install timed out"
        if npm.returncode == 0:
            oc = run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(oc_plugin),
                    *npmrc,
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--save-prefix=",
                ]
                + [f"@opencode-ai/plugin@{versions['opencode-ai']}"],
                INSTALL_TIMEOUT,
            )
            if oc.returncode != 0:
                npm_out += oc.stdout + oc.stderr
                npm.returncode = oc.returncode
        log(f"npm finished in {time.monotonic() - start:.0f} s since the start (exit {npm.returncode})")
        if npm.returncode != 0 or pip_rc != 0:
            detail = (npm_out if npm.returncode != 0 else "") + (pip_log if pip_rc != 0 else "")
            raise RuntimeError(f"install failed:\n{detail.strip()[-3000:]}")
        done_marker.write_text(json.dumps(versions, indent=2) + "\n")

    programs = {}
    for pkg, ver in versions.items():
        name = NAMES[pkg]
        exe = exes[name]
        if not exe.exists():
            raise RuntimeError(f"{pkg}@{ver} installed no {exe}")
        programs[name] = {"package": pkg, "version": ver, "path": str(exe), "reports": version_of(exe)}
    elapsed = time.monotonic() - start
    for name, info in programs.items():
        log(f"{name:12} {info['package']}@{info['version']}  ({info['reports']})")
    log(f"ready in {elapsed:.0f} s")
    return {
        "ok": True,
        "latest": latest,
        "root": str(root),
        "node": shutil.which("node"),
        "opencode_plugin_dir": str(oc_plugin),
        "programs": programs,
    }


def main() -> int:
    latest = latest_wanted()
    target = manifest_path(latest)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = open(cache_root() / ".install.lock", "w")  # noqa: SIM115 - held until the process ends
    fcntl.flock(lock, fcntl.LOCK_EX)  # two worktrees installing at once wait for each other
    try:
        manifest = install(latest)
    except Unreachable as exc:
        manifest = {"ok": False, "latest": latest, "reason": f"the assistants' programs cannot be installed: {exc}"}
        log(f"{manifest['reason']}; the assistants' end-to-end tests will be skipped")
    except Exception as exc:  # a real failure: CI must fail
        target.unlink(missing_ok=True)
        log(f"error: {exc}")
        return 1
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    tmp.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
