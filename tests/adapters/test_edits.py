"""The shared edit algorithms: each reversible, byte for byte, and refusing what it cannot edit."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mem_core.adapters.edits import BEGIN, END, Block, JsonItem, JsonMember, OwnedFile, TomlTable, YamlListItems
from mem_core.errors import MemError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

L = "f"


def round_trip(edit, text):
    """Apply (twice: the same text), check it is present, revert: the original text."""
    applied = edit.apply(text, L)
    assert applied != text
    assert edit.apply(applied, L) == applied
    assert edit.present(applied, L)
    assert edit.revert(applied, L) == text
    return applied


# -- Markdown blocks --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "\n", "# Mine\n", "# Mine", "# Mine\n\n", "a\r\nb\r\n", "x\n\n\n", "<!-- a comment -->\n"]
)
def test_a_block_goes_in_after_the_users_text_and_comes_out_exactly(text: str) -> None:
    edit = Block("CLAUDE.md", "Call recall.")
    applied = round_trip(edit, text)
    assert applied.startswith(text)
    assert applied.endswith(f"{BEGIN}\nCall recall.\n{END}\n")


@given(st.text())
def test_any_text_without_markers_comes_back_after_a_block(text: str) -> None:
    if "mem:begin" in text or "mem:end" in text:
        return
    assert Block("A.md", "body").revert(Block("A.md", "body").apply(text, L), L) == text


def test_a_missing_file_is_created_with_the_preamble_and_deleted_again() -> None:
    edit = Block(".cursor/rules/mem.mdc", "body", preamble="---\nalwaysApply: true\n---\n\n")
    created = edit.apply(None, L)
    assert created == f"---\nalwaysApply: true\n---\n\n{BEGIN}\nbody\n{END}\n"
    assert edit.revert(created, L) is None
    # the same text in a file the user had is not deleted
    assert edit.revert(edit.apply("---\nalwaysApply: true\n---\n\n", L), L) == "---\nalwaysApply: true\n---\n\n"


def test_an_old_block_is_replaced_where_it_stands_and_the_users_text_around_it_kept() -> None:
    text = f"# Top\n{BEGIN}\nold text\n{END}\n# Bottom\n"
    edit = Block("A.md", "new text")
    assert edit.apply(text, L) == f"# Top\n{BEGIN}\nnew text\n{END}\n# Bottom\n"
    assert edit.revert(edit.apply(text, L), L) == "# Top\n# Bottom\n"


def test_a_broken_marker_pair_is_refused() -> None:
    with pytest.raises(MemError, match=f"f has {BEGIN} without {END}"):
        Block("A.md", "x").apply(f"a\n{BEGIN}\nb\n", L)
    with pytest.raises(MemError, match="without"):
        Block("A.md", "x").revert(f"a\n{END}\n", L)


# -- JSON -------------------------------------------------------------------------------

SERVER = {"command": "mem", "args": ["mcp"]}


@pytest.mark.parametrize(
    "text",
    [
        '{\n    "mcpServers": {\n        "other": {"command": "x"}\n    },\n    "z": [1, 2]\n}\n',
        '{\n\t"a": 1\n}',
        '{"a": 1, "b": {"c": 2}}',
        '{"a":1}',
        "{}",
        "{}\n",
        '{\n  "mcpServers": {}\n}\n',
        '{\n  "a": "é ☃",\n  "mcpServers": {\n    "first": {}\n  },\n  "last": null\n}\n',
        '  {  "a" : 1 }  \n',
    ],
)
def test_a_json_member_goes_in_and_comes_out_byte_for_byte(text: str) -> None:
    edit = JsonMember("x.json", ("mcpServers", "mem"), SERVER)
    applied = edit.apply(text, L)
    value = json.loads(applied)
    assert value["mcpServers"]["mem"] == SERVER
    original = json.loads(text)
    assert list(value) == list(original) + ([] if "mcpServers" in original else ["mcpServers"]), "key order kept"
    assert edit.apply(applied, L) == applied
    reverted = edit.revert(applied, L)
    if original in ({}, {"mcpServers": {}}):
        assert reverted is None or json.loads(reverted) == {}  # nothing left of the user's: an empty file goes
    else:
        assert reverted == text


def test_a_new_member_is_indented_as_the_file_indents() -> None:
    applied = JsonMember("x.json", ("mcpServers", "mem"), SERVER).apply('{\n\t"a": 1\n}\n', L)
    assert (
        applied
        == '{\n\t"a": 1,\n\t"mcpServers": {\n\t\t"mem": {\n\t\t\t"command": "mem",\n\t\t\t"args": [\n\t\t\t\t"mcp"\n\t\t\t]\n\t\t}\n\t}\n}\n'
    )
    inline = JsonMember("x.json", ("m",), 1).apply('{"a": 1, "b": 2}', L)
    assert inline == '{"a": 1, "b": 2, "m": 1}'


def test_a_changed_mem_member_is_rewritten_in_place() -> None:
    text = '{\n  "mcpServers": {\n    "mem": {"command": "old"},\n    "other": {}\n  }\n}\n'
    edit = JsonMember("x.json", ("mcpServers", "mem"), SERVER)
    applied = edit.apply(text, L)
    assert list(json.loads(applied)["mcpServers"]) == ["mem", "other"]
    assert edit.revert(applied, L) == '{\n  "mcpServers": {\n    "other": {}\n  }\n}\n'


def test_a_missing_json_file_is_created_from_its_base_and_deleted_when_only_that_is_left() -> None:
    edit = JsonItem("h.json", ("hooks", "stop"), {"command": "mem hook x"}, lambda v: "mem hook" in str(v),
                    base={"version": 1})  # fmt: skip
    created = edit.apply(None, L)
    assert json.loads(created) == {"version": 1, "hooks": {"stop": [{"command": "mem hook x"}]}}
    assert edit.revert(created, L) is None


def test_json_array_items_are_appended_and_only_mems_are_taken_out() -> None:
    text = '{\n   "hooks": {\n      "stop": [\n         {"command": "theirs"}\n      ]\n   }\n}'
    edit = JsonItem("h.json", ("hooks", "stop"), {"command": "mem hook x"}, lambda v: "mem hook" in str(v))
    applied = round_trip(edit, text)
    assert json.loads(applied)["hooks"]["stop"] == [{"command": "theirs"}, {"command": "mem hook x"}]
    # an older mem item is replaced, not doubled
    older = applied.replace("mem hook x", "mem hook old")
    assert json.loads(edit.apply(older, L))["hooks"]["stop"] == [{"command": "theirs"}, {"command": "mem hook x"}]
    # the user added an item after mem's: removal takes mem's alone
    later = JsonItem("h.json", ("hooks", "stop"), {"command": "later"}, {"command": "later"}.__eq__).apply(applied, L)
    assert json.loads(edit.revert(later, L))["hooks"]["stop"] == [{"command": "theirs"}, {"command": "later"}]


@pytest.mark.parametrize("text", ["{", '{"a": 1,}', "// c\n{}", "[1]", "", '{"a": 1} x'])
def test_invalid_json_is_refused_with_one_line(text: str) -> None:
    edit = JsonMember("x.json", ("mcpServers", "mem"), SERVER)
    for call in (edit.apply, edit.revert):
        with pytest.raises(MemError) as info:
            call(text, ".mcp.json")
        assert info.value.message.startswith(".mcp.json ")
        assert "\n" not in info.value.message


def test_a_path_through_a_non_object_is_refused() -> None:
    with pytest.raises(MemError, match="f: mcpServers is not a JSON object"):
        JsonMember("x.json", ("mcpServers", "mem"), SERVER).apply('{"mcpServers": [1]}', L)
    with pytest.raises(MemError, match="f: hooks.stop is not a JSON array"):
        JsonItem("h.json", ("hooks", "stop"), 1, bool).apply('{"hooks": {"stop": {}}}', L)


# -- TOML -------------------------------------------------------------------------------

TABLE = {"command": "mem", "args": ["mcp"], "required": True}
CODEX = """\
# my Codex settings
model = "o3"  # the default model

[mcp_servers.other]
command = "other"   # keep me
args = []

# profiles below
[profiles.fast]
model = "mini"
"""


@pytest.mark.parametrize("text", [CODEX, CODEX.rstrip("\n"), "", "# only a comment\n", 'mcp_servers.x.command = "y"\n'])
def test_a_toml_table_is_appended_and_cut_out_again(text: str) -> None:
    edit = TomlTable("c.toml", ("mcp_servers", "mem"), TABLE)
    applied = round_trip(edit, text)
    assert applied.startswith(text)
    data = tomllib.loads(applied)
    assert data["mcp_servers"]["mem"] == TABLE


def test_a_toml_table_that_cannot_be_appended_is_edited_in_place_keeping_comments() -> None:
    text = '# top\nmcp_servers = { other = { command = "x" } }  # inline\n[z]\na = 1\n'
    edit = TomlTable("c.toml", ("mcp_servers", "mem"), TABLE)
    applied = edit.apply(text, L)
    data = tomllib.loads(applied)
    assert data["mcp_servers"]["mem"] == TABLE and data["mcp_servers"]["other"] == {"command": "x"}
    assert "# top" in applied and data["z"] == {"a": 1}
    assert tomllib.loads(edit.revert(applied, L)) == tomllib.loads(text)


def test_a_changed_toml_table_is_updated_and_the_file_created_by_mem_deleted() -> None:
    edit = TomlTable("c.toml", ("mcp_servers", "mem"), TABLE)
    created = edit.apply(None, L)
    assert created.startswith("[mcp_servers.mem]\n")
    assert edit.revert(created, L) is None
    changed = created.replace('command = "mem"', 'command = "old"')
    assert tomllib.loads(edit.apply(changed, L))["mcp_servers"]["mem"] == TABLE


@pytest.mark.parametrize("text", ["a = ", "[x]\n[x]\n", "a = 1\na = 2\n"])
def test_invalid_toml_is_refused_with_one_line(text: str) -> None:
    edit = TomlTable("c.toml", ("mcp_servers", "mem"), TABLE)
    for call in (edit.apply, edit.revert):
        with pytest.raises(MemError) as info:
            call(text, ".codex/config.toml")
        assert info.value.message.startswith(".codex/config.toml is not valid TOML: ")
        assert "\n" not in info.value.message


# -- YAML -------------------------------------------------------------------------------

ITEMS = ["CONVENTIONS.md", ".bmad/memory/brief.md"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "model: gpt-4o\n",
        "model: gpt-4o",
        "read:\n  - docs/STYLE.md\n  - 'notes/a b.md'  # theirs\nauto-commits: false\n",
        "read:\n- docs/STYLE.md\n",
        "read:  # files to read\n    - docs/STYLE.md\n\n# other settings\nmodel: x",
        "read:\n",
    ],
)
def test_yaml_read_entries_are_added_marked_and_taken_out_exactly(text: str) -> None:
    edit = YamlListItems(".aider.conf.yml", "read", ITEMS)
    applied = round_trip(edit, text)
    assert applied.count("  # mem") >= 2


def test_yaml_entries_keep_the_lists_indentation_and_skip_what_the_user_listed() -> None:
    edit = YamlListItems(".aider.conf.yml", "read", ITEMS)
    text = "read:\n    - CONVENTIONS.md\nmodel: x\n"
    applied = edit.apply(text, L)
    assert applied == "read:\n    - CONVENTIONS.md\n    - .bmad/memory/brief.md  # mem\nmodel: x\n"
    assert edit.revert(applied, L) == text, "the user's own CONVENTIONS.md entry stays"
    created = edit.apply(None, L)
    assert created == "read:  # mem\n  - CONVENTIONS.md  # mem\n  - .bmad/memory/brief.md  # mem\n"
    assert edit.revert(created, L) is None


@pytest.mark.parametrize("text", ["read: [a.md, b.md]\n", "read: a.md\n", "read:\n  - a\nread:\n  - b\n"])
def test_a_read_key_that_is_not_one_block_list_is_refused(text: str) -> None:
    with pytest.raises(MemError) as info:
        YamlListItems(".aider.conf.yml", "read", ITEMS).apply(text, ".aider.conf.yml")
    assert info.value.message.startswith(".aider.conf.yml")
    assert "nothing was changed" in info.value.message


# -- a file of mem's own ----------------------------------------------------------------


def test_an_owned_file_is_written_whole_and_someone_elses_refused() -> None:
    edit = OwnedFile("p.js", "// mem: x\nbody\n", "// mem: x\n")
    assert edit.apply(None, L) == "// mem: x\nbody\n"
    assert edit.apply("// mem: x\nold\n", L) == "// mem: x\nbody\n"
    assert edit.revert("// mem: x\nold\n", L) is None
    assert edit.revert("theirs\n", L) == "theirs\n"
    with pytest.raises(MemError, match="f exists and is not mem's"):
        edit.apply("theirs\n", L)
