"""The plugin manager, registries and discovery (architecture.md)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from mem_core import hookimpl
from mem_core.errors import PluginError
from mem_core.kernel import DEFAULT_PLUGINS, Kernel, make_plugin_manager
from mem_core.plugin import NoteSource, Ranker


def test_a_bare_kernel_has_no_plugins() -> None:
    kernel = Kernel(make_plugin_manager(defaults=False, entry_points=False))
    assert len(kernel.rankers) == 0
    assert len(kernel.note_sources) == 0


def test_defaults_are_registered_by_name(kernel: Kernel) -> None:
    names = [info.name for info in kernel.plugin_infos()]
    assert names == list(DEFAULT_PLUGINS)
    assert "lexical" in kernel.rankers
    assert {"journal", "notes", "portfolio"} <= set(kernel.note_sources.names())
    assert kernel.reward_signals.names()[:3] == ["eval", "accept", "ci"]


def test_each_manager_is_fresh() -> None:
    first, second = make_plugin_manager(entry_points=False), make_plugin_manager(entry_points=False)
    assert first is not second
    first.register(types.SimpleNamespace(), name="extra")
    assert second.get_plugin("extra") is None


class _Dup(Ranker):
    name = "lexical"

    def rank(self, query, candidates, context):
        return []


def test_a_duplicate_name_is_an_error_naming_both_providers() -> None:
    class Plugin:
        @hookimpl
        def mem_register_rankers(self):
            return [_Dup]

    pm = make_plugin_manager(entry_points=False)
    pm.register(Plugin(), name="copycat")
    with pytest.raises(PluginError) as caught:
        Kernel(pm).rankers  # noqa: B018
    assert caught.value.message == (
        "duplicate ranker name 'lexical': provided by plugin 'lexical' and plugin 'copycat'"
    )


def test_an_in_test_plugin_registers_and_unregisters(kernel: Kernel) -> None:
    class Extra(NoteSource):
        name = "extra"

        def candidates(self, query, context):
            return []

    class Plugin:
        @hookimpl
        def mem_register_note_sources(self):
            return [Extra]

    plugin = Plugin()
    kernel.pm.register(plugin, name="extra-plugin")
    assert "extra" in Kernel(kernel.pm).note_sources
    kernel.pm.unregister(plugin)
    assert "extra" not in Kernel(kernel.pm).note_sources


def test_mem_disable_plugins_blocks_before_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "portfolio, lexical")
    kernel = Kernel(make_plugin_manager(entry_points=False))
    assert "lexical" not in kernel.rankers
    assert "portfolio" not in kernel.note_sources
    assert "notes" in kernel.note_sources


def _install_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: str, source: str) -> None:
    site = tmp_path / "site"
    (site / f"{name}-0.9.dist-info").mkdir(parents=True)
    (site / f"{name}-0.9.dist-info" / "entry_points.txt").write_text(f"[mem.plugins]\n{name} = {module}\n")
    (site / f"{name}-0.9.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.9\n")
    (site / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(site))


def test_a_broken_third_party_plugin_is_reported_not_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install_entry_point(tmp_path, monkeypatch, "broken", "mem_broken_plugin", "raise ImportError('no such thing')\n")
    kernel = Kernel(make_plugin_manager())
    broken = [info for info in kernel.plugin_infos() if info.name == "broken"]
    assert broken and broken[0].error == "ImportError: no such thing"
    assert broken[0].origin == "entry-point" and broken[0].version == "0.9"
    assert "lexical" in kernel.rankers  # everything else still works


def test_strict_plugins_make_a_broken_plugin_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install_entry_point(tmp_path, monkeypatch, "broken", "mem_broken_plugin2", "raise ImportError('nope')\n")
    monkeypatch.setenv("MEM_STRICT_PLUGINS", "1")
    with pytest.raises(PluginError, match="plugin 'broken' .* failed to load: nope"):
        make_plugin_manager()
    sys.modules.pop("mem_broken_plugin2", None)


def test_mem_plugins_lists_a_broken_plugin(mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install_entry_point(tmp_path, monkeypatch, "broken", "mem_broken_plugin3", "raise RuntimeError('boom')\n")
    run = mem("plugins")
    assert run.code == 0, run.err
    assert "  broken (entry-point: mem_broken_plugin3 0.9): -\n    BROKEN: RuntimeError: boom\n" in run.out
    assert mem("recall", "anything").code == 0  # other commands unaffected


LOCAL_PLUGIN = """
from mem_core.plugin import Ranker, Scored, hookimpl


class Newest(Ranker):
    name = "newest"

    def rank(self, query, candidates, context):
        return [Scored(c, 1.0) for c in reversed(candidates) if c.fields["kind"] == "event"]


@hookimpl
def mem_register_rankers():
    return [Newest]
"""


def test_mem_plugins_loads_an_unpackaged_file(mem, project: Path, tmp_path: Path, now: str, monkeypatch) -> None:
    plugin = tmp_path / "team_ranker.py"
    plugin.write_text(LOCAL_PLUGIN)
    for task in ("first", "second"):
        assert mem("write", "--agent", "a", "--task", task, "-d", str(project)).code == 0
    monkeypatch.setenv("MEM_PLUGINS", f" {plugin} ,")
    run = mem("recall", "anything", "--ranking", "newest", "--json", "-d", str(project))
    assert run.code == 0, run.err
    import json

    assert [r["event"]["task"] for r in json.loads(run.out)["results"]] == ["second", "first"]
    rows = {r["name"]: r for r in json.loads(mem("plugins", "--json").out)["plugins"]}
    assert rows["team_ranker"]["origin"] == "env"
    assert rows["team_ranker"]["provides"] == [{"kind": "ranker", "name": "newest"}]
    monkeypatch.setenv("MEM_DISABLE_PLUGINS", "team_ranker")
    assert mem("recall", "x", "--ranking", "newest", "-d", str(project)).code == 1


def test_a_missing_mem_plugins_file_is_reported_not_fatal(mem, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEM_PLUGINS", str(tmp_path / "nope.py"))
    rows = {r["name"]: r for r in json_rows(mem("plugins", "--json").out)}
    assert rows["nope"]["error"].startswith("FileNotFoundError")


def json_rows(text: str) -> list[dict]:
    import json

    return json.loads(text)["plugins"]
