"""Every setting of ``mem``, read once into one immutable :class:`Settings`.

Layers, later ones winning (architecture.md, "Discovery and settings"):

1. the defaults (:data:`SPECS`);
2. the project's config file, ``.bmad/memory/mem.toml`` — committed, shared
   by the team, so it holds no secrets: a setting that names a secret names
   the environment variable holding it (``postgres_dsn_env``), and a value
   that looks like a secret (a connection string with a password) is refused;
3. the user's config file, ``config.toml`` in platformdirs' user config
   directory for ``mem`` (``~/.config/mem/config.toml`` on Linux), or the file
   ``$MEM_USER_CONFIG`` names;
4. the ``MEM_*`` environment variables.

Each value remembers where it came from (``mem config`` shows it). This is
the one module that reads ``MEM_*`` variables; ``MEM_NOW`` (the pinned clock)
stays with :mod:`mem_core.clock`, which every command asks for the time.

A config file is parsed only when it exists (``tomllib``, or ``tomli`` before
Python 3.11), and not at all when it holds only comments (``mem init``'s
template), so that start-up stays what it was. A malformed file, a value of
the wrong type and an unknown key are one-line errors naming the file.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mem_core.errors import MemError
from mem_core.project import find_project

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")

__all__ = [
    "PROJECT_CONFIG",
    "USER_CONFIG_ENV",
    "SPECS",
    "SPEC_BY_NAME",
    "Spec",
    "Kind",
    "parse_key",
    "parse_config_value",
    "Settings",
    "load_settings",
    "user_config_path",
    "looks_like_secret",
    "default_value",
    "debug_enabled",
    "check_config_text",
]

APP_NAME = "mem"
#: the project's config file, relative to the project
PROJECT_CONFIG = ".bmad/memory/mem.toml"
USER_CONFIG_FILE = "config.toml"
#: names another user config file (tests, several identities)
USER_CONFIG_ENV = "MEM_USER_CONFIG"
CONFIG_MAX_BYTES = 256 * 1024

DEFAULT = "default"
PROJECT = "project"
USER = "user"
ENV = "env"

# patterns, compiled on first use (by ``re``'s cache): a command without a
# config file never needs them
_ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
#: ``scheme://user:password@`` or a ``password=`` keyword of a libpq string
_SECRET_VALUE = r"(?i)://[^/@\s]*:[^/@\s]+@|(?:^|[\s;])(?:password|passwd|pwd)\s*="
_SECRET_KEY = r"(?i)dsn|password|passwd|secret|token|credential"


class Kind:
    """How the settings of one kind are read: from a config file's TOML
    value, from a ``MEM_*`` variable, and from ``mem config set``'s text; and
    what they allow, for the one-line error. Subclasses override what differs."""

    __slots__ = ()

    #: what a value must be, as an error says it (``… must be <allowed>``)
    allowed = "a non-empty string"

    def check(self, value: Any, base: str) -> Any:
        """A config file's value, checked (``None``: refused); relative paths
        are relative to ``base``."""
        return value if isinstance(value, str) and value.strip() else None

    def from_env(self, raw: str) -> Any:
        """A variable's value (never empty); ``None``: refused."""
        return raw

    def from_text(self, text: str) -> Any:
        """``mem config set``'s text as the TOML value to write (checked by :meth:`check` after)."""
        return text


class _Bool(Kind):
    __slots__ = ()
    allowed = "true or false"

    def check(self, value: Any, base: str) -> Any:
        return value if isinstance(value, bool) else None

    def from_env(self, raw: str) -> Any:
        return raw != "0"

    def from_text(self, text: str) -> Any:
        lowered = text.strip().lower()
        return lowered == "true" if lowered in ("true", "false") else text


class _Debug(_Bool):
    __slots__ = ()

    def from_env(self, raw: str) -> Any:
        return raw == "1"


class _Int(Kind):
    __slots__ = ()
    allowed = "a whole number >= 0"

    def check(self, value: Any, base: str) -> Any:
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None

    def from_env(self, raw: str) -> Any:
        return int(raw.strip()) if raw.strip().isdigit() and raw.strip().isascii() else None

    def from_text(self, text: str) -> Any:
        number = self.from_env(text)
        return text if number is None else number


class _Number(Kind):
    __slots__ = ()
    allowed = "a number >= 0"

    def check(self, value: Any, base: str) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            return None
        return float(value)

    def from_env(self, raw: str) -> Any:
        return _number(raw)

    def from_text(self, text: str) -> Any:
        number = _number(text)
        return text if number is None else number


class _Names(Kind):
    """A list of names; ``paths``: an item ending in ``.py`` is a file's path."""

    __slots__ = ("paths",)
    allowed = "a list of non-empty strings"

    def __init__(self, paths: bool = False) -> None:
        self.paths = paths

    def check(self, value: Any, base: str) -> Any:
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
            return None
        items = [item.strip() for item in value]
        return tuple(_path(item, base) if self.paths and item.endswith(".py") else item for item in items)

    def from_env(self, raw: str) -> Any:
        items = [part.strip() for part in raw.split(",") if part.strip()]
        return tuple(os.path.abspath(item) if self.paths and item.endswith(".py") else item for item in items)

    def from_text(self, text: str) -> Any:
        return [part.strip() for part in text.split(",") if part.strip()]


class _EnvName(Kind):
    __slots__ = ()
    allowed = "the name of an environment variable, like MEM_POSTGRES_DSN"

    def check(self, value: Any, base: str) -> Any:
        return value if isinstance(value, str) and re.fullmatch(_ENV_NAME, value) else None

    def from_env(self, raw: str) -> Any:
        return self.check(raw, "")


class _Path(Kind):
    __slots__ = ()

    def check(self, value: Any, base: str) -> Any:
        return _path(value, base) if super().check(value, base) is not None else None

    def from_env(self, raw: str) -> Any:
        return os.path.abspath(os.path.expanduser(raw))


class _Url(Kind):
    """An ``http(s)://`` URL without credentials (they belong in the
    environment: the agent key's variable is named by ``server_key_env``)."""

    __slots__ = ()
    allowed = "an http:// or https:// URL without user or password, like https://mem.example.com"

    def check(self, value: Any, base: str) -> Any:
        if not isinstance(value, str) or not re.fullmatch(r"https?://[^\s/@?#]+(?:/[^\s?#@]*)?", value):
            return None
        return value.rstrip("/") if len(value) <= 2048 else None

    def from_env(self, raw: str) -> Any:
        return self.check(raw.strip(), "")


TEXT, BOOL, DEBUG, INT, NUMBER, ENV_NAME, PATH = Kind(), _Bool(), _Debug(), _Int(), _Number(), _EnvName(), _Path()
URL = _Url()
NAMES, PLUGINS = _Names(), _Names(paths=True)


class Spec:
    """One setting, declared once: its name (the config key), :class:`Kind`,
    default, environment variable, whether the project config may set it,
    its help line, and ``choices``: the kernel registry whose names are its
    allowed values (``rankers``, ``stores``), checked where a kernel is at
    hand (``mem config set``, ``mem doctor``)."""

    __slots__ = ("name", "kind", "default", "env", "in_project", "help", "choices")

    def __init__(
        self,
        name: str,
        kind: Kind,
        default: Any,
        env: str,
        in_project: bool,
        help: str,
        choices: str | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.env = env
        self.in_project = in_project
        self.help = help
        self.choices = choices


SPECS: tuple[Spec, ...] = (
    Spec(
        "store",
        TEXT,
        "sqlite",
        "MEM_STORE",
        True,
        "structured-memory backend (a registered store: sqlite, postgres …)",
        choices="stores",
    ),
    Spec(
        "postgres_dsn_env",
        ENV_NAME,
        "MEM_POSTGRES_DSN",
        "MEM_POSTGRES_DSN_ENV",
        True,
        "name of the environment variable that holds the PostgreSQL DSN (never the DSN)",
    ),
    Spec(
        "server_url",
        URL,
        None,
        "MEM_SERVER_URL",
        True,
        "the team server of the server store (mem serve), e.g. https://mem.example.com",
    ),
    Spec(
        "server_key_env",
        ENV_NAME,
        "MEM_SERVER_KEY",
        "MEM_SERVER_KEY_ENV",
        True,
        "name of the environment variable that holds the server store's agent key (never the key)",
    ),
    Spec("plugins", PLUGINS, (), "MEM_PLUGINS", True, "unpackaged plugins: module names or paths of .py files"),
    Spec("disable_plugins", NAMES, (), "MEM_DISABLE_PLUGINS", True, "plugins blocked by name before import"),
    Spec("strict_plugins", BOOL, False, "MEM_STRICT_PLUGINS", True, "a plugin that fails to load is fatal"),
    Spec("portfolio", PATH, None, "MEM_PORTFOLIO", True, "the portfolio directory (recall --scope portfolio)"),
    Spec("default_mind", TEXT, "default", "MEM_DEFAULT_MIND", True, "the mind structured memories use by default"),
    Spec("context_budget", INT, 1500, "MEM_CONTEXT_BUDGET", True, "token budget of a context brief"),
    Spec(
        "prompt_budget",
        INT,
        600,
        "MEM_PROMPT_BUDGET",
        True,
        "token budget of what the prompt-submit hook adds to a prompt",
    ),
    Spec(
        "hook_relevance",
        NUMBER,
        0.12,
        "MEM_HOOK_RELEVANCE",
        True,
        "recall score a result needs for the prompt-submit hook to show it",
    ),
    Spec("hook_timeout", NUMBER, 1.0, "MEM_HOOK_TIMEOUT", True, "seconds a hook may take before it gives up"),
    Spec("journal_sessions", BOOL, True, "MEM_JOURNAL_SESSIONS", True, "the session-end hook journals the session"),
    Spec(
        "recall_ranking",
        TEXT,
        "lexical",
        "MEM_RECALL_RANKING",
        True,
        "the ranking mem recall uses without --ranking (lexical, bm25, hybrid, evidence or a plugin's ranker)",
        choices="rankers",
    ),
    Spec(
        "recall_hybrid_weight",
        NUMBER,
        0.4,
        "MEM_RECALL_HYBRID_WEIGHT",
        True,
        "hybrid ranking: the share of bm25 in the fused score, 0 to 1 (the rest is the embeddings' similarity)",
    ),
    Spec(
        "recall_trust_weight",
        NUMBER,
        0.1,
        "MEM_RECALL_TRUST_WEIGHT",
        True,
        "hybrid ranking: a verified memory or a note with a current accepted receipt scores x(1 + this)",
    ),
    Spec(
        "recall_model",
        TEXT,
        "minilm-l6-int8",
        "MEM_RECALL_MODEL",
        True,
        "hybrid ranking's embedding model: minilm-l6-int8 (shipped by the embeddings extra), "
        "a directory with model.onnx and tokenizer.json, or a Hugging Face repository id",
    ),
    Spec("user_dir", PATH, None, "MEM_USER_DIR", False, "the user-level memory store's directory"),
    Spec("debug", DEBUG, False, "MEM_DEBUG", False, "print tracebacks of unexpected errors"),
    Spec(
        "recall_index",
        BOOL,
        True,
        "MEM_RECALL_INDEX",
        True,
        "recall reads the journal and notes through the on-disk index in the user cache (same answers, faster)",
    ),
    Spec("cache_dir", PATH, None, "MEM_CACHE_DIR", False, "mem's cache directory (default: the user cache dir)"),
)
SPEC_BY_NAME = {spec.name: spec for spec in SPECS}
_PROJECT_KEYS = tuple(spec.name for spec in SPECS if spec.in_project)
_USER_KEYS = tuple(spec.name for spec in SPECS)


def default_value(name: str) -> Any:
    """The default of the setting ``name``."""
    return SPEC_BY_NAME[name].default


def looks_like_secret(value: str) -> bool:
    """Whether ``value`` looks like a secret: a URL with a password or a libpq
    string with a ``password=`` keyword."""
    return bool(re.search(_SECRET_VALUE, value))


# -- where the user config file is ----------------------------------------


def user_config_path(environ: Mapping[str, str] | None = None) -> str:
    """The user config file: ``$MEM_USER_CONFIG``, else ``config.toml`` in
    platformdirs' user config directory for ``mem``."""
    env = os.environ if environ is None else environ
    override = env.get(USER_CONFIG_ENV)
    if override:
        return os.path.abspath(os.path.expanduser(override))
    from mem_core.files.usercache import user_config_dir

    return os.path.join(user_config_dir(), USER_CONFIG_FILE)


# -- parsing ----------------------------------------------------------------


def _read_toml(path: str) -> dict[str, Any] | None:
    """The document at ``path``; ``None`` when there is no file."""
    from mem_core.files.io import NOT_REGULAR, open_regular

    try:
        with os.fdopen(open_regular(path), "rb") as fh:  # a FIFO never blocks
            data = fh.read(CONFIG_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except MemError as exc:
        if exc.message == NOT_REGULAR:
            raise MemError(f"{path}: not a file") from None
        raise MemError(f"{path}: cannot read: {exc.message}") from None
    except OSError as exc:
        raise MemError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > CONFIG_MAX_BYTES:
        raise MemError(f"{path}: larger than {CONFIG_MAX_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemError(f"{path}: not UTF-8 text") from None
    return _parse_toml(text, path)


def _parse_toml(text: str, path: str) -> dict[str, Any]:
    if all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        return {}  # only comments: nothing to parse (and no parser to import)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemError(f"{path}: invalid TOML: {' '.join(str(exc).split())}") from None


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    return type(value).__name__ if isinstance(value, (dict, list)) else repr(value)


def _from_file(spec: Spec, value: Any, base: str, where: str) -> Any:
    """A config file's value for ``spec``, checked; relative paths are
    relative to ``base`` (the project, or the user config's directory)."""
    strings = value if isinstance(value, list) else [value]
    for item in strings:
        if isinstance(item, str) and looks_like_secret(item):
            raise MemError(
                f"{where}: {spec.name} looks like a secret (a connection string with a password); config files "
                "hold no secrets: keep it in an environment variable and name that variable in postgres_dsn_env"
            )
    checked = spec.kind.check(value, base)
    if checked is None:
        raise MemError(f"{where}: {spec.name} must be {spec.kind.allowed} (got {_shown(value)})")
    return checked


def _path(value: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, os.path.expanduser(value)))


def _from_env(spec: Spec, raw: str) -> Any:
    """An environment variable's value for ``spec`` (never empty)."""
    value = spec.kind.from_env(raw)
    if value is None:
        raise MemError(f"{spec.env} must be {spec.kind.allowed} (got {_shown(raw)})")
    return value


def _number(text: str) -> float | None:
    """A decimal number >= 0 (``1``, ``0.25``, ``.5``), else ``None``."""
    if not re.fullmatch(r"\s*(?:\d+(?:\.\d*)?|\.\d+)\s*", text):
        return None
    return float(text)


def _file_layer(path: str, keys: tuple[str, ...], base: str) -> dict[str, Any]:
    return _document_layer(_read_toml(path) or {}, path, keys, base)


def check_config_text(text: str, path: str, *, user: bool) -> None:
    """Refuse (one-line ``MemError`` naming ``path``) a config file text that
    would not load: malformed, an unknown key, a wrong value, a secret."""
    keys = _USER_KEYS if user else _PROJECT_KEYS
    _document_layer(_parse_toml(text, path), path, keys, os.path.dirname(path))


def _document_layer(document: dict[str, Any], path: str, keys: tuple[str, ...], base: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in document.items():
        if key not in keys:
            if re.search(_SECRET_KEY, key):
                raise MemError(
                    f"{path}: {key}: config files hold no secrets; keep it in an environment variable "
                    "(for the PostgreSQL DSN: name the variable in postgres_dsn_env)"
                )
            why = " (a user setting: set it in the user config file)" if key in SPEC_BY_NAME else ""
            raise MemError(f"{path}: unknown key '{key}'{why}; known keys: {', '.join(keys)}")
        values[key] = _from_file(SPEC_BY_NAME[key], value, base, path)
    return values


def _env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for spec in SPECS:
        raw = environ.get(spec.env)
        if raw:
            values[spec.name] = _from_env(spec, raw)
    return values


# -- the settings -----------------------------------------------------------


class _Value(Generic[T]):
    """A setting read as an attribute of :class:`Settings` (``settings.store``):
    its value, through ``convert`` when given; the name is the attribute's."""

    __slots__ = ("name", "convert")

    def __init__(self, convert: Callable[[Any], T] | None = None) -> None:
        self.convert = convert

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, settings: Settings, owner: type | None = None) -> T:
        value = settings._values[self.name]
        return value if self.convert is None else self.convert(value)  # type: ignore[no-any-return]


class Settings:
    """The effective settings of one project: each value and where it came from.

    Immutable; build one with :func:`load_settings` (or
    :meth:`for_project` for another project with the same user and
    environment layers).
    """

    __slots__ = ("project", "project_config", "user_config", "_values", "_layers", "_user", "_env", "_environ")

    project: str
    project_config: str
    user_config: str
    _values: dict[str, Any]
    _layers: dict[str, str]
    _user: dict[str, Any]
    _env: dict[str, Any]
    _environ: Mapping[str, str]

    def __init__(
        self,
        project: str,
        user_config: str,
        project_layer: dict[str, Any],
        user_layer: dict[str, Any],
        env_layer: dict[str, Any],
        environ: Mapping[str, str],
    ) -> None:
        values = {spec.name: spec.default for spec in SPECS}
        layers = dict.fromkeys(values, DEFAULT)
        for layer, found in ((PROJECT, project_layer), (USER, user_layer), (ENV, env_layer)):
            for name, value in found.items():
                values[name] = value
                layers[name] = layer
        setter = object.__setattr__
        setter(self, "project", project)
        setter(self, "project_config", os.path.join(project, PROJECT_CONFIG))
        setter(self, "user_config", user_config)
        setter(self, "_values", values)
        setter(self, "_layers", layers)
        setter(self, "_user", user_layer)
        setter(self, "_env", env_layer)
        setter(self, "_environ", environ)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Settings are immutable")

    def __repr__(self) -> str:
        return f"Settings(project={self.project!r}, {self._values!r})"

    # -- the values --------------------------------------------------------

    def get(self, name: str) -> Any:
        """The value of the setting ``name`` (a key of :data:`SPECS`)."""
        return self._values[name]

    def layer(self, name: str) -> str:
        """Which layer set ``name``: ``default``, ``project``, ``user`` or ``env``."""
        return self._layers[name]

    def source(self, name: str) -> str:
        """Where ``name`` came from: ``default``, a config file's path, or
        the environment variable's name."""
        layer = self._layers[name]
        if layer == PROJECT:
            return self.project_config
        if layer == USER:
            return self.user_config
        if layer == ENV:
            return SPEC_BY_NAME[name].env
        return DEFAULT

    def where(self, name: str) -> str:
        """How a message names the place that sets ``name`` (``set X in …``)."""
        layer = self._layers[name]
        if layer in (ENV, DEFAULT):
            return SPEC_BY_NAME[name].env
        return f"{name} in {self.source(name)}"

    def items(self) -> list[tuple[str, Any, str, str]]:
        """``(name, value, layer, source)`` of every setting, in :data:`SPECS` order."""
        return [(spec.name, self._values[spec.name], self._layers[spec.name], self.source(spec.name)) for spec in SPECS]

    store: _Value[str] = _Value()
    postgres_dsn_env: _Value[str] = _Value()
    server_url: _Value[str | None] = _Value()
    server_key_env: _Value[str] = _Value()
    plugins: _Value[tuple[str, ...]] = _Value()
    disable_plugins: _Value[frozenset[str]] = _Value(frozenset)
    strict_plugins: _Value[bool] = _Value()
    portfolio: _Value[str | None] = _Value()
    default_mind: _Value[str] = _Value()
    context_budget: _Value[int] = _Value()
    prompt_budget: _Value[int] = _Value()
    hook_relevance: _Value[float] = _Value()
    hook_timeout: _Value[float] = _Value()
    journal_sessions: _Value[bool] = _Value()
    user_dir: _Value[str | None] = _Value()
    debug: _Value[bool] = _Value()
    recall_index: _Value[bool] = _Value()
    cache_dir: _Value[str | None] = _Value()

    def postgres_dsn(self) -> str:
        """The PostgreSQL DSN: the value of the variable ``postgres_dsn_env``
        names (read when a store opens; never kept in a config file)."""
        return self._environ.get(self.postgres_dsn_env, "")

    def server_key(self) -> str:
        """The server store's agent key: the value of the variable
        ``server_key_env`` names (never kept in a config file)."""
        return self._environ.get(self.server_key_env, "")

    def user_store_dir(self) -> str:
        """The user-level store's directory: ``user_dir``, else platformdirs'
        user data directory for ``mem`` (e.g. ``~/.local/share/mem``)."""
        if self.user_dir:
            return self.user_dir
        from platformdirs import user_data_dir

        return user_data_dir(APP_NAME, appauthor=False)

    def for_project(self, project: str) -> Settings:
        """These settings for another project: its config file in place of
        this one's, the same user config and environment."""
        if project == self.project:
            return self
        return Settings(project, self.user_config, _project_layer(project), self._user, self._env, self._environ)

    def for_unconfigured_project(self, project: str) -> Settings:
        """These settings for another project known to have no config file
        (nothing is checked: ``mem recall --scope all`` knows it from the
        portfolio index)."""
        return Settings(project, self.user_config, {}, self._user, self._env, self._environ)


def _project_layer(project: str) -> dict[str, Any]:
    path = os.path.join(project, PROJECT_CONFIG)
    if not os.path.exists(path) and not os.path.islink(path):
        return {}
    from mem_core.files import safe_file

    try:
        safe_file(project, PROJECT_CONFIG)  # no symbolic links (docs/contract.md §8)
    except MemError as exc:
        raise MemError(f"{path}: {exc.message}") from None
    return _file_layer(path, _PROJECT_KEYS, project)


def load_settings(directory: str | None = None, *, environ: Mapping[str, str] | None = None) -> Settings:
    """Read every setting for the project of ``directory`` (``-d``; ``None``:
    the discovered project, see :mod:`mem_core.project`)."""
    env = os.environ if environ is None else environ
    project = find_project(directory)
    user_config = user_config_path(env)
    user_layer = _file_layer(user_config, _USER_KEYS, os.path.dirname(user_config))
    return Settings(project, user_config, _project_layer(project), user_layer, _env_layer(env), env)


def debug_enabled() -> bool:
    """Whether tracebacks of unexpected errors are shown (the ``debug``
    setting); asked only after such an error, so a config file that cannot
    be read falls back to ``MEM_DEBUG`` alone."""
    try:
        return bool(load_settings().debug)
    except MemError:
        return os.environ.get("MEM_DEBUG") == "1"


def parse_key(name: str, *, user: bool) -> Spec:
    """The setting ``mem config set|unset NAME`` names, in the project's
    config file or (``user``) the user's."""
    keys = _USER_KEYS if user else _PROJECT_KEYS
    if name not in keys:
        if re.search(_SECRET_KEY, name):
            raise MemError(f"{name}: config files hold no secrets; keep it in an environment variable")
        why = " (a user setting: use --user)" if name in SPEC_BY_NAME else ""
        raise MemError(f"unknown key '{name}'{why}; known keys: {', '.join(keys)}")
    return SPEC_BY_NAME[name]


def parse_config_value(name: str, text: str, *, user: bool) -> Any:
    """The TOML value of ``mem config set NAME TEXT``: checked as a config
    file's value would be (a list is comma-separated)."""
    spec = parse_key(name, user=user)
    value = spec.kind.from_text(text)
    try:
        _from_file(spec, value, ".", "")
    except MemError as exc:
        raise MemError(exc.message.removeprefix(": ")) from None
    return value
