"""Keys from windowing systems and browsers: key-down/key-up events -> held keys.

The studio (a web page) and any GUI get real key-down and key-up events, unlike a
terminal. :class:`HeldKeys` tracks them and gives the same :class:`InputSnapshot` the
terminal keyboard gives, so the same mappings work everywhere; :func:`browser_key`
turns a browser ``KeyboardEvent.key`` into robotsim's key names (docs/input.md).
"""

from __future__ import annotations

from robotsim.teleop.gamepad import InputSnapshot

__all__ = ["HeldKeys", "browser_key"]

_BROWSER = {
    "ArrowUp": "up",
    "ArrowDown": "down",
    "ArrowLeft": "left",
    "ArrowRight": "right",
    " ": "space",
    "Spacebar": "space",
    "Enter": "enter",
    "Tab": "tab",
    "Escape": "esc",
    "Esc": "esc",
    "Backspace": "backspace",
}


def browser_key(key: str) -> str:
    """``KeyboardEvent.key`` -> key name: ``"ArrowUp"`` -> ``"up"``, ``"W"`` -> ``"w"``."""
    if key in _BROWSER:
        return _BROWSER[key]
    return key.lower() if len(key) == 1 else key


class HeldKeys:
    """The set of keys held now, from key-down/key-up events."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    def down(self, key: str) -> None:
        self._held.add(key)

    def up(self, key: str) -> None:
        self._held.discard(key)

    def clear(self) -> None:
        """Forget every key (e.g. when the window loses focus and key-ups are lost)."""
        self._held.clear()

    def snapshot(self) -> InputSnapshot:
        return InputSnapshot(keys=frozenset(self._held))
