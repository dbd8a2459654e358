"""Prompts on the terminal device (``/dev/tty``), never on stdin or stdout.

A human answers ``mem human init``, ``mem verify``, ``remember --as-user`` and
``forget`` of a human's memory on the terminal the command runs in: the
prompt opens ``/dev/tty`` itself, so piped input never answers it, and a
passphrase is read with echo off on that device. Where the process has no
controlling terminal (a pipe, a service, ``setsid``) the prompt refuses with
one line.

Ctrl-C or Ctrl-D at any prompt ends it: the terminal's settings are put back,
a newline is written so the shell's prompt starts on its own line, and
:class:`MemError` (:data:`CANCELLED`, exit 1) is raised before anything was
changed.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

from mem_core.errors import MemError

__all__ = ["Terminal", "CANCELLED", "TTY"]

#: the terminal device of the calling process
TTY = "/dev/tty"
CANCELLED = "cancelled at the prompt; nothing was changed."
#: a line typed at a prompt is at most this long (a passphrase, yes/no)
LINE_MAX = 4096


class Terminal:
    """The process's controlling terminal, open for reading and writing.

    Example usage::

        with Terminal.open("verify needs you at a terminal; nothing was changed.") as tty:
            tty.write("mem verify: ...\\n")
            secret = tty.ask("Passphrase: ", echo=False)
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def open(cls, refused: str) -> Terminal:
        """Open ``/dev/tty``; ``MemError(refused)`` when the process has none."""
        try:
            fd = os.open(TTY, os.O_RDWR | os.O_NOCTTY)
        except OSError:
            raise MemError(refused) from None
        if not os.isatty(fd):  # pragma: no cover - /dev/tty is always a terminal where it opens
            os.close(fd)
            raise MemError(refused)
        return cls(fd)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise RuntimeError("the terminal is closed")
        return self._fd

    def write(self, text: str) -> None:
        """Show ``text`` on the terminal (UTF-8; the terminal turns newlines into line starts)."""
        data = text.encode("utf-8", "replace")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def ask(self, prompt: str, *, echo: bool = True) -> str:
        """Show ``prompt`` and read one line typed on the terminal (without its
        newline); with ``echo`` false, what is typed is not shown. Ctrl-C or
        Ctrl-D: :data:`CANCELLED`."""
        import termios

        fd = self.fd
        saved = termios.tcgetattr(fd)
        quiet = None
        if not echo:
            quiet = termios.tcgetattr(fd)
            quiet[3] &= ~(termios.ECHO | termios.ECHONL)
        try:
            # canonical mode (lines, Ctrl-D as end of input, Ctrl-C as SIGINT)
            # whatever the terminal was left in
            mode = termios.tcgetattr(fd) if quiet is None else quiet
            mode[3] |= termios.ICANON | termios.ISIG
            termios.tcsetattr(fd, termios.TCSAFLUSH, mode)
            self.write(prompt)
            line = self._read_line()
        except KeyboardInterrupt:
            self._restore(saved)
            self.write("\n")
            raise MemError(CANCELLED) from None
        except BaseException:
            self._restore(saved)
            raise
        self._restore(saved)
        if line is None:
            self.write("\n")
            raise MemError(CANCELLED)
        if not echo:
            self.write("\n")  # the newline typed was not echoed
        return line

    def confirm(self, question: str) -> bool:
        """Ask ``question``; true only for ``y`` or ``yes``."""
        answer = self.ask(question + "\nType 'yes' to confirm: ")
        return answer.strip().lower() in ("y", "yes")

    def _restore(self, saved: list[Any]) -> None:
        import termios

        try:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, saved)
        except termios.error:  # pragma: no cover - the terminal went away
            pass

    def _read_line(self) -> str | None:
        """One line, or ``None`` at end of input (Ctrl-D)."""
        data = b""
        while True:
            chunk = os.read(self.fd, 1024)
            if not chunk:
                return None
            data += chunk
            if data.endswith(b"\n"):
                return data[:-1].rstrip(b"\r").decode("utf-8", "replace")
            if len(data) > LINE_MAX:
                raise MemError(f"a line typed at the prompt is at most {LINE_MAX} bytes; nothing was changed.")
