"""A typed registry: the classes one registration hook collected, by unique name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

from mem_core.errors import MemError, PluginError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Classes collected from one registration hook, keyed by their unique
    ``name``, in plugin registration order (oldest first).

    ``broken`` names the plugins that failed to import or to register, with
    their error: what a missing name may have been meant to come from.
    """

    def __init__(
        self, kind: str, entries: Iterable[tuple[str, type[T]]], broken: Iterable[tuple[str, str]] = ()
    ) -> None:
        self.kind = kind
        self._classes: dict[str, type[T]] = {}
        self._providers: dict[str, str] = {}
        self.broken: tuple[tuple[str, str], ...] = tuple(broken)
        for provider, cls in entries:
            name = cls.name  # type: ignore[attr-defined]
            if name in self._classes:
                raise PluginError(
                    f"duplicate {kind} name '{name}': provided by plugin '{self._providers[name]}' "
                    f"and plugin '{provider}'"
                )
            self._classes[name] = cls
            self._providers[name] = provider

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def names(self) -> list[str]:
        return list(self._classes)

    def get(self, name: str) -> type[T]:
        return self._classes[name]

    def provider(self, name: str) -> str:
        return self._providers[name]

    def items(self) -> list[tuple[str, type[T]]]:
        return list(self._classes.items())

    def require(self, name: str, message: str) -> type[T]:
        """The class named ``name``; else ``MemError(message)``, with a note per
        broken plugin (it may have been meant to provide ``name``)."""
        cls = self._classes.get(name)
        if cls is None:
            raise MemError(message, notes=self.broken_notes())
        return cls

    def broken_notes(self) -> list[str]:
        """One line per broken plugin that could have provided to this registry."""
        return [f"plugin '{plugin}' is broken ({error}); see mem plugins" for plugin, error in self.broken]
