"""The kernel calls hooks through pluggy's relay and isolates broken plugins
(architecture.md "The hooks"; issue Kernel 2 item 2)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mem_core import hookimpl
from mem_core.errors import MemError
from mem_core.hookspecs import PluginContext
from mem_core.kernel import Kernel, make_plugin_manager
from mem_core.plugin import Candidate, NoteSource, Query, Ranker, Scored

REPO = Path(__file__).resolve().parents[2]


class Newest(Ranker):
    name = "newest"

    def rank(self, query, candidates, context):
        return [Scored(c, 1.0) for c in reversed(candidates)]


def _kernel(*plugins: object) -> Kernel:
    pm = make_plugin_manager(entry_points=False)
    for index, plugin in enumerate(plugins):
        pm.register(plugin, name=f"test-plugin-{index}")
    return Kernel(pm)


def test_hook_implementations_receive_only_the_arguments_they_name() -> None:
    seen: list[object] = []

    class WantsContext:
        @hookimpl
        def mem_register_rankers(self, context):
            seen.append(context)
            return [Newest]

    class WantsNothing:
        @hookimpl
        def mem_register_note_sources(self):
            return []

    kernel = _kernel(WantsContext(), WantsNothing())
    assert "newest" in kernel.rankers and "journal" in kernel.note_sources
    assert len(seen) == 1 and isinstance(seen[0], PluginContext)
    assert seen[0].version and seen[0].settings is kernel.settings


def test_a_wrapper_can_filter_what_other_plugins_register() -> None:
    class NoEvidence:
        @hookimpl(wrapper=True)
        def mem_register_rankers(self):
            registered = yield
            return [[cls for cls in result if cls.name != "evidence"] for result in registered]

    kernel = _kernel(NoEvidence())
    assert kernel.rankers.names() == ["lexical", "bm25", "hybrid"]
    assert kernel.rankers.provider("lexical") == "lexical"


def test_a_misspelled_hook_is_a_broken_plugin_and_breaks_nothing_else(mem, monkeypatch, tmp_path: Path) -> None:
    plugin = tmp_path / "typo_plugin.py"
    plugin.write_text("from mem_core.plugin import hookimpl\n\n@hookimpl\ndef mem_register_ranker():\n    return []\n")
    monkeypatch.setenv("MEM_PLUGINS", str(plugin))
    rows = {r["name"]: r for r in json.loads(mem("plugins", "--json").out)["plugins"]}
    assert "unknown hook 'mem_register_ranker'" in rows["typo_plugin"]["error"]
    assert rows["lexical"]["error"] is None
    assert mem("recall", "anything", "-d", str(tmp_path)).code == 0


RAISING = """
from mem_core.plugin import Ranker, Scored, hookimpl


class Shortest(Ranker):
    name = "shortest"

    def rank(self, query, candidates, context):
        return []


@hookimpl
def mem_register_rankers():
    raise RuntimeError("registry server down")


@hookimpl
def mem_register_note_sources():
    return []
"""


def test_a_raising_registration_hook_is_reported_for_its_plugin_only(mem, monkeypatch, tmp_path: Path) -> None:
    plugin = tmp_path / "flaky.py"
    plugin.write_text(RAISING)
    monkeypatch.setenv("MEM_PLUGINS", str(plugin))
    run = mem("recall", "cache", "--ranking", "shortest", "-d", str(tmp_path))
    assert run.code == 1
    assert run.err == (
        "mem recall: plugin 'flaky' is broken (mem_register_rankers: RuntimeError: registry server down); "
        "see mem plugins\n"
        "mem recall: recall: ranking must be lexical or evidence\n"
    )
    assert mem("recall", "cache", "-d", str(tmp_path)).code == 0
    plugins = mem("plugins")
    assert "  flaky (env: " in plugins.out
    assert "    BROKEN: mem_register_rankers: RuntimeError: registry server down\n" in plugins.out


class _Abstract(Ranker):
    name = "half-done"


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        ([42], "returned 42, not a Ranker class"),
        ([dict], "returned <class 'dict'>, not a Ranker class"),
        (Newest, "not a list of classes"),
        ([_Abstract], "returned ranker _Abstract, which does not implement rank"),
    ],
)
def test_returning_something_that_is_not_a_proper_class_breaks_that_plugin(returned, problem) -> None:
    class Odd:
        @hookimpl
        def mem_register_rankers(self):
            return returned

    kernel = _kernel(Odd())
    assert kernel.rankers.names() == ["lexical", "bm25", "evidence", "hybrid"]
    (error,) = [info.error for info in kernel.plugin_infos() if info.name == "test-plugin-0"]
    assert error is not None and problem in error


def test_a_missing_name_names_the_broken_plugins() -> None:
    class Odd:
        @hookimpl
        def mem_register_rankers(self):
            raise ValueError("nope")

    kernel = _kernel(Odd())
    with pytest.raises(MemError) as caught:
        kernel.rankers.require("shortest", "no such ranker")
    assert caught.value.notes == (
        "plugin 'test-plugin-0' is broken (mem_register_rankers: ValueError: nope); see mem plugins",
    )


def test_without_the_lexical_plugin_no_default_plugin_runs_its_code(project: Path, now: str) -> None:
    """``evidence`` scores through the lexical *ranker*, never by importing its
    module: with ``lexical`` disabled it says so, and the module is never loaded."""
    code = (
        "import sys\n"
        "from mem_core import recall\n"
        "from mem_core.errors import MemError\n"
        "try:\n"
        f"    recall('cache', directory={str(project)!r}, ranking='evidence', context_scope='src')\n"
        "except MemError as exc:\n"
        "    print(exc.message)\n"
        "print(any(name.startswith('mem_plugins.rankers.lexical') for name in sys.modules))\n"
    )
    env = {"MEM_DISABLE_PLUGINS": "lexical,testranker", "PATH": "/usr/bin:/bin", "MEM_NOW": now}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    assert out.stdout == "the 'lexical' ranker is not available\nFalse\n"


@pytest.mark.parametrize("first", ["", "import mem_core.api.evidence, mem_core.api.reinforce, mem_core.api.recall"])
def test_the_facade_binds_functions_in_any_import_order(first: str) -> None:
    code = f"{first}\nfrom mem_core import recall, write, reinforce, observe, outcomes\nprint(recall, write, reinforce, observe, outcomes)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.count("<function ") == 5, out


def test_query_candidates_and_scores_are_read_only() -> None:
    query = Query("/p", "cache", ["cache"])
    candidate = Candidate("cache", {"kind": "note"})
    scored = Scored(candidate, 1.0)
    for obj, attribute in ((query, "limit"), (candidate, "scored_text"), (scored, "score")):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(obj, attribute, 0)
    assert query.replace(limit=3).limit == 3 and query.limit == 8


def test_one_kernel_builds_each_registry_once_for_many_threads() -> None:
    calls: list[int] = []
    gate = threading.Barrier(8)

    class Counting:
        @hookimpl
        def mem_register_note_sources(self):
            calls.append(1)
            return []

    kernel = _kernel(Counting())
    seen: list[object] = []

    def use() -> None:
        gate.wait()
        seen.append(kernel.note_sources)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len({id(registry) for registry in seen}) == 1


def test_sources_read_files_through_their_context(project: Path) -> None:
    """A source's unsafe file is skipped and reported (lexical) or an error
    (strict), through the context, never by the source itself."""
    from mem_core.api.context import KernelSourceContext

    (project / "link.md").symlink_to(project / "missing.md")

    class Linked(NoteSource):
        name = "linked"

        def candidates(self, query, context):
            text = context.read_text(query.project, "link.md")
            return [] if text is None else [Candidate(text, {"kind": "note"})]

    lexical = Query(str(project), "x", ["x"])
    context = KernelSourceContext(Kernel(make_plugin_manager(defaults=False, entry_points=False)), lexical)
    assert list(Linked().candidates(lexical, context)) == []
    assert context.skipped == [{"path": "link.md", "reason": "Memory paths cannot follow symbolic links or junctions."}]
    strict = lexical.replace(strict=True)
    with pytest.raises(MemError, match="symbolic links"):
        list(Linked().candidates(strict, KernelSourceContext(Kernel(), strict)))


def test_adapters_are_collected_from_mem_register_adapters() -> None:
    from mem_core.adapters.edits import Block
    from mem_core.plugin import Adapter

    class Notepad(Adapter):
        name = "notepad"
        title = "Notepad Agent"

        def edits(self, target):
            return [Block("NOTEPAD.md", "Call `mem recall` first.")]

    class Plugin:
        @hookimpl
        def mem_register_adapters(self):
            return [Notepad]

    kernel = _kernel(Plugin())
    assert "notepad" in kernel.adapters.names()
    assert kernel.adapters.provider("notepad") == "test-plugin-0"
    assert kernel.adapters.get("notepad")().files("/p") == ["NOTEPAD.md"]
    from mem_core.kernel.report import plugins_report

    rows = {row["name"]: row for row in plugins_report(kernel).to_json()["plugins"]}
    assert rows["test-plugin-0"]["provides"] == [{"kind": "adapter", "name": "notepad"}]


def test_each_default_plugin_provides_a_class_of_its_kinds_hook() -> None:
    """Default plugins are imported lazily, by the hook their kind
    (``mem_plugins/<kind>/``) names: the class a default plugin names is of
    that hook's kind, and its module implements no hook (a hook there would
    never be called)."""
    import importlib

    from mem_core.kernel.discovery import DEFAULT_PLUGINS, KIND_HOOKS, default_class, default_hook, default_module
    from mem_core.kernel.kernel import HOOKS, _base

    for ref in DEFAULT_PLUGINS.values():
        assert issubclass(default_class(ref), _base(HOOKS[default_hook(ref)])), ref
        module = importlib.import_module(default_module(ref))
        assert not [name for name in dir(module) if name.startswith("mem_register_")], ref
    assert set(KIND_HOOKS.values()) <= set(HOOKS_SPECIFIED)


HOOKS_SPECIFIED = [name for name in dir(__import__("mem_core.hookspecs").hookspecs) if name.startswith("mem_")]


def test_a_write_imports_no_verifier_store_or_adapter(project: Path) -> None:
    code = (
        "import sys\n"
        "from mem_cli.main import main\n"
        f"main(['write', '--agent', 'a', '--task', 't', '--ci', 'pass', '-d', {str(project)!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith('mem_plugins.') and m.count('.') == 2))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "MEM_DISABLE_PLUGINS": "testranker"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    assert (
        out.stdout.splitlines()[-1]
        == "['mem_plugins.signals.accept', 'mem_plugins.signals.ci', 'mem_plugins.signals.eval']"
    )


# -- the default plugins, resolved lazily --------------------------------------


def test_a_plugin_marked_by_mem_core_hookimpl_registers_with_pluggy() -> None:
    class Marked:
        @hookimpl(tryfirst=True)
        def mem_register_rankers(self):
            return [Newest]

    kernel = _kernel(Marked())
    assert "newest" in kernel.rankers
    (impl,) = [i for i in kernel.pm.hook.mem_register_rankers.get_hookimpls() if i.plugin_name == "test-plugin-0"]
    assert impl.tryfirst


def test_a_registry_imports_and_registers_only_the_default_plugins_of_its_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mem_core.settings import load_settings

    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "testranker,bm25")
    monkeypatch.delenv("MEM_PLUGINS", raising=False)
    settings = load_settings()
    kernel = Kernel(make_plugin_manager(settings), settings=settings)
    assert kernel.rankers.names() == ["lexical", "evidence", "hybrid"]
    registered = {name for name, plugin in kernel.pm.list_name_plugin() if plugin is not None}
    assert {"lexical", "evidence"} <= registered
    assert not registered & {"bm25", "nexus", "junit", "signal_ci", "adapter_aider"}
    assert kernel.pm.hook.mem_register_rankers.get_hookimpls()  # called through the relay


def _default_kernel(settings: object, manager: bool) -> Kernel:
    """A kernel on a plugin manager (``manager``), else the one an action
    builds where only the default plugins take part."""
    return Kernel(make_plugin_manager(settings), settings=settings) if manager else Kernel(settings=settings)  # type: ignore[arg-type]


@pytest.mark.parametrize("manager", [True, False], ids=["plugin manager", "defaults only"])
def test_a_default_plugin_that_fails_to_import_is_broken(monkeypatch: pytest.MonkeyPatch, manager: bool) -> None:
    from mem_core.kernel.discovery import DEFAULT_PLUGINS
    from mem_core.settings import load_settings

    monkeypatch.setitem(DEFAULT_PLUGINS, "ghost", "mem_plugins.rankers.no_such_ranker_module:Ghost")
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "testranker")
    kernel = _default_kernel(load_settings(), manager)
    assert "lexical" in kernel.rankers
    assert kernel.rankers.broken == (
        ("ghost", "ModuleNotFoundError: No module named 'mem_plugins.rankers.no_such_ranker_module'"),
    )
    monkeypatch.setenv("MEM_STRICT_PLUGINS", "1")
    with pytest.raises(MemError, match="plugin 'ghost' \\(mem_plugins.rankers.no_such_ranker_module\\) failed to load"):
        _default_kernel(load_settings(), manager).rankers  # noqa: B018


def test_with_only_the_default_plugins_the_registries_are_the_relays_without_a_plugin_manager(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mem_core.kernel.kernel import HOOKS
    from mem_core.settings import load_settings

    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "testranker,junit")
    monkeypatch.delenv("MEM_PLUGINS", raising=False)
    settings = load_settings()
    relayed, read = Kernel(make_plugin_manager(settings), settings=settings), Kernel(settings=settings)
    for hook in HOOKS:
        ours, theirs = read.registry(hook), relayed.registry(hook)
        assert ours.items() == theirs.items(), hook
        assert [ours.provider(name) for name in ours] == [theirs.provider(name) for name in theirs], hook
        assert ours.broken == theirs.broken == ()
    assert "junit" not in read.outcome_verifiers and "nexus" in read.outcome_verifiers
    assert read._pm is None  # no plugin manager was built
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "junit")  # the test plugin takes part: through the relay
    kernel = Kernel(settings=load_settings())
    assert "nexus" in kernel.outcome_verifiers and kernel._pm is not None


@pytest.mark.parametrize(
    "args",
    [["write", "--agent", "a", "--task", "t", "--ci", "pass"], ["recall", "anything"], ["--version"]],
    ids=["write", "recall", "version"],
)
def test_with_only_the_default_plugins_an_action_imports_no_pluggy(project: Path, args: list[str]) -> None:
    code = (
        "import sys\n"
        "from mem_cli.main import main\n"
        f"main({[*args, *(['-d', str(project)] if args[0] != '--version' else [])]!r})\n"
        "print(sorted(m for m in ('pluggy', 'inspect', 'mem_core.kernel.manager') if m in sys.modules))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "MEM_DISABLE_PLUGINS": "testranker"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
    env.pop("MEM_DISABLE_PLUGINS")  # a plugin is installed: the relay calls the hooks
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    assert out.stdout.splitlines()[-1] == (
        "[]" if args == ["--version"] else "['inspect', 'mem_core.kernel.manager', 'pluggy']"
    )


def _dist(site: Path, name: str, version: str, lines: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(lines)


def test_entry_points_are_read_from_the_installed_metadata_and_kept_until_sys_path_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem_core.kernel import discovery

    site = tmp_path / "site"
    _dist(site, "mem_extra", "0.9", "[console_scripts]\nx = y:z\n\n[mem.plugins]\nextra = mem_extra_mod:plugin\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(discovery, "_scanned", None)
    found = {ep.name: (ep.value, ep.version) for ep in discovery.entry_points()}
    assert found["extra"] == ("mem_extra_mod:plugin", "0.9")

    # the next process reads the cached answer while nothing was installed
    def no_scan() -> list[object]:
        raise AssertionError("scanned again")

    monkeypatch.setattr(discovery, "_scanned", None)
    monkeypatch.setattr(discovery, "_scan", no_scan)
    assert "extra" in {ep.name for ep in discovery.entry_points()}
    monkeypatch.undo()

    # a distribution installed: sys.path's directory changed, so it is read again
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _dist(site, "mem_more", "2.0", "[mem.plugins]\nmore = mem_more_mod\n")
    assert {"extra", "more"} <= {ep.name for ep in discovery.entry_points()}


def test_defaults_only_unless_a_plugin_is_named_or_an_enabled_entry_point_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem_core.kernel.discovery import defaults_only
    from mem_core.settings import load_settings

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "testranker")
    monkeypatch.delenv("MEM_PLUGINS", raising=False)
    assert defaults_only(load_settings())
    monkeypatch.setenv("MEM_PLUGINS", "tests.core.test_kernel")
    assert not defaults_only(load_settings())
    monkeypatch.delenv("MEM_PLUGINS")
    _dist(tmp_path / "site", "mem_other", "1.0", "[mem.plugins]\nother = x:y\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert not defaults_only(load_settings())


def test_a_recall_served_by_the_index_imports_no_json_hashlib_lock_store_nor_date_parser(tmp_path: Path) -> None:
    """What a warm recall whose results are notes needs: no line parsed
    (json), no OpenSSL (hashlib), no lock taken, no store plugin (there is no store), no general
    date parser (the clock is in mem's own form)."""
    project = tmp_path / "project"
    notes = project / ".agents" / "memory"
    notes.mkdir(parents=True)
    (notes / "lessons.md").write_text("# Lessons\n\n### Cache keys\nkeep cache keys short\n", encoding="utf-8")
    journal = project / ".bmad" / "memory" / "journal.ndjson"
    journal.parent.mkdir(parents=True)
    journal.write_text('{"ts":"2026-11-01T00:00:00.000Z","agent":"a","task":"deploy","outcome":"ok"}\n')
    heavy = (
        "json",
        "hashlib",  # OpenSSL: the index's name is a checksum, and a settled file is not hashed
        "mem_core.files.lock",
        "mem_core.js.jsdate",
        "mem_core.js.record",
        "mem_plugins.stores.sqlite",
        "mem_plugins.stores.postgres",
        "mem_plugins.stores.server",
    )
    code = (
        "import sys\n"
        "from mem_cli.main import main\n"
        f"code = main(['recall', 'cache', '-d', {str(project)!r}])\n"
        f"print(code, [name for name in {heavy!r} if name in sys.modules])\n"
    )
    env = {"PATH": "/usr/bin:/bin", "MEM_DISABLE_PLUGINS": "testranker", "MEM_NOW": "2026-11-30T12:00:00.000Z"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    time.sleep(0.2)  # the files settle (their racy window) before the first run indexes them
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
        for _ in range(2)  # the first builds the index
    ]
    assert "1. [" in runs[1].stdout and "lessons.md § Cache keys" in runs[1].stdout
    assert runs[1].stdout.splitlines()[-1] == "0 []"
    assert "json" in runs[0].stdout.splitlines()[-1]  # reading the files to index them parses the journal
