"""The keyboard in a terminal, as an input device.

A terminal sends characters, not key-down/key-up events: a held key arrives as one
character, then (after the terminal's auto-repeat delay, typically 0.25–0.6 s) a stream
of repeats. :class:`TerminalKeyboard` therefore treats a key as *held* from its first
character until ``first_hold`` seconds later, extended by ``hold`` seconds after each
repeat. Releasing a key is noticed within ``hold`` seconds (``first_hold`` after a
single tap).

Key names: letters and digits as typed (lower case), ``up``/``down``/``left``/``right``
(arrow keys), ``space``, ``enter``, ``tab``, ``backspace``, ``esc``, and other
printable characters as themselves (``+``, ``-``, ``[``...).
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty
from typing import IO

from robotsim.teleop.gamepad import InputSnapshot

__all__ = ["TerminalKeyboard", "decode_keys"]

_ESCAPES = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
}
_NAMED = {
    b" ": "space",
    b"\r": "enter",
    b"\n": "enter",
    b"\t": "tab",
    b"\x7f": "backspace",
    b"\x1b": "esc",
}


def decode_keys(data: bytes) -> list[str]:
    """Bytes read from a terminal -> key names, in order."""
    keys: list[str] = []
    i = 0
    while i < len(data):
        three = data[i : i + 3]
        if three in _ESCAPES:
            keys.append(_ESCAPES[three])
            i += 3
            continue
        ch = data[i : i + 1]
        i += 1
        if ch in _NAMED:
            keys.append(_NAMED[ch])
        elif 32 < ch[0] < 127:
            keys.append(ch.decode().lower())
        # other control bytes (Ctrl-letters...) are ignored
    return keys


class TerminalKeyboard:
    """Keys held in a terminal (see the module doc).

    Args:
        stream: the terminal to read (``sys.stdin`` by default) or a file descriptor.
        hold: seconds a key stays held after a repeat.
        first_hold: seconds a key stays held after its first press (bridges the
            auto-repeat delay).
    """

    def __init__(
        self, stream: IO[str] | int | None = None, hold: float = 0.12, first_hold: float = 0.6
    ) -> None:
        if stream is None:
            stream = sys.stdin
        self.fd = stream if isinstance(stream, int) else stream.fileno()
        self.hold = hold
        self.first_hold = first_hold
        self._until: dict[str, float] = {}
        self._saved = None
        if os.isatty(self.fd):
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)  # no line buffering, no echo; Ctrl-C still works

    def poll(self, now: float | None = None) -> InputSnapshot:
        """Read what has arrived (never blocks); the keys held now."""
        now = time.monotonic() if now is None else now
        data = b""
        while select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 1024)
            if not chunk:
                break
            data += chunk
        for key in decode_keys(data):
            held = key in self._until and self._until[key] > now
            self._until[key] = now + (self.hold if held else self.first_hold)
        keys = frozenset(k for k, t in self._until.items() if t > now)
        return InputSnapshot(keys=keys)

    def close(self) -> None:
        """Give the terminal back its settings."""
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def __enter__(self) -> TerminalKeyboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
