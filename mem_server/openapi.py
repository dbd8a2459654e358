"""The OpenAPI document ``/openapi.json`` serves, built from the route table
(so it cannot drift from the routes)."""

from __future__ import annotations

from typing import Any

__all__ = ["document"]

_WHO = {
    "public": "Anyone (no credential).",
    "read": "An agent key (its own mind) or a human session.",
    "write": "An agent key that is not read-only (its own mind) or a human session.",
    "human": "A human session only; an agent key gets 403.",
}
_ERRORS = {
    "400": 'Bad input: {"error": "<one line>"}; nothing changed.',
    "401": "No credential, or one that is unknown, revoked or expired.",
    "403": "Not allowed for this credential (another mind, read-only, human only).",
    "404": "No such memory (or not in this key's mind).",
    "409": "Conflict (the memory changed; a name taken).",
    "413": "Body larger than the server accepts.",
    "429": "The key's rate limit.",
    "503": "The database is unreachable; retry.",
}


def document(routes: Any) -> dict[str, Any]:
    from mem_core.version import __version__

    paths: dict[str, Any] = {}
    for endpoint in routes:
        operation: dict[str, Any] = {
            "summary": endpoint.summary,
            "description": _WHO[endpoint.rule.name],
            "responses": {str(endpoint.status): {"description": "Success (JSON)."}, **{
                code: {"description": text} for code, text in _ERRORS.items()}},
        }  # fmt: skip
        if endpoint.rule.name != "public":
            operation["security"] = [{"bearer": []}]
        parameters = [
            {"name": name.strip("{}"), "in": "path", "required": True, "schema": {"type": "string"}}
            for name in endpoint.path.split("/")
            if name.startswith("{")
        ]
        if parameters:
            operation["parameters"] = parameters
        if endpoint.fields:
            operation["requestBody"] = {
                "content": {"application/json": {"schema": {
                    "type": "object", "additionalProperties": False,
                    "properties": {name: {} for name in endpoint.fields}}}}
            }  # fmt: skip
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "mem team server", "version": __version__},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }
