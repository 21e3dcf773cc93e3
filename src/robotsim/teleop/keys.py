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
    """The set of keys held now, from key-down/key-up events.

    A key pressed and released between two snapshots (a quick tap, shorter than the
    polling interval) is still reported, as held, by the next :meth:`snapshot` and then
    released, so a mapping that acts on presses sees every tap exactly once.
    """

    def __init__(self) -> None:
        self._held: set[str] = set()
        self._unseen: set[str] = set()  # pressed since the last snapshot
        self._taps: set[str] = set()  # pressed and released since the last snapshot

    def down(self, key: str) -> None:
        self._held.add(key)
        self._unseen.add(key)

    def up(self, key: str) -> None:
        self._held.discard(key)
        if key in self._unseen:
            self._taps.add(key)

    def clear(self) -> None:
        """Forget every key (e.g. when the window loses focus and key-ups are lost)."""
        self._held.clear()
        self._unseen.clear()
        self._taps.clear()

    def snapshot(self) -> InputSnapshot:
        """The keys held now and the taps since the last snapshot (reported once)."""
        keys = frozenset(self._held | self._taps)
        self._unseen.clear()
        self._taps.clear()
        return InputSnapshot(keys=keys)

    def peek(self) -> frozenset[str]:
        """The keys held now, without taking the taps a snapshot reports (for display)."""
        return frozenset(self._held)
