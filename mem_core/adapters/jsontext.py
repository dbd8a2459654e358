"""Editing a JSON file as text: one member or array item in or out, the rest
of the file byte for byte (its indentation, its key order, its spacing).

:func:`parse` gives every value with its span in the text; :func:`set_member`,
:func:`append_item` and :func:`remove_span` rewrite only the text around one
member or item, so that removing what was inserted gives the original text
back (appending writes ``,`` + the whitespace that precedes the container's
first entry + the entry; removing the last entry deletes exactly that). A
new entry is indented as the file indents (its first indented line, else two
spaces), or written inline in an inline container.
"""

from __future__ import annotations

import json
from typing import Any

from mem_core.errors import MemError

__all__ = ["Node", "parse", "find", "set_member", "append_item", "replace_value", "remove_entry", "indent_unit"]

_WS = " \t\n\r"


class Node:
    """A JSON value at ``text[start:end]``; an object's ``entries`` are
    ``(key, key_start, value)``, an array's ``(None, item_start, value)``."""

    __slots__ = ("kind", "start", "end", "entries")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  # "object" | "array" | "scalar"
        self.start = start
        self.end = start
        self.entries: list[tuple[str | None, int, Node]] = []

    def value(self, text: str) -> Any:
        return json.loads(text[self.start : self.end])

    def member(self, key: str) -> tuple[int, Node] | None:
        """The last member named ``key`` (as ``JSON.parse`` keeps it): its index and value."""
        for index in range(len(self.entries) - 1, -1, -1):
            if self.entries[index][0] == key:
                return index, self.entries[index][2]
        return None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        self.pos = pos

    def string_end(self, pos: int) -> int:
        text = self.text
        pos += 1
        while True:
            char = text[pos]
            if char == "\\":
                pos += 2
            elif char == '"':
                return pos + 1
            else:
                pos += 1

    def value(self) -> Node:
        self.ws()
        text = self.text
        char = text[self.pos]
        node: Node
        if char == "{" or char == "[":
            node = Node("object" if char == "{" else "array", self.pos)
            close = "}" if char == "{" else "]"
            self.pos += 1
            self.ws()
            if text[self.pos] == close:
                self.pos += 1
            else:
                while True:
                    self.ws()
                    entry_start = self.pos
                    key = None
                    if node.kind == "object":
                        key_end = self.string_end(self.pos)
                        key = json.loads(text[self.pos : key_end])
                        self.pos = key_end
                        self.ws()
                        self.pos += 1  # ':'
                    node.entries.append((key, entry_start, self.value()))
                    self.ws()
                    if text[self.pos] == ",":
                        self.pos += 1
                        continue
                    self.pos += 1  # the closing bracket
                    break
            node.end = self.pos
            return node
        node = Node("scalar", self.pos)
        if char == '"':
            self.pos = self.string_end(self.pos)
        else:
            pos = self.pos
            while pos < len(text) and text[pos] not in _WS + ",]}":
                pos += 1
            self.pos = pos
        node.end = self.pos
        return node


def parse(text: str, label: str) -> Node:
    """The root value of ``text`` with its spans; ``MemError`` (one line,
    naming ``label``) if it is not valid JSON or not an object."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise MemError(
            f"{label} is not valid JSON: {reason}{where}; fix it or move it away, nothing was changed"
        ) from None
    if not isinstance(value, dict):
        raise MemError(f"{label} does not hold a JSON object; nothing was changed")
    return _Parser(text).value()


def find(root: Node, keys: tuple[str, ...]) -> Node | None:
    """The value at ``keys`` (object members only), or ``None``."""
    node = root
    for key in keys:
        if node.kind != "object":
            return None
        found = node.member(key)
        if found is None:
            return None
        node = found[1]
    return node


def indent_unit(text: str, root: Node) -> str:
    """The file's indentation step: the whitespace before the root's first
    entry on its line, else two spaces."""
    if root.entries:
        before = text[root.start + 1 : root.entries[0][1]]
        if "\n" in before:
            unit = before[before.rindex("\n") + 1 :]
            if unit:
                return unit
    return "  "


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


def _dumps(value: Any, unit: str, base: str, inline: bool) -> str:
    if inline:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + base)


def _entry_text(key: str | None, value: Any, unit: str, base: str, inline: bool) -> str:
    body = _dumps(value, unit, base, inline)
    return body if key is None else json.dumps(key, ensure_ascii=False) + ": " + body


def _insert(text: str, container: Node, key: str | None, value: Any, unit: str) -> str:
    """``text`` with one entry appended to ``container``."""
    if container.entries:
        first = container.entries[0][1]
        before = text[container.start + 1 : first]
        last_end = container.entries[-1][2].end
        if "\n" in before:
            base = before[before.rindex("\n") + 1 :]
            entry = _entry_text(key, value, unit, base, False)
            return text[:last_end] + "," + before + entry + text[last_end:]
        separator = ", "
        if len(container.entries) > 1:
            separator = text[container.entries[0][2].end : container.entries[1][1]]
        entry = _entry_text(key, value, unit, "", True)
        return text[:last_end] + separator + entry + text[last_end:]
    inside = text[container.start + 1 : container.end - 1]
    parent = _line_indent(text, container.start)
    base = parent + unit
    entry = "\n" + base + _entry_text(key, value, unit, base, False)
    if "\n" not in inside:
        entry += "\n" + parent
    return text[: container.start + 1] + entry + text[container.start + 1 :]


def set_member(text: str, root: Node, keys: tuple[str, ...], value: Any, label: str) -> str:
    """``text`` with ``keys`` (a path of object members) set to ``value``:
    unchanged if it already is; the value's text replaced if it differs;
    else a new member in the nearest existing object (the missing ones
    created around it)."""
    unit = indent_unit(text, root)
    node = root
    for depth, key in enumerate(keys):
        if node.kind != "object":
            raise MemError(f"{label}: {'.'.join(keys[:depth])} is not a JSON object; nothing was changed")
        found = node.member(key)
        if found is None:
            fresh: Any = value
            for outer in reversed(keys[depth + 1 :]):
                fresh = {outer: fresh}
            return _insert(text, node, key, fresh, unit)
        node = found[1]
    if node.value(text) == value:
        return text
    return replace_value(text, root, node, value)


def replace_value(text: str, root: Node, node: Node, value: Any) -> str:
    """``text`` with ``node``'s value rewritten as ``value`` where it stands."""
    base = _line_indent(text, node.start)
    return text[: node.start] + _dumps(value, indent_unit(text, root), base, False) + text[node.end :]


def append_item(text: str, root: Node, keys: tuple[str, ...], item: Any, label: str) -> str:
    """``text`` with ``item`` appended to the array at ``keys`` (created if missing)."""
    node = find(root, keys)
    if node is None:
        return set_member(text, root, keys, [item], label)
    if node.kind != "array":
        raise MemError(f"{label}: {'.'.join(keys)} is not a JSON array; nothing was changed")
    return _insert(text, node, None, item, indent_unit(text, root))


def remove_entry(text: str, container: Node, index: int) -> str:
    """``text`` without entry ``index`` of ``container``: the exact inverse
    of :func:`_insert` for an appended entry (an entry in the middle takes its
    following separator with it)."""
    entries = container.entries
    entry_start, entry_end = entries[index][1], entries[index][2].end
    if len(entries) == 1:
        rest = text[entry_end : container.end - 1]
        before = text[container.start + 1 : entry_start]
        if before.count("\n") == 1 and before.startswith("\n") and not before.strip():
            parent = _line_indent(text, container.start)
            if rest.startswith("\n" + parent) and "\n" not in rest[1:]:
                rest = rest[1 + len(parent) :]  # the newline _insert added after the entry
            return text[: container.start + 1] + rest + text[container.end - 1 :]
        return text[: container.start + 1] + before + rest.lstrip(_WS) + text[container.end - 1 :]
    if index == len(entries) - 1:
        return text[: entries[index - 1][2].end] + text[entry_end:]
    return text[:entry_start] + text[entries[index + 1][1] :]
