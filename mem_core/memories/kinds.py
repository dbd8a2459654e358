"""The value sets of a structured memory's fields as types (``Literal``s),
for the pydantic models of :mod:`mem_core.memories.api` and the type
checker; :mod:`mem_core.memories.core` validates the same sets without
importing :mod:`typing`."""

from __future__ import annotations

from typing import Literal

__all__ = ["Category", "Priority", "Source", "StoreName", "Verification"]

Category = Literal["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"]
Priority = Literal["low", "normal", "high", "critical"]
Source = Literal["user", "agent"]
StoreName = Literal["project", "user"]
Verification = Literal["signed", "terminal", "signature-invalid", "unsigned"]
