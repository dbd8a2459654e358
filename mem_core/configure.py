"""The API behind ``mem init``, ``mem config`` and ``mem config set``: the
only code that writes a config file (the five actions only read them, see
:mod:`mem_core.settings`)."""

from __future__ import annotations

import os
from typing import Any

from mem_core.errors import MemError
from mem_core.files.layout import AGENTS_MEMORY_DIR
from mem_core.settings import (
    PROJECT_CONFIG,
    SPECS,
    Settings,
    check_config_text,
    load_settings,
    parse_config_value,
    user_config_path,
)

__all__ = ["InitResult", "ConfigReport", "ConfigSetResult", "init_project", "config_report", "set_config", "template"]

MEMORY_DIR = os.path.dirname(PROJECT_CONFIG)


def toml_value(value: Any) -> str:
    """``value`` as TOML writes it (the settings' kinds only)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def template() -> str:
    """The commented ``mem.toml`` that ``mem init`` writes: every project
    setting with its default, commented out."""
    lines = [
        "# mem: this project's settings. Committed and shared by the team, so no secrets:",
        "# a setting that needs one names the environment variable holding it.",
        "# Later layers win: these defaults, this file, the user config file, MEM_* variables.",
        "# `mem config` shows the effective settings; `mem config set KEY VALUE` edits this file.",
    ]
    for spec in SPECS:
        if not spec.in_project:
            continue
        example = toml_value(spec.default) if spec.default is not None else '"PATH"'
        lines += ["", f"# {spec.help} (${spec.env})", f"# {spec.name} = {example}"]
    return "\n".join(lines) + "\n"


def _write_atomically(path: str, text: str, *, exclusive: bool) -> bool:
    """Write ``text`` to ``path`` through a fsynced temporary file; with
    ``exclusive``, only if ``path`` does not exist (returns whether it wrote)."""
    directory = os.path.dirname(path)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(temporary, path)
            except FileExistsError:
                return False
        else:
            os.replace(temporary, path)
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return True
    except OSError as exc:
        raise MemError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _project_file(project: str) -> str:
    from mem_core.files import safe_file

    return safe_file(project, PROJECT_CONFIG)  # no symbolic links on the way (mem-cli.md §8)


def _mkdirs(path: str) -> bool:
    if os.path.isdir(path):
        return False
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise MemError(f"cannot create {path}: {exc.strerror or exc}") from None
    return True


# -- mem init ---------------------------------------------------------------

#: the notes directory ``mem init`` creates, and its three files with one
#: example section each (recall reads ``### `` sections only)
NOTES_DIR = AGENTS_MEMORY_DIR
NOTES: dict[str, str] = {
    "decisions.md": """\
# Decisions

What this project decided, and why. `mem recall` finds each `### ` section
(a `## ` heading is not a section of its own); one decision per section.
Replace the example with your first decision.

### Example: one way to configure the service
- **Decision**: settings come from environment variables, read once at start-up.
- **Why**: the same build runs in every environment; a missing setting fails at once.
""",
    "lessons.md": """\
# Lessons

What the team learned the hard way, one `### ` section each; `mem observe`
can bind a lesson to verified work (its heading must appear exactly once).
Replace the example with your first lesson.

### Example: check the caller before changing a default
Changing a default silently changed every caller that relied on it: search for
the callers first and say in the change what they now get.
""",
    "patterns.md": """\
# Patterns

Ways of working worth repeating, one `### ` section each. `mem reinforce
--pattern "<heading>"` scores a pattern from reward signals; a promotion is
only ever proposed (`mem promotions`, `mem scores`). Replace the example.

### Example: a failing test first
Reproduce a reported bug with a failing test before fixing it, and keep the test.
""",
}


class InitResult:
    """What ``mem init`` did: the project, its config file, what it created
    (project-relative paths, directories ending in ``/``), the assistant
    adapters detected here, and what ``--adapters`` installed."""

    def __init__(
        self,
        project: str,
        config: str,
        created: list[str],
        detected: list[str] | None = None,
        installed: list[dict[str, str]] | None = None,
        adapters: list[str] | None = None,
        git: list[dict[str, str]] | None = None,
        done: list[str] | None = None,
    ) -> None:
        self.project = project
        self.config = config
        self.created = created
        #: the adapters whose assistant seems to be used here (not installed)
        self.detected = detected or []
        #: the adapters ``--adapters`` named, and the files their install changed
        self.adapters = adapters or []
        self.installed = installed or []
        #: ``.gitignore`` and ``.gitattributes``, when they lacked mem's lines
        self.git = git or []
        #: what the installed adapters did besides their files (``aider: wrote …``)
        self.done = done or []

    @property
    def changed(self) -> bool:
        return bool(self.created or self.installed or self.git)

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "config": self.config,
            "created": list(self.created),
            "adapters": {
                "detected": list(self.detected),
                "installed": list(self.adapters),
                "files": [dict(row) for row in self.installed],
            },
            "git": [dict(row) for row in self.git],
            "done": list(self.done),
        }

    to_json = to_dict


def _init_root(directory: str | None) -> str:
    """``-d``, else the discovered project, else the git root around the
    working directory (a new project is its repository), else the working
    directory."""
    from mem_core.project import discover, find_project

    if directory is not None:
        return find_project(directory)
    root, git_root = discover()
    return root or git_root or os.path.abspath(".")


def _adapter_names(value: str | list[str] | tuple[str, ...] | None) -> list[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [item.strip() for item in items if item.strip()]
    if not names:
        raise MemError("--adapters takes NAME[,NAME…]: see `mem adapters list`")
    return list(dict.fromkeys(names))


def init_project(
    directory: str | None = None,
    *,
    adapters: str | list[str] | tuple[str, ...] | None = None,
    kernel: Any = None,
) -> InitResult:
    """Create what a new project needs, each only if missing (idempotent,
    never overwriting a file): ``.bmad/memory/``, a commented ``mem.toml``
    with the defaults, and ``.agents/memory/{decisions,lessons,patterns}.md``
    with one example section each. Lists the assistant adapters detected here;
    ``adapters`` (names, or ``"a,b"``) installs those (``mem adapters install``).
    Adds to ``.gitignore`` and ``.gitattributes`` what they lack
    (:mod:`mem_core.files.gitfiles`).
    An unknown adapter name, or an invalid existing config file, fails before
    anything is written."""
    from mem_core.adapters.api import install_adapters, list_adapters
    from mem_core.files.gitfiles import ensure_git_files

    project = _init_root(directory)
    if not os.path.isdir(project):
        raise MemError(f"project directory not found: {project}")
    path = _project_file(project)
    load_settings(project)  # an existing config file must be valid
    names = _adapter_names(adapters)
    report = list_adapters(project, kernel=kernel)
    known = [row["name"] for row in report.rows]
    for name in names or ():
        if name not in known:
            raise MemError(f"unknown adapter '{name}' (expected {' | '.join(known)})")
    notes = {name: safe_file_in(project, f"{NOTES_DIR}/{name}") for name in NOTES}
    created = []
    if _mkdirs(os.path.dirname(path)):
        created.append(MEMORY_DIR + "/")
    if _write_atomically(path, template(), exclusive=True):
        created.append(PROJECT_CONFIG)
    if _mkdirs(os.path.join(project, NOTES_DIR)):
        created.append(NOTES_DIR + "/")
    for name, note in notes.items():
        if _write_atomically(note, NOTES[name], exclusive=True):
            created.append(f"{NOTES_DIR}/{name}")
    git = ensure_git_files(project)
    installed: list[dict[str, str]] = []
    done: list[str] = []
    if names:
        change = install_adapters(project, names, kernel=kernel)
        installed = change.files
        done = [f"{row['name']}: {line}" for row in change.adapters for line in row.get("done", [])]
    detected = [row["name"] for row in report.rows if row["detected"] and row["installed"] != "yes"]
    detected = [name for name in detected if name not in (names or ())]
    return InitResult(project, path, created, detected, installed, names or [], git, done)


def safe_file_in(project: str, relative: str) -> str:
    """``relative`` inside ``project``, with no symbolic link on the way."""
    from mem_core.files import safe_file

    return safe_file(project, relative)


# -- mem config -------------------------------------------------------------


class ConfigReport:
    """Every effective setting with its value and where it came from."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def rows(self) -> list[tuple[str, Any, str, str]]:
        """``(name, value, layer, source)``; an unset ``user_dir`` shows the
        directory used (platformdirs')."""
        rows = []
        for name, value, layer, source in self.settings.items():
            if name == "user_dir" and value is None:
                value = self.settings.user_store_dir()
            rows.append((name, list(value) if isinstance(value, tuple) else value, layer, source))
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.settings.project,
            "project_config": self.settings.project_config,
            "user_config": self.settings.user_config,
            "settings": {
                name: {"value": value, "from": layer, "source": source} for name, value, layer, source in self.rows()
            },
        }


def config_report(directory: str | None = None) -> ConfigReport:
    """The effective settings of the project of ``directory``."""
    return ConfigReport(load_settings(directory))


class ConfigSetResult:
    """The setting ``mem config set`` wrote, and where."""

    def __init__(self, key: str, value: Any, file: str) -> None:
        self.key = key
        self.value = value
        self.file = file

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "file": self.file}


def set_config(key: str, value: str, *, user: bool = False, directory: str | None = None) -> ConfigSetResult:
    """Set ``key`` to ``value`` in the project config file (``user``: the
    user config file), keeping the rest of the file, comments included. The
    value is checked as the file's values are; the file is replaced
    atomically, and only if the whole new file is valid."""
    from mem_core.project import find_project

    parsed = parse_config_value(key, value, user=user)
    path = user_config_path() if user else _project_file(find_project(directory))
    from mem_core.files.io import NOT_REGULAR, open_regular

    try:
        with os.fdopen(open_regular(path), encoding="utf-8") as fh:  # a FIFO never blocks
            text = fh.read()
    except FileNotFoundError:
        text = ""
    except MemError as exc:
        raise MemError(f"{path}: not a file" if exc.message == NOT_REGULAR else f"{path}: {exc.message}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    import tomlkit  # only this command needs a TOML writer that keeps comments
    from tomlkit.exceptions import ParseError

    try:
        document = tomlkit.parse(text)
    except ParseError as exc:
        raise MemError(f"{path}: invalid TOML: {' '.join(str(exc).split())}") from None
    document[key] = parsed
    new_text = tomlkit.dumps(document)
    check_config_text(new_text, path, user=user)  # the whole file, as the next command will read it
    _mkdirs(os.path.dirname(path))
    _write_atomically(path, new_text, exclusive=False)
    return ConfigSetResult(key, parsed, path)
