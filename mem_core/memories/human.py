"""The two decisions about a human that the structured-memory API asks here,
each behind one function, so that the way a human is proven can change in
one place (structured-memory.md, Trust):

* :func:`human_confirmation` — is a human present and do they agree? Asked
  before storing ``--as-user``, verifying, and forgetting a memory a human
  stated or confirmed. Today: the terminal confirmation.
* :func:`signature_verifies` — does a signature carried by an imported
  memory prove a trusted human's word over its current content? Today no
  signature verifies: an imported memory always reads unverified.

Nothing heavy is imported here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["human_confirmation", "signature_verifies"]


def human_confirmation(action: str, question: str) -> bool:
    """Ask a human to confirm ``action`` (``"remember"``, ``"verify"`` or
    ``"forget"``), showing ``question``; true only when they agree.

    Raises ``MemError`` with a one-line message when no human can be asked
    (no terminal). This is the default ``confirm`` of
    :func:`mem_core.memories.api.remember`, :func:`~mem_core.memories.api.verify`
    and :func:`~mem_core.memories.api.forget`."""
    from mem_core.memories.api import terminal_confirmation

    return terminal_confirmation(action, question)


def signature_verifies(memory: dict[str, Any], signature: dict[str, Any]) -> bool:
    """Whether ``signature`` (one entry of an exported memory's
    ``"signatures"``) is a trusted human's signature over ``memory`` (a memory
    record) as it is now. Until signed verification exists, none is: every
    imported memory reads unverified, whatever its ``verified`` field says."""
    del memory, signature
    return False
