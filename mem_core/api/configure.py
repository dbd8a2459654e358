"""The API behind ``mem init``, ``mem config`` and ``mem config set``: the
only code that writes a config file (the five actions only read them, see
:mod:`mem_core.settings`)."""

from __future__ import annotations

import os
import re
from typing import Any

from mem_core.errors import MemError
from mem_core.files.layout import AGENTS_MEMORY_DIR
from mem_core.settings import (
    PROJECT_CONFIG,
    SPEC_BY_NAME,
    SPECS,
    Settings,
    Spec,
    check_config_text,
    load_settings,
    parse_config_value,
    parse_key,
    user_config_path,
)

__all__ = [
    "InitResult",
    "ConfigReport",
    "ConfigSetResult",
    "ConfigUnsetResult",
    "init_project",
    "config_report",
    "set_config",
    "unset_config",
    "setting_problems",
    "template",
]

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


def best_ranking() -> str:
    """The best ranking installed here, which ``mem init`` makes a new
    project's ``recall_ranking``: ``hybrid`` when the ``embeddings`` extra
    is installed, else ``bm25`` (docs/recall.md: both beat ``lexical``, the
    default of a project without the setting, on every measured set)."""
    from mem_core.embeddings import missing

    return "bm25" if missing() else "hybrid"


def template(ranking: str | None = None) -> str:
    """The commented ``mem.toml`` that ``mem init`` writes: every project
    setting with its default, commented out; ``ranking``: the
    ``recall_ranking`` line set to it."""
    lines = [
        "# mem: this project's settings. Committed and shared by the team, so no secrets:",
        "# a setting that needs one names the environment variable holding it.",
        "# Later layers win: these defaults, this file, the user config file, MEM_* variables.",
        "# `mem config` shows the effective settings; `mem config set KEY VALUE` edits this file.",
    ]
    for spec in SPECS:
        if not spec.in_project:
            continue
        if spec.name == "recall_ranking" and ranking is not None:
            # set, not commented: mem init chose the best ranking installed
            lines += ["", f"# {spec.help} (${spec.env}); mem init chose it (docs/recall.md)"]
            lines.append(f"recall_ranking = {toml_value(ranking)}")
            continue
        lines += ["", f"# {spec.help} (${spec.env})", _template_line(spec)]
    return "\n".join(lines) + "\n"


def _template_line(spec: Spec) -> str:
    """The template's commented default line of ``spec``."""
    example = toml_value(spec.default) if spec.default is not None else '"PATH"'
    return f"# {spec.name} = {example}"


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

    return safe_file(project, PROJECT_CONFIG)  # no symbolic links on the way (docs/contract.md §8)


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
    from mem_core.api.adapters import install_adapters, list_adapters
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
    if _write_atomically(path, template(best_ranking()), exclusive=True):
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


def _choices(spec: Spec, kernel: Any) -> list[str] | None:
    """The allowed values of ``spec`` (the names its kernel registry holds), if it has choices."""
    if spec.choices is None:
        return None
    if kernel is None:
        from mem_core.kernel import Kernel

        kernel = Kernel()
    return list(getattr(kernel, spec.choices).names())


def _not_a_choice(spec: Spec, value: Any, kernel: Any) -> str | None:
    """Why ``value`` is not one of ``spec``'s choices (``None``: it is, or it has none)."""
    choices = _choices(spec, kernel)
    if choices is None or value in choices:
        return None
    return f"{spec.name} must be one of {', '.join(choices)} (got {value!r})"


def setting_problems(settings: Settings, kernel: Any) -> list[str]:
    """The effective settings that make commands fail (a ranking or store
    no plugin registers), one line each with where it is set and the fix."""
    problems = []
    for spec in SPECS:
        value = settings.get(spec.name)
        why = _not_a_choice(spec, value, kernel)
        if why is None:
            continue
        layer = settings.layer(spec.name)
        if layer == "env":
            fix = f"unset {spec.env}"
        else:
            fix = f"`mem config unset {spec.name}{' --user' if layer == 'user' else ''}`"
        problems.append(f"{why}, from {settings.source(spec.name)}: commands that use it fail; {fix}")
    return problems


class ConfigSetResult:
    """The setting ``mem config set`` wrote, and where."""

    def __init__(self, key: str, value: Any, file: str) -> None:
        self.key = key
        self.value = value
        self.file = file

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "file": self.file}


class ConfigUnsetResult:
    """The setting ``mem config unset`` took out, and where; ``changed``:
    false when it was not set there."""

    def __init__(self, key: str, file: str, changed: bool) -> None:
        self.key = key
        self.file = file
        self.changed = changed

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "file": self.file, "changed": self.changed}


def _config_text(path: str) -> str:
    from mem_core.files.io import NOT_REGULAR, open_regular

    try:
        with os.fdopen(open_regular(path), encoding="utf-8") as fh:  # a FIFO never blocks
            return fh.read()
    except FileNotFoundError:
        return ""
    except MemError as exc:
        raise MemError(f"{path}: not a file" if exc.message == NOT_REGULAR else f"{path}: {exc.message}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _document(text: str, path: str) -> Any:
    import tomlkit  # only these commands need a TOML writer that keeps comments
    from tomlkit.exceptions import ParseError

    try:
        return tomlkit.parse(text)
    except ParseError as exc:
        raise MemError(f"{path}: invalid TOML: {' '.join(str(exc).split())}") from None


def _commented(key: str) -> re.Pattern[str]:
    """The template's commented default line of ``key`` (``# key = …``)."""
    return re.compile(rf"^# {re.escape(key)} = .*$", re.MULTILINE)


def _config_path(user: bool, directory: str | None) -> str:
    from mem_core.project import find_project

    return user_config_path() if user else _project_file(find_project(directory))


def _save(path: str, text: str, user: bool) -> None:
    check_config_text(text, path, user=user)  # the whole file, as the next command will read it
    _mkdirs(os.path.dirname(path))
    _write_atomically(path, text, exclusive=False)


def set_config(
    key: str, value: str, *, user: bool = False, directory: str | None = None, kernel: Any = None
) -> ConfigSetResult:
    """Set ``key`` to ``value`` in the project config file (``user``: the
    user config file), keeping the rest of the file, comments included: in
    place of its commented default line (``mem init``'s template) when the
    key is not set yet. The value is checked as the file's values are, and
    against the setting's choices (the names ``kernel``'s registry holds);
    the file is replaced atomically, and only if the whole new file is valid."""
    parsed = parse_config_value(key, value, user=user)
    why = _not_a_choice(SPEC_BY_NAME[key], parsed, kernel)
    if why is not None:
        raise MemError(why)
    path = _config_path(user, directory)
    text = _config_text(path)
    document = _document(text, path)
    commented = _commented(key)
    if key not in document and commented.search(text):
        new_text = commented.sub(lambda _match: f"{key} = {toml_value(parsed)}", text, count=1)
    else:
        import tomlkit

        document[key] = parsed
        new_text = tomlkit.dumps(document)
    _save(path, new_text, user)
    return ConfigSetResult(key, parsed, path)


def unset_config(key: str, *, user: bool = False, directory: str | None = None) -> ConfigUnsetResult:
    """Take ``key`` out of the project config file (``user``: the user
    config file), so the next layer's value applies; the template's
    commented default line comes back under its help line. A key that is
    not set changes nothing."""
    parse_key(key, user=user)
    path = _config_path(user, directory)
    text = _config_text(path)
    document = _document(text, path)
    if key not in document:
        return ConfigUnsetResult(key, path, changed=False)
    import tomlkit

    del document[key]
    new_text = tomlkit.dumps(document)
    spec = SPEC_BY_NAME[key]
    help_line = f"# {spec.help} (${spec.env})\n"
    at = new_text.find(help_line)
    if at >= 0 and not _commented(key).search(new_text):
        at += len(help_line)
        new_text = new_text[:at] + _template_line(spec) + "\n" + new_text[at:]
    _save(path, new_text, user)
    return ConfigUnsetResult(key, path, changed=True)
