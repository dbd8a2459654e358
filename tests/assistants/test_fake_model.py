"""The fake model server itself: each dialect, streamed and not, recording and scripting."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from fake_model import DEFAULT_REPLY, FakeModel, _from_schema


def post(fake: FakeModel, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, resp.getheader("Content-Type", ""), data


def sse(data: bytes) -> list[tuple[str | None, Any]]:
    """(event, data) pairs of an SSE body; data parsed as JSON unless it is [DONE]."""
    out = []
    for block in data.decode().replace("\r\n", "\n").split("\n\n"):
        event, payload = None, None
        for line in block.splitlines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                payload = line[6:]
        if payload is not None:
            out.append((event, payload if payload == "[DONE]" else json.loads(payload)))
    return out


ANTHROPIC_TOOLS = [
    {"name": "mcp__echo__echo", "input_schema": {"type": "object"}},
    {"name": "Bash", "input_schema": {}},
]


def test_anthropic_streamed_text_and_recording(fake_model: FakeModel) -> None:
    body = {
        "model": "m",
        "stream": True,
        "system": [{"type": "text", "text": "SYS-TEXT"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "USER-TEXT"}]}],
        "tools": ANTHROPIC_TOOLS,
    }
    status, ctype, data = post(fake_model, "/v1/messages?beta=true", body, {"x-api-key": "dummy"})
    assert (status, ctype) == (200, "text/event-stream")
    events = sse(data)
    assert [e for e, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[2][1]["delta"] == {"type": "text_delta", "text": DEFAULT_REPLY}
    (rec,) = fake_model.requests
    assert (rec.path, rec.query, rec.headers["x-api-key"], rec.dialect) == (
        "/v1/messages",
        {"beta": ["true"]},
        "dummy",
        "anthropic",
    )
    assert fake_model.texts() == ["SYS-TEXT", "USER-TEXT"]
    assert fake_model.tool_names() == ["mcp__echo__echo", "Bash"]


def test_anthropic_tool_round_trip(fake_model: FakeModel) -> None:
    fake_model.call_tool("echo", {"text": "hi"})
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}], "tools": ANTHROPIC_TOOLS}
    events = sse(post(fake_model, "/v1/messages", body)[2])
    start = events[1][1]["content_block"]
    assert (start["type"], start["name"]) == ("tool_use", "mcp__echo__echo")
    assert json.loads(events[2][1]["delta"]["partial_json"]) == {"text": "hi"}
    assert events[4][1]["delta"]["stop_reason"] == "tool_use"
    # the assistant sends the result back: the model quotes it
    body["messages"] += [
        {"role": "assistant", "content": [{"type": "tool_use", "id": start["id"], "name": start["name"], "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": start["id"], "content": [{"type": "text", "text": "ECHO:hi"}]}
            ],
        },
    ]
    body["stream"] = False
    status, _, data = post(fake_model, "/v1/messages", body)
    assert status == 200
    assert json.loads(data)["content"][0]["text"] == f"{DEFAULT_REPLY} [tool result: ECHO:hi]"
    assert fake_model.tool_results() == ["ECHO:hi"]
    assert "ECHO:hi" in fake_model.texts()


def test_anthropic_count_tokens(fake_model: FakeModel) -> None:
    status, _, data = post(
        fake_model, "/v1/messages/count_tokens", {"messages": [{"role": "user", "content": "x" * 40}]}
    )
    assert status == 200 and json.loads(data) == {"input_tokens": 10}


def test_responses_streamed_with_namespaced_tool(fake_model: FakeModel) -> None:
    fake_model.call_tool("mcp__mem__recall", {"query": "auth"})
    body = {
        "model": "m",
        "stream": True,
        "instructions": "INSTR",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "AGENTS-TEXT"}]}],
        "tools": [
            {"type": "function", "name": "shell"},
            {"type": "namespace", "name": "mcp__mem", "tools": [{"type": "function", "name": "recall"}]},
        ],
    }
    events = sse(post(fake_model, "/v1/responses", body)[2])
    kinds = [e for e, _ in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    done = next(d for e, d in events if e == "response.output_item.done")["item"]
    assert (done["type"], done["name"], done["namespace"], json.loads(done["arguments"])) == (
        "function_call",
        "recall",
        "mcp__mem",
        {"query": "auth"},
    )
    assert fake_model.tool_names() == ["shell", "mcp__mem__recall"]
    body["input"] += [done, {"type": "function_call_output", "call_id": done["call_id"], "output": "SECTION-TEXT"}]
    events = sse(post(fake_model, "/v1/responses", body)[2])
    deltas = [d["delta"] for e, d in events if e == "response.output_text.delta"]
    assert deltas == [f"{DEFAULT_REPLY} [tool result: SECTION-TEXT]"]
    assert fake_model.tool_results() == ["SECTION-TEXT"]
    assert fake_model.texts()[:2] == ["INSTR", "AGENTS-TEXT"]


def test_responses_plain(fake_model: FakeModel) -> None:
    status, ctype, data = post(fake_model, "/v1/responses", {"model": "m", "input": "hello"})
    assert (status, ctype) == (200, "application/json")
    assert json.loads(data)["output"][0]["content"][0]["text"] == DEFAULT_REPLY
    assert fake_model.texts() == ["hello"]


def test_chat_streamed_tool_call_then_text(fake_model: FakeModel) -> None:
    fake_model.call_tool("echo", {"text": "x"})
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "SYS"},
            {"role": "user", "content": [{"type": "text", "text": "U"}]},
        ],
        "tools": [{"type": "function", "function": {"name": "echo_echo", "parameters": {}}}],
    }
    events = sse(post(fake_model, "/v1/chat/completions", body)[2])
    assert events[-1] == (None, "[DONE]")
    call = events[0][1]["choices"][0]["delta"]["tool_calls"][0]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == ("echo_echo", {"text": "x"})
    assert events[1][1]["choices"][0]["finish_reason"] == "tool_calls"
    assert "usage" in events[2][1]
    body["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "ECHO:x"},
    ]
    body["stream"] = False
    reply = json.loads(post(fake_model, "/v1/chat/completions", body)[2])
    assert reply["choices"][0]["message"]["content"] == f"{DEFAULT_REPLY} [tool result: ECHO:x]"
    assert fake_model.tool_names() == ["echo_echo", "echo_echo"]
    assert fake_model.tool_results() == ["ECHO:x"]


def test_gemini_router_json_and_stream(fake_model: FakeModel) -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"complexity_reasoning": {"type": "STRING"}, "complexity_score": {"type": "INTEGER"}},
        "required": ["complexity_reasoning", "complexity_score"],
    }
    router = {
        "contents": [{"role": "user", "parts": [{"text": "route me"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema},
    }
    status, _, data = post(fake_model, "/v1beta/models/flash-lite:generateContent", router)
    answer = json.loads(json.loads(data)["candidates"][0]["content"]["parts"][0]["text"])
    assert status == 200 and set(answer) == {"complexity_reasoning", "complexity_score"}
    assert isinstance(answer["complexity_score"], int)

    fake_model.call_tool("echo", {"text": "g"})
    body = {
        "systemInstruction": {"parts": [{"text": "GSYS"}]},
        "contents": [{"role": "user", "parts": [{"text": "GEMINI-MD"}]}],
        "tools": [{"functionDeclarations": [{"name": "mcp_echo_echo"}]}],
    }
    events = sse(post(fake_model, "/v1beta/models/pro:streamGenerateContent?alt=sse", body)[2])
    assert events[0][1]["candidates"][0]["content"]["parts"][0]["functionCall"] == {
        "name": "mcp_echo_echo",
        "args": {"text": "g"},
    }
    body["contents"] += [
        {"role": "model", "parts": [{"functionCall": {"name": "mcp_echo_echo", "args": {"text": "g"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "mcp_echo_echo", "response": {"output": "ECHO:g"}}}]},
    ]
    events = sse(post(fake_model, "/v1beta/models/pro:streamGenerateContent?alt=sse", body)[2])
    assert events[0][1]["candidates"][0]["content"]["parts"][0]["text"] == f"{DEFAULT_REPLY} [tool result: ECHO:g]"
    assert fake_model.requests[-1].query == {"alt": ["sse"]}
    assert fake_model.tool_names() == ["mcp_echo_echo", "mcp_echo_echo"]
    assert fake_model.tool_results() == ["ECHO:g"]
    assert "GSYS" in fake_model.texts() and "GEMINI-MD" in fake_model.texts()


def test_unknown_path_is_404_and_recorded(fake_model: FakeModel) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    conn.request("GET", "/v1/models")
    assert conn.getresponse().status == 404
    conn.close()
    assert post(fake_model, "/nowhere", {})[0] == 404
    assert [(r.method, r.path, r.status) for r in fake_model.requests] == [
        ("GET", "/v1/models", 404),
        ("POST", "/nowhere", 404),
    ]


def test_keep_alive_and_chunked_request_body(fake_model: FakeModel) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    for _ in range(2):  # two requests on one connection
        conn.request(
            "POST",
            "/v1/chat/completions",
            body=iter([b'{"messages": [{"role": "user",', b' "content": "CHUNKED"}]}']),
            encode_chunked=True,
        )
        resp = conn.getresponse()
        assert resp.status == 200
        resp.read()
    conn.close()
    assert fake_model.texts() == ["CHUNKED", "CHUNKED"]


def test_tool_script_only_matches_offered_tools(fake_model: FakeModel) -> None:
    fake_model.call_tool("recall", {})
    body = {
        "messages": [{"role": "user", "content": "t"}],
        "tools": [{"type": "function", "function": {"name": "bash"}}],
    }
    reply = json.loads(post(fake_model, "/v1/chat/completions", body)[2])
    assert reply["choices"][0]["message"] == {"role": "assistant", "content": DEFAULT_REPLY}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "boolean"}}},
            {"a": "fake", "b": False},
        ),
        ({"type": "INTEGER", "minimum": 3}, 3),
        ({"enum": ["x", "y"]}, "x"),
        ({"type": ["null", "array"], "items": {"type": "number"}, "minItems": 1}, [1.0]),
    ],
)
def test_from_schema(schema: Any, value: Any) -> None:
    assert _from_schema(schema) == value


def test_proxied_requests_are_refused_and_reported(fake_model: FakeModel) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    conn.request("CONNECT", "example.com:443")
    assert conn.getresponse().status == 403
    conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", fake_model.port, timeout=10)
    conn.request("GET", "http://example.com/x")
    assert conn.getresponse().status == 403
    conn.close()
    post(fake_model, "/v1/chat/completions", {"messages": []})
    assert fake_model.escapes() == ["CONNECT example.com:443", "GET http://example.com/x"]
