"""``Generic`` for the classes on every command's path, without importing
:mod:`typing` at run time (its import is a tenth of a ``mem write``).

For the type checker this *is* ``typing.Generic``. At run time it is a
base whose subscription (``Generic[T]``, ``Registry[NoteSource]``) gives the
class back: a class deriving from it is an ordinary class. Annotations are
never evaluated (``from __future__ import annotations``), so nothing else
needs typing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every command's start-up (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Generic as Generic
else:

    class Generic:
        """``typing.Generic`` as far as a class statement needs it."""

        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls


__all__ = ["Generic"]
