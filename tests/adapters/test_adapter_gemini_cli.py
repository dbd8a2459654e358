"""Gemini CLI: GEMINI.md, mcpServers.mem and hooks in .gemini/settings.json; --scope user."""

from __future__ import annotations

import json

import pytest

from mem_core.errors import MemError

SETTINGS = """{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  },
  "mcpServers": {
    "search": {
      "command": "search-mcp"
    }
  },
  "hooks": {
    "AfterAgent": [
      {
        "hooks": [
          {
            "name": "lint",
            "type": "command",
            "command": "npm run lint",
            "timeout": 60000
          }
        ]
      }
    ]
  },
  "privacy": {
    "usageStatisticsEnabled": false
  }
}"""


def test_a_fresh_project_round_trip(adapters) -> None:
    installed = adapters.round_trip("gemini-cli")
    assert sorted(k for k, v in installed.items() if v is not None) == [".gemini/settings.json", "GEMINI.md"]


def test_the_settings_are_gemini_clis_format(adapters) -> None:
    adapters.install("gemini-cli")
    settings = json.loads(adapters.read(".gemini/settings.json"))
    assert settings["mcpServers"] == {"mem": {"command": "mem", "args": ["mcp"], "trust": True}}
    assert list(settings["hooks"]) == ["SessionStart", "BeforeAgent", "SessionEnd"]
    for event, mem_event in (
        ("SessionStart", "session-start"),
        ("BeforeAgent", "prompt-submit"),
        ("SessionEnd", "session-end"),
    ):
        (hook,) = settings["hooks"][event][0]["hooks"]
        assert hook["command"] == f"mem hook {mem_event} --assistant gemini-cli"
        assert hook["type"] == "command" and hook["name"].startswith("mem-") and hook["timeout"] == 5000


def test_settings_of_the_users_own_round_trip(adapters) -> None:
    installed = adapters.round_trip(
        "gemini-cli", {".gemini/settings.json": SETTINGS, "GEMINI.md": "Answer in English.\n"}
    )
    settings = json.loads(installed[".gemini/settings.json"])
    assert list(settings) == ["security", "mcpServers", "hooks", "privacy"]
    assert list(settings["mcpServers"]) == ["search", "mem"]
    assert list(settings["hooks"]) == ["AfterAgent", "SessionStart", "BeforeAgent", "SessionEnd"]


def test_the_user_is_told_to_trust_the_folder(adapters) -> None:
    (note,) = adapters.install("gemini-cli").adapters[0]["notes"]
    assert "trust" in note and "trustedFolders.json" in note and str(adapters.project) in note


def test_user_scope_round_trip(adapters, put) -> None:
    put(adapters.home, {".gemini/settings.json": SETTINGS})
    installed = adapters.round_trip("gemini-cli", scope="user")
    assert {".gemini/GEMINI.md", ".gemini/settings.json"} <= set(installed)


def test_an_invalid_settings_file_is_refused(adapters, tree, put) -> None:
    put(adapters.project, {".gemini/settings.json": "{\n  // comments are not JSON\n}\n"})
    before = tree(adapters.project)
    with pytest.raises(MemError, match=r"^\.gemini/settings\.json is not valid JSON"):
        adapters.install("gemini-cli")
    assert tree(adapters.project) == before
