"""A fake model server on 127.0.0.1 for the assistants' end-to-end tests.

It speaks the four dialects the assistants use, each with and without streaming:

- Anthropic Messages: ``POST /v1/messages`` (SSE when ``"stream": true``) and
  ``POST /v1/messages/count_tokens``;
- OpenAI Responses: ``POST /v1/responses`` (SSE when ``"stream": true``);
- OpenAI chat completions: ``POST /v1/chat/completions`` (SSE chunks ending in
  ``data: [DONE]`` when ``"stream": true``);
- Gemini: ``POST …/models/M:generateContent`` and
  ``…/models/M:streamGenerateContent?alt=sse``. A request whose
  ``generationConfig`` asks for JSON with a schema (Gemini CLI's model router,
  which wants ``complexity_reasoning``/``complexity_score``) gets an object
  built from that schema.

Every request is recorded (:class:`Recorded`: method, path, query, lower-cased
headers, JSON body); unknown paths answer 404 and are recorded too.

What the model answers is decided per request by :meth:`FakeModel.respond`:

1. if the conversation already holds a tool result, a text that quotes the
   newest one: ``"<reply_text> [tool result: <text>]"``;
2. else, if a tool call was scripted with :meth:`FakeModel.call_tool` and the
   request offers a tool whose name contains the scripted name, a call to that
   tool with the scripted arguments (each assistant prefixes MCP tools in its
   own way: ``mcp__mem__recall``, ``mcp_mem_recall``, ``mem_recall``, or a
   namespace ``mcp__mem`` holding ``recall``);
3. else ``reply_text``.

Helpers read the recorded traffic in every dialect: :meth:`FakeModel.texts`
(all text of all requests: system, messages, input items, parts),
:meth:`FakeModel.tool_names` (every tool definition offered) and
:meth:`FakeModel.tool_results` (every tool result sent back).

Use it as a context manager, or through the ``fake_model`` fixture of
``tests/assistants/conftest.py``::

    with FakeModel() as fake:
        fake.call_tool("recall", {"query": "auth"})
        ...  # point an assistant at fake.url
        assert "MARKER" in "\\n".join(fake.texts())
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeModel", "Recorded", "Text", "ToolCall", "Json"]

DEFAULT_REPLY = "FAKE-MODEL-REPLY-7f3a"


# --- what the model answers -------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str  # the full name as offered (for a namespaced tool: the function's name)
    args: dict[str, Any]
    namespace: str | None = None  # OpenAI Responses namespaces (Codex: "mcp__mem")


@dataclass(frozen=True)
class Json:
    value: Any


Reply = Text | ToolCall | Json


# --- what was asked ---------------------------------------------------------------------


@dataclass
class Recorded:
    """One request as the server received it."""

    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None when the body was empty or not JSON
    raw: bytes = b""
    status: int = 0  # the status answered
    dialect: str | None = None  # "anthropic", "responses", "chat", "gemini" or None
    target: str = ""  # the request target as sent (a proxied request has "host:443" or "http://host/…")

    @property
    def escaped(self) -> bool:
        """A request meant for another host, sent here because HTTP(S)_PROXY points at the fake model."""
        return self.method == "CONNECT" or self.target.startswith(("http://", "https://"))

    def texts(self) -> list[str]:
        return _texts(self.dialect, self.body)

    def tool_names(self) -> list[str]:
        return [t.full_name for t in _tools(self.dialect, self.body)]

    def tool_results(self) -> list[str]:
        return _tool_results(self.dialect, self.body)


@dataclass(frozen=True)
class _Tool:
    name: str
    namespace: str | None = None

    @property
    def full_name(self) -> str:
        if self.namespace is None:
            return self.name
        sep = "" if self.namespace.endswith(("_", ".", "/")) else "__"
        return f"{self.namespace}{sep}{self.name}"


_META_KEYS = frozenset({"type", "id", "name", "call_id", "tool_use_id", "mimeType", "mime_type", "annotations"})


def _result_strings(value: Any) -> Iterator[str]:
    """The text of a tool result: string leaves, a part's ``text``, never metadata such as ``type``."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _result_strings(v)
    elif isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
            return
        for k, v in value.items():
            if k not in _META_KEYS:
                yield from _result_strings(v)


def _content_texts(content: Any) -> Iterator[str]:
    """Text of a message's content: a string, or a list of typed parts."""
    if isinstance(content, str):
        yield content
        return
    if not isinstance(content, list):
        return
    for part in content:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                yield part["text"]
            elif part.get("type") in ("tool_result", "function_call_output"):
                yield from _result_strings(part.get("content", part.get("output")))


def _texts(dialect: str | None, body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    out: list[str] = []
    if dialect == "anthropic":
        out.extend(_content_texts(body.get("system")))
        for msg in body.get("messages") or []:
            if isinstance(msg, dict):
                out.extend(_content_texts(msg.get("content")))
    elif dialect == "responses":
        if isinstance(body.get("instructions"), str):
            out.append(body["instructions"])
        items = body.get("input")
        if isinstance(items, str):
            out.append(items)
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "function_call_output":
                out.extend(_result_strings(item.get("output")))
            elif item.get("type") in (None, "message"):
                out.extend(_content_texts(item.get("content")))
    elif dialect == "chat":
        for msg in body.get("messages") or []:
            if isinstance(msg, dict):
                out.extend(_content_texts(msg.get("content")))
    elif dialect == "gemini":
        system = body.get("systemInstruction") or body.get("system_instruction")
        contents = list(body.get("contents") or [])
        if isinstance(system, dict):
            contents.insert(0, system)
        for content in contents:
            for part in content.get("parts") or [] if isinstance(content, dict) else []:
                if isinstance(part, dict):
                    if isinstance(part.get("text"), str):
                        out.append(part["text"])
                    elif "functionResponse" in part:
                        out.extend(_result_strings(part["functionResponse"].get("response")))
    return out


def _tools(dialect: str | None, body: Any) -> list[_Tool]:
    if not isinstance(body, dict):
        return []
    out: list[_Tool] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if dialect == "gemini":
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                    out.append(_Tool(decl["name"]))
        elif dialect == "chat" and isinstance(tool.get("function"), dict):
            out.append(_Tool(str(tool["function"].get("name"))))
        elif tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            for sub in tool["tools"]:
                if isinstance(sub, dict) and isinstance(sub.get("name"), str):
                    out.append(_Tool(sub["name"], str(tool.get("name"))))
        elif isinstance(tool.get("name"), str):
            out.append(_Tool(tool["name"]))
    return out


def _tool_results(dialect: str | None, body: Any) -> list[str]:
    """The text of each tool result in the request, oldest first."""
    if not isinstance(body, dict):
        return []
    out: list[str] = []
    if dialect == "anthropic":
        for msg in body.get("messages") or []:
            content = msg.get("content") if isinstance(msg, dict) else None
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    out.append("\n".join(_result_strings(part.get("content"))))
    elif dialect == "responses":
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                out.append("\n".join(_result_strings(item.get("output"))))
    elif dialect == "chat":
        for msg in body.get("messages") or []:
            if isinstance(msg, dict) and msg.get("role") == "tool":
                out.append("\n".join(_content_texts(msg.get("content"))))
    elif dialect == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or [] if isinstance(content, dict) else []:
                if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                    out.append("\n".join(_result_strings(part["functionResponse"].get("response"))))
    return out


def _from_schema(schema: Any) -> Any:
    """A small value that satisfies a JSON schema (OpenAPI-style upper-case types too)."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    kind = str(kind).lower() if kind is not None else ("object" if "properties" in schema else "string")
    if kind == "object":
        return {name: _from_schema(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_from_schema(schema.get("items"))] if schema.get("minItems") else []
    if kind in ("integer", "number"):
        low = schema.get("minimum", 1)
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "fake"


# --- the server -------------------------------------------------------------------------


class FakeModel:
    """A threaded HTTP server on 127.0.0.1 that answers like a model and records every request."""

    def __init__(self, reply_text: str = DEFAULT_REPLY, host: str = "127.0.0.1", port: int = 0) -> None:
        self.reply_text = reply_text
        self.requests: list[Recorded] = []
        self._tool_script: tuple[str, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer((host, port), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # lifecycle
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash, no ``/v1``)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeModel:
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fake-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # scripting
    def call_tool(self, name_contains: str, args: dict[str, Any] | None = None) -> None:
        """Answer requests that offer a tool whose name contains ``name_contains`` with a call to it."""
        self._tool_script = (name_contains, dict(args or {}))

    def respond(self, rec: Recorded) -> Reply:
        """What to answer to ``rec`` (see the module's docstring). Override or replace to script more."""
        results = rec.tool_results()
        if results:
            return Text(f"{self.reply_text} [tool result: {results[-1]}]")
        if self._tool_script is not None:
            wanted, args = self._tool_script
            for tool in _tools(rec.dialect, rec.body):
                if wanted in tool.full_name:
                    return ToolCall(tool.name, args, tool.namespace)
        return Text(self.reply_text)

    # reading the traffic
    def texts(self) -> list[str]:
        """All text of all recorded requests, flattened."""
        return [t for rec in self.snapshot() for t in rec.texts()]

    def tool_names(self) -> list[str]:
        """Every tool definition name offered, in every request (namespaced: ``namespace__name``)."""
        return [n for rec in self.snapshot() for n in rec.tool_names()]

    def tool_results(self) -> list[str]:
        """The text of every tool result sent back, in every request."""
        return [r for rec in self.snapshot() for r in rec.tool_results()]

    def escapes(self) -> list[str]:
        """Requests for other hosts that reached the fake model through HTTP(S)_PROXY (should be none)."""
        return [f"{rec.method} {rec.target}" for rec in self.snapshot() if rec.escaped]

    def paths(self) -> list[str]:
        return [rec.path for rec in self.snapshot()]

    def snapshot(self) -> list[Recorded]:
        with self._lock:
            return list(self.requests)

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> bool:
        """Poll until ``predicate(self)`` is true (for assertions on traffic from a background process)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            time.sleep(0.05)
        return bool(predicate(self))

    def _record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):04d}"


def _dialect(method: str, path: str) -> str | None:
    if method != "POST":
        return None
    if path.endswith("/messages") or path.endswith("/messages/count_tokens"):
        return "anthropic"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith(":generateContent") or path.endswith(":streamGenerateContent") or path.endswith(":countTokens"):
        return "gemini"
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    @property
    def fake(self) -> FakeModel:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    # body -------------------------------------------------------------
    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        try:
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
            elif encoding == "zstd":
                import zstandard  # type: ignore[import-not-found]

                raw = zstandard.ZstdDecompressor().decompress(raw, max_output_size=64 << 20)
        except Exception:  # keep the raw bytes; the body stays None
            pass
        return raw

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        raw = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        rec = Recorded(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=raw,
            dialect=_dialect(self.command, parts.path),
            target=self.path,
        )
        self.fake._record(rec)
        try:
            self._answer(rec)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_CONNECT = _handle  # noqa: N815

    # answers ----------------------------------------------------------
    def _send_json(self, rec: Recorded, value: Any, status: int = 200) -> None:
        data = json.dumps(value).encode()
        rec.status = status
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self, rec: Recorded) -> None:
        rec.status = 200
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _event(self, data: Any, event: str | None = None) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        self._chunk((f"event: {event}\n" if event else "").encode() + f"data: {text}\n\n".encode())

    def _end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _answer(self, rec: Recorded) -> None:
        body = rec.body if isinstance(rec.body, dict) else None
        if rec.escaped:  # refuse to be a proxy: the connection fails for the client
            rec.status = 403
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return
        if rec.dialect is None or body is None:
            self._send_json(rec, {"error": {"message": f"fake model: no route for {rec.method} {rec.path}"}}, 404)
            return
        if rec.path.endswith("/count_tokens") or rec.path.endswith(":countTokens"):
            tokens = max(1, sum(len(t) for t in rec.texts()) // 4)
            self._send_json(rec, {"input_tokens": tokens} if rec.dialect == "anthropic" else {"totalTokens": tokens})
            return
        if rec.dialect == "gemini":
            cfg = body.get("generationConfig") or {}
            schema = cfg.get("responseJsonSchema") or cfg.get("responseSchema")
            reply: Reply = Json(_from_schema(schema)) if schema else self.fake.respond(rec)
        else:
            reply = self.fake.respond(rec)
        getattr(self, f"_answer_{rec.dialect}")(rec, body, reply)

    # Anthropic Messages
    def _answer_anthropic(self, rec: Recorded, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model", "fake"))
        msg_id = self.fake._next_id("msg")
        if isinstance(reply, ToolCall):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": self.fake._next_id("toolu"),
                "name": reply.name,
                "input": {},
            }
            stop = "tool_use"
        else:
            text = reply.text if isinstance(reply, Text) else json.dumps(reply.value)
            block = {"type": "text", "text": text}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            final = dict(block, input=reply.args) if isinstance(reply, ToolCall) else block
            self._send_json(
                rec,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [final],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        self._start_sse(rec)
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": dict(usage, output_tokens=1),
        }
        self._event({"type": "message_start", "message": message}, "message_start")
        start = dict(block, text="") if block["type"] == "text" else block
        self._event({"type": "content_block_start", "index": 0, "content_block": start}, "content_block_start")
        if isinstance(reply, ToolCall):
            delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.args)}
        else:
            delta = {"type": "text_delta", "text": block["text"]}
        self._event({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        self._event({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self._event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
            "message_delta",
        )
        self._event({"type": "message_stop"}, "message_stop")
        self._end_sse()

    # OpenAI Responses
    def _answer_responses(self, rec: Recorded, body: dict[str, Any], reply: Reply) -> None:
        resp_id = self.fake._next_id("resp")
        item_id = self.fake._next_id("item")
        if isinstance(reply, ToolCall):
            item: dict[str, Any] = {
                "type": "function_call",
                "id": item_id,
                "call_id": self.fake._next_id("call"),
                "name": reply.name,
                "arguments": json.dumps(reply.args),
                "status": "completed",
            }
            if reply.namespace is not None:
                item["namespace"] = reply.namespace
        else:
            text = reply.text if isinstance(reply, Text) else json.dumps(reply.value)
            item = {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        response = {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "model": body.get("model", "fake"),
            "status": "completed",
            "output": [item],
            "usage": usage,
        }
        if not body.get("stream"):
            self._send_json(rec, response)
            return
        self._start_sse(rec)
        seq = itertools.count()
        pending = dict(response, status="in_progress", output=[], usage=None)
        self._event({"type": "response.created", "sequence_number": next(seq), "response": pending}, "response.created")
        self._event(
            {"type": "response.in_progress", "sequence_number": next(seq), "response": pending}, "response.in_progress"
        )
        if item["type"] == "message":
            opened = dict(item, status="in_progress", content=[])
            text = item["content"][0]["text"]
            self._event(
                {"type": "response.output_item.added", "sequence_number": next(seq), "output_index": 0, "item": opened},
                "response.output_item.added",
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            common = {"item_id": item_id, "output_index": 0, "content_index": 0}
            self._event(
                {"type": "response.content_part.added", "sequence_number": next(seq), **common, "part": part},
                "response.content_part.added",
            )
            self._event(
                {"type": "response.output_text.delta", "sequence_number": next(seq), **common, "delta": text},
                "response.output_text.delta",
            )
            self._event(
                {"type": "response.output_text.done", "sequence_number": next(seq), **common, "text": text},
                "response.output_text.done",
            )
            self._event(
                {
                    "type": "response.content_part.done",
                    "sequence_number": next(seq),
                    **common,
                    "part": item["content"][0],
                },
                "response.content_part.done",
            )
        else:
            self._event(
                {
                    "type": "response.output_item.added",
                    "sequence_number": next(seq),
                    "output_index": 0,
                    "item": dict(item, status="in_progress", arguments=""),
                },
                "response.output_item.added",
            )
            self._event(
                {
                    "type": "response.function_call_arguments.delta",
                    "sequence_number": next(seq),
                    "item_id": item_id,
                    "output_index": 0,
                    "delta": item["arguments"],
                },
                "response.function_call_arguments.delta",
            )
            self._event(
                {
                    "type": "response.function_call_arguments.done",
                    "sequence_number": next(seq),
                    "item_id": item_id,
                    "output_index": 0,
                    "arguments": item["arguments"],
                },
                "response.function_call_arguments.done",
            )
        self._event(
            {"type": "response.output_item.done", "sequence_number": next(seq), "output_index": 0, "item": item},
            "response.output_item.done",
        )
        self._event(
            {"type": "response.completed", "sequence_number": next(seq), "response": response}, "response.completed"
        )
        self._end_sse()

    # OpenAI chat completions
    def _answer_chat(self, rec: Recorded, body: dict[str, Any], reply: Reply) -> None:
        chat_id = self.fake._next_id("chatcmpl")
        model = body.get("model", "fake")
        created = int(time.time())
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if isinstance(reply, ToolCall):
            call = {
                "id": self.fake._next_id("call"),
                "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(reply.args)},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            text = reply.text if isinstance(reply, Text) else json.dumps(reply.value)
            message = {"role": "assistant", "content": text}
            finish = "stop"
        if not body.get("stream"):
            self._send_json(
                rec,
                {
                    "id": chat_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
            return
        self._start_sse(rec)

        def chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
            return {
                "id": chat_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [choice],
            }

        if isinstance(reply, ToolCall):
            self._event(chunk({"role": "assistant", "content": None, "tool_calls": [dict(call, index=0)]}, None))
        else:
            self._event(chunk({"role": "assistant", "content": ""}, None))
            self._event(chunk({"content": message["content"]}, None))
        self._event(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event(
                {
                    "id": chat_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
        self._event("[DONE]")
        self._end_sse()

    # Gemini
    def _answer_gemini(self, rec: Recorded, body: dict[str, Any], reply: Reply) -> None:
        if isinstance(reply, ToolCall):
            part: dict[str, Any] = {"functionCall": {"name": reply.name, "args": reply.args}}
        else:
            part = {"text": reply.text if isinstance(reply, Text) else json.dumps(reply.value)}
        response = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": rec.path.rsplit("/", 1)[-1].split(":")[0],
            "responseId": self.fake._next_id("gem"),
        }
        if rec.path.endswith(":streamGenerateContent"):
            self._start_sse(rec)
            self._chunk(f"data: {json.dumps(response)}\r\n\r\n".encode())
            self._end_sse()
        else:
            self._send_json(rec, response)
