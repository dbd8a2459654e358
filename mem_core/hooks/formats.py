"""The hook events, the assistants, and what each assistant expects on
stdout (docs/brief.md; tests/assistants/ runs the real programs).

Three events, each with the names the assistants give it:

* ``session-start`` — ``SessionStart`` (Claude Code, Codex CLI, Gemini CLI),
  ``sessionStart`` (Cursor), ``session.created`` (OpenCode's plugin events);
* ``prompt-submit`` — ``UserPromptSubmit`` (Claude Code, Codex CLI),
  ``BeforeAgent`` (Gemini CLI), ``beforeSubmitPrompt`` (Cursor);
* ``session-end`` — ``SessionEnd`` (Claude Code, Gemini CLI), ``Stop`` (Claude
  Code, Codex CLI), ``stop`` (Cursor), ``session.idle`` (OpenCode).

Output, when there is something to say:

* ``claude-code``, ``codex-cli`` — ``{"hookSpecificOutput": {"hookEventName":
  "SessionStart" | "UserPromptSubmit", "additionalContext": …}}``;
* ``gemini-cli`` — the same shape with ``"SessionStart" | "BeforeAgent"``
  (Gemini CLI reads JSON only);
* ``cursor`` — ``{"additional_context": …}`` for ``sessionStart``;
  ``beforeSubmitPrompt`` can only allow or block a prompt, not add to it, so
  its answer is ``{"continue": true}`` (the prompt is kept for
  ``session-end``);
* ``opencode``, ``aider``, ``antigravity`` — the plain text (OpenCode's plugin
  puts it in the system prompt; the others have no hooks and get it only if
  a person or a script runs the command).

``session-end`` prints ``{}`` for ``codex-cli`` and ``gemini-cli`` (Codex
CLI's ``Stop`` hook and Gemini CLI's hooks must answer JSON; an empty object
asks for nothing), nothing for the others. When a hook fails open it prints
nothing at all, for every assistant.
"""

from __future__ import annotations

import json
import re

from mem_core.errors import MemError

__all__ = ["EVENTS", "ASSISTANTS", "event_name", "assistant_name", "render", "user_prompt"]

SESSION_START = "session-start"
PROMPT_SUBMIT = "prompt-submit"
SESSION_END = "session-end"
EVENTS = (SESSION_START, PROMPT_SUBMIT, SESSION_END)

ALIASES = {
    SESSION_START: SESSION_START,
    "SessionStart": SESSION_START,
    "sessionStart": SESSION_START,
    "session_start": SESSION_START,
    "session.created": SESSION_START,
    PROMPT_SUBMIT: PROMPT_SUBMIT,
    "UserPromptSubmit": PROMPT_SUBMIT,
    "BeforeAgent": PROMPT_SUBMIT,
    "beforeSubmitPrompt": PROMPT_SUBMIT,
    "prompt_submit": PROMPT_SUBMIT,
    SESSION_END: SESSION_END,
    "SessionEnd": SESSION_END,
    "sessionEnd": SESSION_END,
    "session_end": SESSION_END,
    "Stop": SESSION_END,
    "stop": SESSION_END,
    "session.idle": SESSION_END,
}

ASSISTANTS = ("claude-code", "codex-cli", "gemini-cli", "cursor", "opencode", "aider", "antigravity")
_JSON_SHAPE = {
    "claude-code": {SESSION_START: "SessionStart", PROMPT_SUBMIT: "UserPromptSubmit"},
    "codex-cli": {SESSION_START: "SessionStart", PROMPT_SUBMIT: "UserPromptSubmit"},
    "gemini-cli": {SESSION_START: "SessionStart", PROMPT_SUBMIT: "BeforeAgent"},
}


#: assistants whose session-end hook answers JSON
_JSON_ONLY = ("codex-cli", "gemini-cli")


def event_name(value: str) -> str:
    """The event ``value`` names (its own name or an assistant's)."""
    event = ALIASES.get(value)
    if event is None:
        raise MemError(f"unknown hook event '{value}' (expected {' | '.join(EVENTS)} or an assistant's event name)")
    return event


def assistant_name(value: str | None) -> str:
    if value not in ASSISTANTS:
        raise MemError(f"--assistant must be one of {', '.join(ASSISTANTS)} (got {value!r})")
    return value  # type: ignore[return-value]


#: Gemini CLI's headless run puts the SessionStart hook's context before the prompt, as
#: ``<hook_context>…</hook_context>\n\n<prompt>``, and BeforeAgent receives that; the
#: context's ``<`` and ``>`` are escaped (``&lt;``), so its first ``</hook_context>`` ends it
_GEMINI_HOOK_CONTEXT = re.compile(r"\A(?:\s*<hook_context>.*?</hook_context>)+\s*", re.DOTALL)


def user_prompt(assistant: str, prompt: str) -> str:
    """What the user typed, from a prompt-submit hook's ``prompt``: without the
    hook context an assistant put before it (Gemini CLI's ``<hook_context>``)."""
    if assistant == "gemini-cli":
        return _GEMINI_HOOK_CONTEXT.sub("", prompt, count=1)
    return prompt


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render(assistant: str, event: str, text: str) -> str:
    """What ``assistant`` reads on stdout for ``event`` given ``text`` (the
    brief or the prompt's recall); ``""`` for nothing at all."""
    if event == SESSION_END:
        # Codex CLI's Stop hook and Gemini CLI's hooks read JSON: an empty object says nothing
        return "{}" if assistant in _JSON_ONLY else ""
    if assistant == "cursor":
        if event == PROMPT_SUBMIT:
            return _json({"continue": True})
        return _json({"additional_context": text}) if text else ""
    if not text:
        return ""
    shape = _JSON_SHAPE.get(assistant)
    if shape is not None:
        return _json({"hookSpecificOutput": {"hookEventName": shape[event], "additionalContext": text}})
    return text
