"""The edits an adapter makes, each one reversible: what every adapter shares.

An :class:`Edit` names one file (relative to the project, or to the home
directory with ``--scope user``) and one thing ``mem`` owns in it. It takes
the file's text (``None``: the file is missing) and gives the new text
(``None``: delete the file):

* :meth:`Edit.apply` adds it (the same text again if it is already there: installing twice changes nothing);
* :meth:`Edit.revert` takes out exactly what :meth:`apply` added, so a file
  that only ``mem`` touched comes back byte for byte, and a file ``mem``
  created (nothing left in it but what it was created with) is deleted;
* :meth:`Edit.present` says whether it is there.

Kinds: :class:`Block` (Markdown between ``<!-- mem:begin -->`` and
``<!-- mem:end -->``, after an optional frontmatter), :class:`JsonMember`
and :class:`JsonItem` (a member or an array item of a JSON file, the rest of
the text untouched: :mod:`mem_core.adapters.jsontext`), :class:`TomlTable`
(a ``[a.b]`` table; comments kept), :class:`YamlListItems` (entries of one
top-level YAML block list, marked ``# mem``) and :class:`OwnedFile` (a file
that is ``mem``'s alone). A file that is not valid JSON or TOML is refused
with one line, before anything is written.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from mem_core.adapters import jsontext
from mem_core.errors import MemError

__all__ = ["Edit", "Block", "JsonMember", "JsonItem", "TomlTable", "YamlListItems", "OwnedFile", "BEGIN", "END"]

BEGIN = "<!-- mem:begin -->"
END = "<!-- mem:end -->"


class Edit(ABC):
    """One reversible change to one file (see the module's docstring)."""

    def __init__(self, path: str) -> None:
        #: relative to the target's root, ``/``-separated
        self.path = path

    @property
    def key(self) -> tuple[Any, ...]:
        """What this edit owns: two adapters with equal keys share it (one
        ``mem`` block in ``AGENTS.md``), and removing one adapter keeps what
        another installed adapter still uses."""
        return (self.path, type(self).__name__)

    @abstractmethod
    def apply(self, text: str | None, label: str) -> str | None:
        """The file's text with this edit in it (``label``: the file as messages name it)."""

    @abstractmethod
    def revert(self, text: str | None, label: str) -> str | None:
        """The file's text without this edit; ``None`` to delete the file."""

    @abstractmethod
    def present(self, text: str | None, label: str) -> bool:
        """Whether the file holds this edit as :meth:`apply` writes it."""

    def installed(self, text: str | None, label: str) -> Any:
        """The value the file holds where this edit writes one (an entry
        ``mem`` owns, as a JSON value), ``None`` if none or for an edit that
        writes no value."""
        return None


# -- Markdown ---------------------------------------------------------------------------


class Block(Edit):
    """``mem``'s instructions between the markers, appended to a Markdown
    file after a blank line (``text + "\\n" + block``, so that taking it out
    is exact), or replacing the old block where it stands. A missing file is
    created as ``preamble`` (a rule file's frontmatter) + the block."""

    def __init__(self, path: str, body: str, preamble: str = "") -> None:
        super().__init__(path)
        self.block = f"{BEGIN}\n{body.strip(chr(10))}\n{END}\n"
        self.preamble = preamble

    @property
    def created(self) -> str:
        return self.preamble + self.block

    def _span(self, text: str, label: str) -> tuple[int, int] | None:
        """Where the old block is: from its begin marker to just after its end marker."""
        begin = text.find(BEGIN)
        if begin < 0:
            if END in text:
                raise MemError(f"{label} has {END} without {BEGIN}; fix it, nothing was changed")
            return None
        end = text.find(END, begin)
        if end < 0:
            raise MemError(f"{label} has {BEGIN} without {END}; fix it, nothing was changed")
        return begin, end + len(END)

    def apply(self, text: str | None, label: str) -> str | None:
        if text is None:
            return self.created
        span = self._span(text, label)
        if span is None:
            return text + "\n" + self.block
        begin, end = span
        return text[:begin] + self.block[:-1] + text[end:]

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None:
            return None
        if text == self.created:
            return None
        span = self._span(text, label)
        if span is None:
            return text
        begin, end = span
        if end < len(text) and text[end] == "\n":
            end += 1
        if end == len(text) and begin > 0 and text[begin - 1] == "\n":
            begin -= 1  # the newline apply put before a block it appended
        return text[:begin] + text[end:]

    def present(self, text: str | None, label: str) -> bool:
        return text is not None and self.block[:-1] in text


# -- JSON -------------------------------------------------------------------------------


class _Json(Edit):
    def __init__(self, path: str, keys: tuple[str, ...], base: dict[str, Any] | None = None) -> None:
        super().__init__(path)
        self.keys = keys
        #: what a file this edit creates holds besides the edits (``{"version": 1}``);
        #: a file left holding just that after a removal is deleted
        self.base = base or {}

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.path, "json", self.keys)

    def _start(self, text: str | None) -> str:
        return json.dumps(self.base, indent=2, ensure_ascii=False) + "\n" if text is None else text

    def _prune(self, text: str, label: str) -> str | None:
        """Take out the containers on :attr:`keys` left empty; ``None`` if
        the file holds nothing but :attr:`base` any more."""
        for depth in range(len(self.keys), 0, -1):
            root = jsontext.parse(text, label)
            node = jsontext.find(root, self.keys[:depth])
            if node is None:  # the member just taken out
                continue
            if node.kind == "scalar" or node.entries:
                break
            parent = jsontext.find(root, self.keys[: depth - 1])
            assert parent is not None
            found = parent.member(self.keys[depth - 1])
            assert found is not None
            text = jsontext.remove_entry(text, parent, found[0])
        if json.loads(text) == self.base:
            return None
        return text


class JsonMember(_Json):
    """The member at ``keys`` (``mcpServers`` → ``mem``) set to ``value``."""

    def __init__(self, path: str, keys: tuple[str, ...], value: Any, base: dict[str, Any] | None = None) -> None:
        super().__init__(path, keys, base)
        self.value = value

    def apply(self, text: str | None, label: str) -> str | None:
        text = self._start(text)
        return jsontext.set_member(text, jsontext.parse(text, label), self.keys, self.value, label)

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None:
            return None
        root = jsontext.parse(text, label)
        parent = jsontext.find(root, self.keys[:-1])
        found = parent.member(self.keys[-1]) if parent is not None and parent.kind == "object" else None
        if parent is None or found is None:
            return text
        return self._prune(jsontext.remove_entry(text, parent, found[0]), label)

    def present(self, text: str | None, label: str) -> bool:
        return self.installed(text, label) == self.value

    def installed(self, text: str | None, label: str) -> Any:
        if text is None:
            return None
        node = jsontext.find(jsontext.parse(text, label), self.keys)
        return None if node is None else node.value(text)


class JsonItem(_Json):
    """``item`` in the array at ``keys`` (``hooks`` → ``SessionStart``);
    ``ours`` tells ``mem``'s items (an older version of it is replaced,
    every one is taken out on removal) from the user's."""

    def __init__(
        self,
        path: str,
        keys: tuple[str, ...],
        item: Any,
        ours: Callable[[Any], bool],
        base: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(path, keys, base)
        self.item = item
        self.ours = ours

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.path, "json", self.keys, json.dumps(self.item, sort_keys=True))

    def _array(self, text: str, label: str) -> jsontext.Node | None:
        node = jsontext.find(jsontext.parse(text, label), self.keys)
        if node is not None and node.kind != "array":
            raise MemError(f"{label}: {'.'.join(self.keys)} is not a JSON array; nothing was changed")
        return node

    def apply(self, text: str | None, label: str) -> str | None:
        text = self._start(text)
        array = self._array(text, label)
        if array is not None:
            values = [entry[2].value(text) for entry in array.entries]
            if self.item in values:
                return text
            for (_, _, node), value in zip(array.entries, values, strict=True):
                if self.ours(value):  # an older mem entry: rewritten where it stands
                    return jsontext.replace_value(text, jsontext.parse(text, label), node, self.item)
        return jsontext.append_item(text, jsontext.parse(text, label), self.keys, self.item, label)

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None:
            return None
        changed = False
        while True:
            array = self._array(text, label)
            if array is None:
                break
            index = next((i for i, e in enumerate(array.entries) if self.ours(e[2].value(text))), None)
            if index is None:
                break
            text = jsontext.remove_entry(text, array, index)
            changed = True
        return self._prune(text, label) if changed else text

    def present(self, text: str | None, label: str) -> bool:
        if text is None:
            return False
        array = self._array(text, label)
        return array is not None and any(e[2].value(text) == self.item for e in array.entries)


# -- TOML -------------------------------------------------------------------------------


def _toml(text: str, label: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = " ".join(str(exc).split())
        raise MemError(f"{label} is not valid TOML: {reason}; fix it or move it away, nothing was changed") from None


class TomlTable(Edit):
    """The table at ``keys`` (``[mcp_servers.mem]``) holding ``value``.

    Added as text at the end of the file (after a blank line: the exact
    inverse is to cut that text out again), which keeps every comment and
    the order of everything else; the text is tomlkit's rendering of the
    table. Where appending cannot express it (``mcp_servers`` is an inline
    table), or the table is already there with other values, tomlkit edits
    the document in place, keeping its comments. Each result is parsed
    again and checked before it is accepted."""

    def __init__(self, path: str, keys: tuple[str, ...], value: dict[str, Any]) -> None:
        super().__init__(path)
        self.keys = keys
        self.value = value

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.path, "toml", self.keys)

    @property
    def table(self) -> str:
        import tomlkit

        document = tomlkit.document()
        table = tomlkit.table()
        for name, item in self.value.items():
            table[name] = item
        outer: Any = document
        for name in self.keys[:-1]:
            outer[name] = tomlkit.table(is_super_table=True)
            outer = outer[name]
        outer[self.keys[-1]] = table
        return tomlkit.dumps(document)

    def _get(self, data: dict[str, Any]) -> Any:
        node: Any = data
        for name in self.keys:
            if not isinstance(node, dict) or name not in node:
                return None
            node = node[name]
        return node

    def _without(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` without the table (and the tables it leaves empty)."""
        data = copy.deepcopy(data)

        def drop(node: dict[str, Any], keys: tuple[str, ...]) -> None:
            if keys[0] not in node:
                return
            if len(keys) > 1:
                if isinstance(node[keys[0]], dict):
                    drop(node[keys[0]], keys[1:])
                    if not node[keys[0]]:
                        del node[keys[0]]
                return
            del node[keys[0]]

        drop(data, self.keys)
        return data

    def _in_place(self, text: str, label: str, *, remove: bool) -> str:
        import tomlkit

        document: Any = tomlkit.parse(text)
        chain = [document]
        for name in self.keys[:-1]:
            if name not in chain[-1]:
                chain[-1][name] = tomlkit.table(is_super_table=True)
            chain.append(chain[-1][name])
        if remove:
            if self.keys[-1] in chain[-1]:
                del chain[-1][self.keys[-1]]
            for depth in range(len(chain) - 1, 0, -1):
                if len(chain[depth]) == 0:
                    del chain[depth - 1][self.keys[depth - 1]]
        else:
            inline = isinstance(chain[-1], tomlkit.items.InlineTable)
            table = tomlkit.inline_table() if inline else tomlkit.table()
            for name, item in self.value.items():
                table[name] = item
            chain[-1][self.keys[-1]] = table
        return tomlkit.dumps(document)

    def apply(self, text: str | None, label: str) -> str | None:
        if text is None:
            return self.table
        data = _toml(text, label)
        if self._get(data) == self.value:
            return text
        if self._get(data) is None:
            appended = text + "\n" + self.table
            try:
                good = _toml(appended, label) == {**data, **_merge_expected(data, self.keys, self.value)}
            except MemError:
                good = False
            if good:
                return appended
        try:
            result = self._in_place(text, label, remove=False)
        except (ValueError, TypeError, KeyError) as exc:
            raise MemError(f"{label}: cannot add [{'.'.join(self.keys)}] to it ({exc}); nothing was changed") from None
        if self._get(_toml(result, label)) != self.value:
            raise MemError(f"{label}: cannot add [{'.'.join(self.keys)}] to it; nothing was changed")
        return result

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None:
            return None
        if text == self.table:
            return None
        data = _toml(text, label)
        if self._get(data) is None:
            return text
        expected = self._without(data)
        cut = "\n" + self.table
        at = text.rfind(cut)
        if at >= 0:
            candidate = text[:at] + text[at + len(cut) :]
            try:
                if _toml(candidate, label) == expected:
                    return candidate
            except MemError:
                pass
        try:
            result = self._in_place(text, label, remove=True)
        except (ValueError, TypeError, KeyError) as exc:
            raise MemError(
                f"{label}: cannot take [{'.'.join(self.keys)}] out of it ({exc}); nothing was changed"
            ) from None
        if _toml(result, label) != expected:
            raise MemError(f"{label}: cannot take [{'.'.join(self.keys)}] out of it; nothing was changed")
        return result

    def present(self, text: str | None, label: str) -> bool:
        return text is not None and self.installed(text, label) == self.value

    def installed(self, text: str | None, label: str) -> Any:
        return None if text is None else self._get(_toml(text, label))


def _merge_expected(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> dict[str, Any]:
    """The top-level members of ``data`` after setting ``keys`` to ``value``
    (only the first key's member is rebuilt)."""
    head = copy.deepcopy(data.get(keys[0], {})) if len(keys) > 1 else None
    if head is None:
        return {keys[0]: value}
    node = head
    for name in keys[1:-1]:
        node = node.setdefault(name, {})
    node[keys[-1]] = value
    return {keys[0]: head}


# -- YAML -------------------------------------------------------------------------------

_MARK = "  # mem"
_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./-]*")


def _yaml_scalar(item: str) -> str:
    return item if _PLAIN.fullmatch(item) else json.dumps(item)


def _unquote(text: str) -> str:
    text = re.sub(r"\s+#.*$", "", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


class YamlListItems(Edit):
    """Entries of the top-level block list ``key:`` of a YAML file (aider's
    ``read:``), each line marked ``# mem`` so that removal takes out only
    ``mem``'s lines (an entry the user had already is neither added nor
    removed). A minimal edit on lines, not a YAML library: it touches one
    list and nothing else, and refuses a ``key:`` it cannot edit safely
    (a flow list ``[a, b]`` or a single value)."""

    def __init__(self, path: str, key: str, items: list[str]) -> None:
        super().__init__(path)
        self.list_key = key
        self.items = items

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.path, "yaml", self.list_key, tuple(self.items))

    def _find(self, lines: list[str], label: str) -> tuple[int, list[int], list[str]] | None:
        """The ``key:`` line, the lines of its entries and their values."""
        head = re.compile(rf"{re.escape(self.list_key)}[ \t]*:(.*)$")
        found = [i for i, line in enumerate(lines) if head.match(line)]
        if not found:
            return None
        if len(found) > 1:
            raise MemError(f"{label} has '{self.list_key}:' twice; fix it, nothing was changed")
        at = found[0]
        rest = head.match(lines[at]).group(1).strip()  # type: ignore[union-attr]
        if rest and not rest.startswith("#"):
            raise MemError(
                f"{label}: '{self.list_key}:' is not a block list (one '- FILE' line per entry); "
                "make it one, nothing was changed"
            )
        entries, values = [], []
        for index in range(at + 1, len(lines)):
            line = lines[index]
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if not (line[0] in " \t" or stripped.startswith("- ") or stripped == "-"):
                break
            if stripped.startswith("-"):
                entries.append(index)
                values.append(_unquote(stripped[1:]))
        return at, entries, values

    def apply(self, text: str | None, label: str) -> str | None:
        lines = [] if text is None else text.split("\n")
        found = self._find(lines, label)
        if found is None:
            new = [f"{self.list_key}:{_MARK}", *(f"  - {_yaml_scalar(i)}{_MARK}" for i in self.items)]
            if text is None:
                return "\n".join(new) + "\n"
            after = len(lines) - 2 if text.endswith("\n") else len(lines) - 1
        else:
            at, entries, values = found
            missing = [i for i in self.items if i not in values]
            if not missing:
                return text
            indent = "  "
            if entries:
                first = lines[entries[0]]
                indent = first[: len(first) - len(first.lstrip())]
            new = [f"{indent}- {_yaml_scalar(i)}{_MARK}" for i in missing]
            after = entries[-1] if entries else at
        return "\n".join(lines[: after + 1] + new + lines[after + 1 :])

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None or text == self.apply(None, label):
            return None
        ours = {f"- {_yaml_scalar(i)}{_MARK}" for i in self.items} | {f"{self.list_key}:{_MARK}"}
        lines = text.split("\n")
        kept = [line for line in lines if line.strip() not in ours or not line.endswith(_MARK)]
        if len(kept) == len(lines):
            return text
        result = "\n".join(kept)
        found = self._find(kept, label)
        if found is not None and not found[1] and kept[found[0]].endswith(_MARK):
            del kept[found[0]]  # the key mem added, left without entries
            result = "\n".join(kept)
        return result

    def present(self, text: str | None, label: str) -> bool:
        if text is None:
            return False
        found = self._find(text.split("\n"), label)
        return found is not None and all(i in found[2] for i in self.items)


# -- a file of mem's own ----------------------------------------------------------------


class OwnedFile(Edit):
    """A whole file that is ``mem``'s (the OpenCode plugin module); its
    first line is ``header``, which tells it from a file of the same name
    that is not ``mem``'s (refused, never overwritten)."""

    def __init__(self, path: str, text: str, header: str) -> None:
        super().__init__(path)
        if not text.startswith(header):
            raise ValueError("the file's text must start with its header")
        self.text = text
        self.header = header

    def apply(self, text: str | None, label: str) -> str | None:
        if text is not None and not text.startswith(self.header):
            raise MemError(f"{label} exists and is not mem's; move it away, nothing was changed")
        return self.text

    def revert(self, text: str | None, label: str) -> str | None:
        if text is None or not text.startswith(self.header):
            return text
        return None

    def present(self, text: str | None, label: str) -> bool:
        return text == self.text
