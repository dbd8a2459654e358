"""OpenCode: ``AGENTS.md``, ``mcp.mem`` in ``opencode.json``, and the plugin module ``.opencode/plugin/mem.js``.

With ``--scope user``: the same under ``~/.config/opencode/``. OpenCode has
no hook file; the plugin module runs ``mem hook`` (with Claude Code's hook
JSON on stdin: ``session_id``, ``cwd``, ``hook_event_name``, ``prompt``) and
adds its plain-text answer to the system prompt in
``experimental.chat.system.transform`` — the brief once per session, the
recall for the session's latest prompt (taken from ``chat.message``) — and
runs the session-end hook on ``session.idle``. A hook that fails or takes
longer than 5 s adds nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.plugin import Adapter

if TYPE_CHECKING:
    from mem_core.plugin import Edit, Target

NAME = "opencode"
HEADER = "// mem: written by `mem adapters install opencode`; `mem adapters remove opencode` deletes it.\n"
SCHEMA = {"$schema": "https://opencode.ai/config.json"}

PLUGIN = (
    HEADER
    + r"""// It runs `mem hook <event> --assistant opencode` (which prints nothing on any error) and puts
// what it prints into the system prompt: the session brief, and the recall for the latest prompt.
import { spawn } from "node:child_process";

const MEM = __MEM__;
const TIMEOUT_MS = 5000;

function hook(event, payload, cwd) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(MEM[0], [...MEM.slice(1), "hook", event, "--assistant", "opencode"], {
        cwd,
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      resolve("");
      return;
    }
    const timer = setTimeout(() => {
      child.kill();
      resolve("");
    }, TIMEOUT_MS);
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve("");
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? out.trim() : "");
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const MemPlugin = async ({ directory }) => {
  const cwd = directory || process.cwd();
  const sessions = new Map(); // session id -> { brief, prompt, asked, recall }
  const state = (id) => {
    if (!sessions.has(id)) sessions.set(id, { brief: undefined, prompt: "", asked: "", recall: "" });
    return sessions.get(id);
  };
  return {
    "chat.message": async (input, output) => {
      const parts = (output && output.parts) || [];
      const text = parts
        .filter((part) => part.type === "text" && !part.synthetic && part.text)
        .map((part) => part.text)
        .join("\n");
      if (text) state((input && input.sessionID) || "").prompt = text;
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = (input && input.sessionID) || "";
      const session = state(id);
      if (session.brief === undefined) {
        session.brief = await hook(
          "session-start",
          { session_id: id, cwd, hook_event_name: "SessionStart", source: "startup" },
          cwd,
        );
      }
      if (session.prompt && session.prompt !== session.asked) {
        session.asked = session.prompt;
        session.recall = await hook(
          "prompt-submit",
          { session_id: id, cwd, hook_event_name: "UserPromptSubmit", prompt: session.prompt },
          cwd,
        );
      }
      for (const text of [session.brief, session.recall]) {
        if (text) output.system.push(text);
      }
    },
    event: async ({ event }) => {
      if (!event || event.type !== "session.idle") return;
      const id = (event.properties && event.properties.sessionID) || "";
      await hook("session-end", { session_id: id, cwd, hook_event_name: "SessionEnd" }, cwd);
    },
  };
};
"""
)


class OpenCode(Adapter):
    name = NAME
    title = "OpenCode"
    help = "AGENTS.md block, mcp.mem in opencode.json, plugin .opencode/plugin/mem.js running mem hook."
    markers = (".opencode", "opencode.json", "opencode.jsonc", ".config/opencode")
    programs = ("opencode",)

    def edits(self, target: Target) -> list[Edit]:
        import json

        from mem_core.plugin import MCP_ARGS, Block, JsonMember, OwnedFile, instructions

        where = ".config/opencode/" if target.user else ""
        plugin = ".config/opencode/plugin/mem.js" if target.user else ".opencode/plugin/mem.js"
        mem = target.mem_argv()
        server = {"type": "local", "command": [*mem, *MCP_ARGS], "environment": {}, "enabled": True}
        return [
            Block(where + "AGENTS.md", instructions(NAME)),
            JsonMember(where + "opencode.json", ("mcp", "mem"), server, base=SCHEMA),
            OwnedFile(plugin, PLUGIN.replace("__MEM__", json.dumps(mem)), HEADER),
        ]

    def notes(self, target: Target) -> list[str]:
        return ["OpenCode installs its plugin package from npm the first time it loads the mem.js plugin module."]
