"""The tools of ``mem mcp``: their JSON schemas, annotations, and the one
``mem_core`` API call each one makes.

Plain data and plain functions (no MCP SDK import), so that tests and
documentation can read the definitions without starting a server. Each
tool's structured result is the ``to_json()`` of the API's result object —
what the command prints with ``--json``.

Nothing a human must do is a tool: there is no ``verify``, ``remember``
has no ``as_user``, and ``forget`` never asks for a confirmation (a memory a
human confirmed is refused with the API's own message). The project is the
server's; no tool takes a directory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mem_core.memories.kinds import CATEGORIES, PRIORITIES, SOURCES, VERIFICATIONS

if TYPE_CHECKING:
    from mem_core.kernel import Kernel

__all__ = ["Tool", "ToolContext", "TOOLS", "tool_names", "INSTRUCTIONS"]

#: what the server tells a client at the handshake
INSTRUCTIONS = (
    "Memory of this project (mem). Call `recall` before a task and when the project may already have "
    "decided or learned something about it; `write` a journal event when a task ends; `remember` a durable "
    "fact, preference or mistake; `brief` for what to know at the start of a session; `memories` and "
    "`context` to read structured memories. Confirming a memory "
    "(`mem verify`) or storing one as the user (`--as-user`) is for the human, on a terminal."
)

OUTCOMES = ["success", "failure", "partial", "abandoned"]


@dataclass(frozen=True)
class ToolContext:
    """What every tool call gets: the server's fixed project, its portfolio
    brain (``--portfolio``, if any) and its one kernel."""

    project: str
    kernel: Kernel
    portfolio: str | None = None


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its schemas, its annotations and the call it makes."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    run: Callable[[ToolContext, dict[str, Any]], Any]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    #: changes files under the project: calls are serialised within the server
    writes: bool = False

    def annotations(self) -> dict[str, Any]:
        """The MCP tool annotations (hints for the client)."""
        hints: dict[str, Any] = {"title": self.title, "readOnlyHint": self.read_only, "openWorldHint": False}
        if not self.read_only:
            hints["destructiveHint"] = self.destructive
            hints["idempotentHint"] = self.idempotent
        return hints


# -- schema pieces ------------------------------------------------------------


def _obj(properties: dict[str, Any], required: tuple[str, ...] = (), *, closed: bool = True) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _strs(description: str | None = None) -> dict[str, Any]:
    """An array of strings."""
    schema: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if description is not None:
        schema["description"] = description
    return schema


_NULLABLE_STR = {"type": ["string", "null"]}

MIND = _str("The mind (memory namespace) to use. Default: default.")
USER = {
    "type": "boolean",
    "description": "Use the user-level store (memories about the user that hold across projects) "
    "instead of this project's.",
}
LIMIT = {"type": "integer", "minimum": 0, "description": "At most this many."}

SIGNALS_IN: dict[str, Any] = {
    "eval": {"type": ["number", "string"], "description": "Reward signal: eval suite score in [0,1] (weight 0.5)."},
    "accept": {
        "type": ["boolean", "number", "string"],
        "description": "Reward signal: whether the work was accepted: true | false, or a number in [0,1] (weight 0.3).",
    },
    "ci": {
        "type": ["number", "string"],
        "description": "Reward signal: CI result: pass | fail, or [0,1] (weight 0.2).",
    },
    "signals": {
        "type": "object",
        "additionalProperties": {"type": ["string", "number", "boolean"]},
        "description": "Reward signals of plugins, by signal name (see `mem plugins`).",
    },
}

EVENT = _obj(
    {
        "ts": {"type": "string", "description": "When (ISO-8601, UTC)."},
        "agent": {"type": "string"},
        "cli": _NULLABLE_STR,
        "model": _NULLABLE_STR,
        "task": _NULLABLE_STR,
        "outcome": _NULLABLE_STR,
        "signals": {"type": "object", "description": "The reward signals recorded."},
        "artifactHashes": {"type": "array"},
        "id": {"type": "string", "description": "The event id."},
    },
    ("ts", "agent", "id"),
    closed=False,
)

MEMORY = _obj(
    {
        "id": {"type": "string", "description": "mem_…"},
        "category": {"type": "string", "enum": list(CATEGORIES)},
        "key": {"type": "string"},
        "content": {"type": "string"},
        "tags": _strs(),
        "priority": {"type": "string", "enum": list(PRIORITIES[::-1])},
        "source": {"type": "string", "enum": list(SOURCES)},
        "verified": {"type": "boolean", "description": "A human's signature covers its current content."},
        "verification": {
            "type": "string",
            "enum": list(VERIFICATIONS),
            "description": "How verified was decided: a trusted human key's signature, a terminal confirmation "
            "(where no key is trusted), a signature that no longer checks, or none.",
        },
        "confidence": {"type": "number"},
        "expires_at": _NULLABLE_STR,
        "mind_id": {"type": "string"},
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
    },
    ("id", "category", "key", "content", "tags", "priority", "source", "verified", "mind_id"),
    closed=False,
)

SCORE = {"type": ["object", "null"], "description": "A pattern score: elo, alpha, beta, mean, updates, lastTs."}


# -- helpers --------------------------------------------------------------------


def _text(value: Any) -> str:
    """An argument as the CLI would have received it on its command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        from mem_core.js.jsonfmt import js_number

        return js_number(value)
    return str(value)


def _signals(args: dict[str, Any]) -> dict[str, str]:
    given = {name: _text(args[name]) for name in ("eval", "accept", "ci") if args.get(name) is not None}
    for name, value in (args.get("signals") or {}).items():
        given[name] = _text(value)
    return given


def _optional(args: dict[str, Any], name: str) -> str | None:
    value = args.get(name)
    return None if value is None else _text(value)


# -- the tools ------------------------------------------------------------------


def _recall(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import recall

    context_scope = args.get("context_scope")
    return recall(
        args["query"],
        directory=ctx.project,
        scope=args.get("scope"),
        portfolio=ctx.portfolio,
        limit=args.get("limit"),
        ranking=args.get("ranking"),
        context_scope=list(context_scope) if context_scope is not None else None,
        kernel=ctx.kernel,
    )


def _write(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import write

    return write(
        agent=args.get("agent"),
        directory=ctx.project,
        cli=args.get("cli"),
        model=args.get("model"),
        task=args.get("task"),
        outcome=args.get("outcome"),
        signals=_signals(args),
        kernel=ctx.kernel,
    )


def _reinforce(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import reinforce

    evidence = args.get("evidence")
    return reinforce(
        args.get("pattern"),
        directory=ctx.project,
        signals=_signals(args),
        evidence=list(evidence) if evidence is not None else None,
        kernel=ctx.kernel,
    )


def _observe(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import observe

    return observe(args.get("input"), directory=ctx.project, kernel=ctx.kernel)


def _outcomes(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import outcomes

    return outcomes(directory=ctx.project, kernel=ctx.kernel)


def _remember(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import remember

    return remember(
        args["category"],
        args["key"],
        args["content"],
        tags=args.get("tags"),
        priority=args.get("priority"),
        confidence=_optional(args, "confidence"),
        expires=args.get("expires"),
        mind=args.get("mind"),
        user=bool(args.get("user")),
        as_user=False,
        interactive=False,
        directory=ctx.project,
        kernel=ctx.kernel,
    )


def _memories(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import expiring_memories, list_memories, search_memories

    options: dict[str, Any] = {
        "category": args.get("category"),
        "tag": args.get("tag"),
        "include_expired": bool(args.get("include_expired")),
        "source": args.get("source"),
        "priority": args.get("priority"),
        "verified": False if args.get("unverified") else None,
        "mind": args.get("mind"),
        "user": bool(args.get("user")),
        "limit": args.get("limit"),
        "directory": ctx.project,
        "kernel": ctx.kernel,
    }
    search, expiring = args.get("search"), args.get("expiring")
    if search is not None and expiring is None:
        return search_memories(search, **options)
    if expiring is not None and search is None:
        return expiring_memories(expiring, **options)
    return list_memories(search=search, expiring=expiring, **options)


def _forget(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import forget

    return forget(
        args["ref"],
        mind=args.get("mind"),
        user=bool(args.get("user")),
        directory=ctx.project,
        kernel=ctx.kernel,
        interactive=False,  # a memory a human confirmed is the human's to forget
    )


def _context(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core import context_summary

    return context_summary(
        mind=args.get("mind"),
        user=bool(args.get("user")),
        limit=args.get("limit"),
        directory=ctx.project,
        kernel=ctx.kernel,
    )


def _brief(ctx: ToolContext, args: dict[str, Any]) -> Any:
    from mem_core.api.brief import brief

    return brief(directory=ctx.project, budget=args.get("budget"), kernel=ctx.kernel)


_MEMORIES_LIST = _obj(
    {
        "count": {"type": "integer"},
        "memories": {"type": "array", "items": MEMORY},
    },
    ("count", "memories"),
    closed=False,
)

TOOLS: tuple[Tool, ...] = (
    Tool(
        name="recall",
        title="Recall project memory",
        description=(
            "Ranked search over this project's memory: the journal of past work, the Markdown notes "
            "(decisions, lessons, patterns) and the structured memories. Call it before starting a task "
            "and whenever the project may already have decided or learned something about it."
        ),
        input_schema=_obj(
            {
                "query": _str("Words to look for.", minLength=1),
                "limit": {**LIMIT, "description": "How many results to keep. Default: 8."},
                "ranking": _str(
                    "lexical (default, or the recall_ranking setting) | bm25 (accents, stems, CJK) | evidence | "
                    "a plugin's ranker (see `mem plugins`)."
                ),
                "scope": {
                    "type": "string",
                    "enum": ["project", "portfolio"],
                    "description": "project (default) | portfolio: also the portfolio brain the server was "
                    "started with (`mem mcp --portfolio`).",
                },
                "context_scope": _strs("Project paths the question is about (evidence ranking)."),
            },
            ("query",),
        ),
        output_schema=_obj(
            {
                "query": {"type": "string"},
                "scope": {"type": "string"},
                "ranking": {"type": "string"},
                "count": {"type": "integer"},
                "results": {
                    "type": "array",
                    "items": _obj(
                        {
                            "score": {"type": "number"},
                            "kind": {"type": "string", "description": "event | decision | lesson | pattern | memory …"},
                            "source": {"type": "string", "description": "Where it was found (a file, memories …)."},
                            "ref": {"type": "string", "description": "The event id, section heading or memory ref."},
                            "text": {"type": "string"},
                        },
                        ("score", "kind", "source", "ref", "text"),
                        closed=False,
                    ),
                },
                "skipped": {"type": "array", "items": {"type": "object"}},
            },
            ("query", "scope", "ranking", "count", "results"),
            closed=False,
        ),
        run=_recall,
        read_only=True,
    ),
    Tool(
        name="write",
        title="Journal an event",
        description=(
            "Append one event to the project's journal (.bmad/memory/journal.ndjson): what was attempted, "
            "by which agent, and how it went, with optional reward signals. Call it when a task ends."
        ),
        input_schema=_obj(
            {
                "agent": _str("The agent that did the work (its name)."),
                "cli": _str(
                    "The assistant driving it: claude-code, codex-cli, gemini-cli, cursor, opencode, aider, antigravity …"
                ),
                "model": _str("The model id, recorded as is."),
                "task": _str("What was attempted."),
                "outcome": {"type": "string", "enum": OUTCOMES, "description": "How it went."},
                **SIGNALS_IN,
            },
            ("agent",),
        ),
        output_schema=_obj({"written": EVENT}, ("written",)),
        run=_write,
        writes=True,
    ),
    Tool(
        name="reinforce",
        title="Reinforce a pattern",
        description=(
            "Fold reward signals into the score of a pattern of patterns.md; a pattern that keeps earning "
            "reward is proposed for promotion (a human approves it). Self-reported: it never counts as evidence."
        ),
        input_schema=_obj(
            {
                "pattern": _str("The pattern id: its heading in patterns.md.", minLength=1),
                "evidence": _strs("Journal event ids backing the reward (copied into a promotion)."),
                **SIGNALS_IN,
            },
            ("pattern",),
        ),
        output_schema=_obj(
            {
                "patternId": {"type": "string"},
                "reward": {"type": "number"},
                "previous": SCORE,
                "next": SCORE,
                "promotion": {"type": ["object", "null"], "description": "The PROPOSED promotion, if any."},
                "evidenceStatus": {"type": "string"},
                "rankingEligible": {"type": "boolean"},
            },
            ("patternId", "reward", "next", "promotion"),
            closed=False,
        ),
        run=_reinforce,
        writes=True,
    ),
    Tool(
        name="observe",
        title="Bind a lesson to verified work",
        description=(
            "Record an evidence receipt: accepted work, verified independently (a Nexus run, a JUnit report …), "
            "backs one section of the notes. `input` names a JSON file in the project describing the work, "
            "the section (memory: {file, heading}), the scope and the interpretation."
        ),
        input_schema=_obj(
            {"input": _str("Project-relative path of the observation JSON file.", minLength=1)},
            ("input",),
        ),
        output_schema=_obj(
            {"written": {"type": "object", "description": "The receipt appended to outcomes.ndjson."}},
            ("written",),
        ),
        run=_observe,
        writes=True,
    ),
    Tool(
        name="outcomes",
        title="List evidence receipts",
        description="Every evidence receipt of the project and whether it is still eligible evidence (and why not).",
        input_schema=_obj({}),
        output_schema=_obj(
            {"count": {"type": "integer"}, "results": {"type": "array", "items": {"type": "object"}}},
            ("count", "results"),
        ),
        run=_outcomes,
        read_only=True,
    ),
    Tool(
        name="remember",
        title="Store a structured memory",
        description=(
            "Store a structured memory (a fact, preference, mistake …), or update the one with the same "
            "category and key. It is stored as said by an agent, unverified: only the user can confirm it "
            "(`mem verify` on a terminal)."
        ),
        input_schema=_obj(
            {
                "category": {"type": "string", "enum": list(CATEGORIES), "description": "What kind of memory."},
                "key": _str(
                    "Stable snake_case key, unique within (mind, category); storing it again updates.",
                    pattern="^[a-z0-9_]+$",
                    maxLength=128,
                ),
                "content": _str("The memory.", minLength=1),
                "tags": _strs("Tags (stored lower-case)."),
                "priority": {"type": "string", "enum": list(PRIORITIES[::-1]), "description": "Default: normal."},
                "confidence": {"type": "number", "description": "0 to 1. Default: 0.7."},
                "expires": _str("When it expires: an ISO-8601 date or time, or a duration like 7d, 12h, 30m."),
                "mind": MIND,
                "user": USER,
            },
            ("category", "key", "content"),
        ),
        output_schema=_obj({"memory": MEMORY, "created": {"type": "boolean"}}, ("memory", "created")),
        run=_remember,
        writes=True,
        idempotent=True,
    ),
    Tool(
        name="memories",
        title="List or search structured memories",
        description=(
            "List the structured memories of a mind, filtered; with `search`, full-text search (every word "
            "must match), best first; with `expiring` (7d, 12h …), those expiring within it, soonest first."
        ),
        input_schema=_obj(
            {
                "search": _str("Full-text search over key, content and tags.", minLength=1),
                "expiring": _str("Only those expiring within this duration (7d, 12h, 30m), expired ones included."),
                "category": {"type": "string", "enum": list(CATEGORIES), "description": "Only this category."},
                "tag": _str("Only memories with this tag (case-insensitive)."),
                "include_expired": {"type": "boolean", "description": "Also list expired memories."},
                "source": {"type": "string", "enum": list(SOURCES), "description": "Only those stored by them."},
                "priority": {"type": "string", "enum": list(PRIORITIES[::-1]), "description": "Only this priority."},
                "unverified": {"type": "boolean", "description": "Only memories no human has verified yet."},
                "mind": MIND,
                "user": USER,
                "limit": LIMIT,
            }
        ),
        output_schema=_MEMORIES_LIST,
        run=_memories,
        read_only=True,
    ),
    Tool(
        name="forget",
        title="Forget a structured memory",
        description=(
            "Delete a structured memory an agent stored (its history keeps a tombstone). A memory the user "
            "confirmed is refused: only the user can forget it, on a terminal."
        ),
        input_schema=_obj(
            {
                "ref": _str("The memory: its id (mem_…) or <category>/<key>.", minLength=1),
                "mind": MIND,
                "user": USER,
            },
            ("ref",),
        ),
        output_schema=_obj({"forgotten": MEMORY}, ("forgotten",)),
        run=_forget,
        writes=True,
        destructive=True,
    ),
    Tool(
        name="context",
        title="Context summary of a mind",
        description=(
            "The structured memories of a mind as plain text for your context, critical first, expired ones "
            "left out, with the counts."
        ),
        input_schema=_obj(
            {
                "mind": MIND,
                "user": USER,
                "limit": {**LIMIT, "description": "Show at most this many memories (the counts stay totals)."},
            }
        ),
        output_schema=_obj(
            {
                "mind": {"type": "string"},
                "total": {"type": "integer"},
                "verified": {"type": "integer"},
                "unverified": {"type": "integer"},
                "memories": {"type": "array", "items": MEMORY},
                "text": {"type": "string", "description": "The summary as plain text."},
            },
            ("mind", "total", "verified", "unverified", "memories", "text"),
        ),
        run=_context,
        read_only=True,
    ),
    Tool(
        name="brief",
        title="Session brief",
        description=(
            "What to know at the start of a session, within a token budget: the critical and high structured "
            "memories (each verified or unverified), the headings of the decisions, lessons and patterns, the "
            "recent failures and the proposed promotions. `recall` reads the text behind a heading."
        ),
        input_schema=_obj(
            {
                "budget": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "At most this many tokens (estimated). Default: the context_budget setting, 1500.",
                }
            }
        ),
        output_schema=_obj(
            {
                "project": {"type": "string"},
                "budget": {"type": "integer"},
                "tokens": {"type": "integer", "description": "The estimated tokens of text."},
                "sections": {"type": "array", "items": {"type": "object"}},
                "omitted": {"type": "integer", "description": "How many items did not fit."},
                "text": {"type": "string", "description": "The brief as plain text."},
            },
            ("project", "budget", "tokens", "sections", "omitted", "text"),
            closed=False,
        ),
        run=_brief,
        read_only=True,
    ),
)


def tool_names() -> list[str]:
    return [tool.name for tool in TOOLS]
