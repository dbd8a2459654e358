"""Settings: the layers and their sources, the checks on config files, the
user config path, and project discovery."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mem_core.errors import MemError
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.project import discover, find_project
from mem_core.settings import PROJECT_CONFIG, SPECS, load_settings, user_config_path

REPO = Path(__file__).resolve().parents[2]


def write_config(project: Path, text: str) -> Path:
    path = project / PROJECT_CONFIG
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_config(text: str) -> Path:
    path = Path(os.environ["MEM_USER_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_come_from_nowhere_but_the_defaults(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEM_DISABLE_PLUGINS")
    monkeypatch.delenv("MEM_USER_DIR")
    settings = load_settings(str(project))
    assert settings.project == str(project)
    assert [(name, layer, source) for name, _, layer, source in settings.items()] == [
        (spec.name, "default", "default") for spec in SPECS
    ]
    assert (settings.store, settings.postgres_dsn_env, settings.context_budget) == ("sqlite", "MEM_POSTGRES_DSN", 1500)
    assert (settings.plugins, settings.disable_plugins, settings.strict_plugins, settings.debug) == (
        (),
        frozenset(),
        False,
        False,
    )


def test_later_layers_win_and_each_value_says_where_it_came_from(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_file = write_config(
        project, 'store = "postgres"\ncontext_budget = 900\ndefault_mind = "team"\nportfolio = "../brain"\n'
    )
    user_file = user_config('context_budget = 700\ndefault_mind = "mine"\nuser_dir = "~/mem-user"\n')
    monkeypatch.setenv("MEM_DEFAULT_MIND", "shell")
    monkeypatch.delenv("MEM_USER_DIR")
    settings = load_settings(str(project))
    assert settings.store == "postgres" and settings.source("store") == str(project_file)
    assert settings.context_budget == 700 and settings.source("context_budget") == str(user_file)
    assert settings.default_mind == "shell" and settings.source("default_mind") == "MEM_DEFAULT_MIND"
    assert settings.portfolio == str(project.parent / "brain")  # relative to the project
    assert settings.user_dir == os.path.expanduser("~/mem-user")
    assert settings.layer("disable_plugins") == "env" and settings.disable_plugins == {"testranker"}
    with pytest.raises(AttributeError):
        settings.store = "sqlite"  # type: ignore[misc]


def test_environment_values_keep_their_old_meaning(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_STRICT_PLUGINS", "yes")
    monkeypatch.setenv("MEM_DEBUG", "true")  # only "1" ever turned tracebacks on
    monkeypatch.setenv("MEM_PLUGINS", " team_rankers , tools/local.py,,")
    monkeypatch.chdir(project)
    settings = load_settings()
    assert settings.strict_plugins is True and settings.debug is False
    assert settings.plugins == ("team_rankers", str(project / "tools" / "local.py"))
    monkeypatch.setenv("MEM_CONTEXT_BUDGET", "lots")
    with pytest.raises(MemError) as caught:
        load_settings()
    assert caught.value.message == "MEM_CONTEXT_BUDGET must be a whole number >= 0 (got 'lots')"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("store = ", "invalid TOML: Invalid value (at line 1, column 9)"),
        ("colour = 1", "unknown key 'colour'; known keys: store, postgres_dsn_env, server_url, server_key_env, plugins, "
         "disable_plugins, "
         "strict_plugins, portfolio, default_mind, context_budget, prompt_budget, hook_relevance, hook_timeout, "
         "journal_sessions, recall_ranking, recall_hybrid_weight, recall_trust_weight, recall_model, recall_index"),
        ("debug = true", "unknown key 'debug' (a user setting: set it in the user config file); known keys: store, "
         "postgres_dsn_env, server_url, server_key_env, plugins, disable_plugins, strict_plugins, portfolio, "
         "default_mind, context_budget, prompt_budget, hook_relevance, hook_timeout, journal_sessions, "
         "recall_ranking, recall_hybrid_weight, recall_trust_weight, recall_model, recall_index"),
        ("context_budget = -1", "context_budget must be a whole number >= 0 (got -1)"),
        ("strict_plugins = 1", "strict_plugins must be true or false (got 1)"),
        ("plugins = \"x\"", "plugins must be a list of non-empty strings (got 'x')"),
        ('postgres_dsn_env = "postgresql://mem@db/x"', "postgres_dsn_env must be the name of an environment "
         "variable, like MEM_POSTGRES_DSN (got 'postgresql://mem@db/x')"),
        ('postgres_dsn_env = "postgresql://mem:hunter2@db/x"', "postgres_dsn_env looks like a secret (a connection "
         "string with a password); config files hold no secrets: keep it in an environment variable and name that "
         "variable in postgres_dsn_env"),
        ('portfolio = "host=db password=hunter2"', "portfolio looks like a secret (a connection string with a "
         "password); config files hold no secrets: keep it in an environment variable and name that variable in "
         "postgres_dsn_env"),
        ('postgres_dsn = "postgresql://db/x"', "postgres_dsn: config files hold no secrets; keep it in an "
         "environment variable (for the PostgreSQL DSN: name the variable in postgres_dsn_env)"),
    ],
)  # fmt: skip
def test_a_bad_project_config_is_one_line_naming_the_file(project: Path, text: str, message: str) -> None:
    path = write_config(project, text + "\n")
    with pytest.raises(MemError) as caught:
        load_settings(str(project))
    assert caught.value.message == f"{path}: {message}"
    assert "hunter2" not in caught.value.message


def test_the_user_config_takes_the_user_settings(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEM_USER_DIR")
    user_config('debug = true\nuser_dir = "store"\n')
    settings = load_settings(str(project))
    assert settings.debug is True
    assert settings.user_dir == str(Path(os.environ["MEM_USER_CONFIG"]).parent / "store")


def test_a_symlinked_project_config_is_refused(project: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.toml").write_text('store = "postgres"\n')
    (project / ".bmad" / "memory").mkdir(parents=True)
    (project / PROJECT_CONFIG).symlink_to(tmp_path / "elsewhere.toml")
    with pytest.raises(MemError, match="Memory paths cannot follow symbolic links"):
        load_settings(str(project))


def test_a_config_of_comments_only_is_not_parsed(project: Path) -> None:
    from mem_core.api.configure import template

    write_config(project, template())
    code = "import sys; from mem_core.settings import load_settings; load_settings(sys.argv[1]); print('tomllib' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code, str(project)], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "False"
    write_config(project, 'store = "sqlite"\n')
    done = subprocess.run(
        [sys.executable, "-c", code, str(project)], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_CONFIG_HOME": "/srv/xdg"},
        {"XDG_CONFIG_HOME": "relative/xdg"},
        {"XDG_CONFIG_HOME": ""},
        {"HOME": "/home/someone"},
    ],
)
def test_the_user_config_path_is_platformdirs_one(env: dict[str, str]) -> None:
    code = (
        "import os, platformdirs; from mem_core.settings import user_config_path;"
        " print(user_config_path() == os.path.join(platformdirs.user_config_dir('mem', appauthor=False), 'config.toml'))"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MEM_", "XDG_"))}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env={**base, **env}, check=True
    )
    assert done.stdout.split() == ["True"]


def test_mem_user_config_names_another_file(tmp_path: Path) -> None:
    assert user_config_path({"MEM_USER_CONFIG": str(tmp_path / "c.toml")}) == str(tmp_path / "c.toml")


def test_the_kernel_carries_its_settings_and_the_manager_obeys_them(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEM_DISABLE_PLUGINS")
    write_config(project, 'disable_plugins = ["lexical", "testranker"]\n')
    settings = load_settings(str(project))
    kernel = Kernel(make_plugin_manager(settings, entry_points=False), settings=settings)
    assert kernel.settings is settings
    assert "lexical" not in kernel.rankers and "evidence" in kernel.rankers
    monkeypatch.chdir(project)
    assert Kernel().settings.project == str(project)  # read on first use


def test_project_config_plugins_load_relative_to_the_project(project: Path, mem, now: str) -> None:
    (project / "tools").mkdir()
    (project / "tools" / "shortest.py").write_text(
        "from mem_core.plugin import Ranker, Scored, hookimpl\n"
        "class Shortest(Ranker):\n"
        "    name = 'shortest'\n"
        "    def rank(self, query, candidates, context):\n"
        "        return [Scored(c, 1.0) for c in sorted(candidates, key=lambda c: len(c.scored_text))]\n"
        "@hookimpl\n"
        "def mem_register_rankers(): return [Shortest]\n"
    )
    write_config(project, 'plugins = ["tools/shortest.py"]\n')
    listed = mem("plugins", cwd=project)
    assert "  shortest (config: " + str(project / "tools" / "shortest.py") in listed.out
    assert mem("recall", "x", "--ranking", "shortest", "-d", str(project)).code == 0


# -- project discovery ------------------------------------------------------


def test_discovery_finds_the_nearest_marked_ancestor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    (root / ".agents").mkdir(parents=True)
    (root / "src" / "auth").mkdir(parents=True)
    (root / "src" / ".bmad").mkdir()
    monkeypatch.chdir(root / "src" / "auth")
    assert find_project() == str(root / "src")
    assert find_project(".") == str(root / "src" / "auth")  # -d is taken as given
    assert find_project("") == str(root / "src" / "auth")
    (root / "src" / ".bmad").rmdir()
    assert find_project() == str(root)


def test_discovery_stops_at_a_git_root_and_at_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outer = tmp_path / "outer"
    (outer / ".bmad").mkdir(parents=True)
    repo = outer / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    monkeypatch.chdir(repo / "pkg")
    assert find_project() == str(repo / "pkg")  # not outer's memory
    assert discover() == (None, str(repo))
    (repo / ".bmad").mkdir()
    assert discover() == (str(repo), str(repo))

    monkeypatch.setenv("HOME", str(outer))  # the home directory is never a discovered project
    (repo / ".git").rmdir()
    (repo / ".bmad").rmdir()
    assert find_project() == str(repo / "pkg")
    monkeypatch.chdir(outer)
    assert find_project() == str(outer)
