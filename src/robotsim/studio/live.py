"""The studio's live-parameter devices: the page keyboard and gamepads changing
:class:`robotsim.teleop.params.LiveParameters` while the studio runs.

The mobile-robot paper (seed 002) enters model and simulation parameters from the
gamepad and the keyboard while the simulation runs, and the humanoid paper (seed 000)
plays motions at speed levels 1..8. :class:`LiveInput` holds the devices the studio
reads for this, each bound through a :class:`robotsim.teleop.Mapper` to the studio's one
set of live parameters: the page keyboard (``keyboard_studio``: N/M speed level, ]/[
time scale, ./, gains, >/< maximum speed; ticked on in the Live parameters section of
the page) and gamepads (``gamepad_studio``: D-pad up/down speed level, R1/L1 time
scale; ``robotsim studio --gamepad SLOT``). The studio's update loop calls
:meth:`LiveInput.poll` every tick of wall time; its clock then runs at the time scale
and a playing motion at the shifted speed levels (docs/input.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from robotsim.teleop.gamepad import InputSnapshot
from robotsim.teleop.mapper import Mapper
from robotsim.teleop.params import LiveParameters

__all__ = ["DEFAULT_GAMEPAD_MAPPING", "DEFAULT_KEYBOARD_MAPPING", "LiveInput"]

DEFAULT_KEYBOARD_MAPPING = "keyboard_studio"
DEFAULT_GAMEPAD_MAPPING = "gamepad_studio"


class LiveInput:
    """Devices bound to ``params`` (see module docs). A device is anything with
    ``poll() -> InputSnapshot``; a gamepad manager's ``poll()`` gives snapshots by slot
    (:meth:`add_gamepads`)."""

    def __init__(self, params: LiveParameters) -> None:
        self.params = params
        self._lock = threading.Lock()
        self._devices: list[tuple[str, Callable[[], InputSnapshot | None], Mapper]] = []
        self._closers: list[Callable[[], None]] = []

    def add(self, name: str, poll: Callable[[], InputSnapshot | None],
            mapping: str = DEFAULT_KEYBOARD_MAPPING) -> Mapper:  # fmt: skip
        """Read ``poll()`` (a snapshot, or None while absent) through ``mapping``
        (a built-in name or a file); returns its mapper."""
        mapper = Mapper(mapping, params=self.params)
        with self._lock:
            self._devices.append((name, poll, mapper))
        return mapper

    def remove(self, name: str) -> None:
        with self._lock:
            self._devices = [d for d in self._devices if d[0] != name]

    def add_gamepads(self, slots: Iterable[int], mapping: str = DEFAULT_GAMEPAD_MAPPING,
                     manager: Any = None) -> None:  # fmt: skip
        """Gamepads in SDL ``slots`` (needs ``robotsim[io]``; ``manager``: a
        :class:`robotsim.teleop.GamepadManager` to use instead of opening one)."""
        slots = sorted(set(int(s) for s in slots))
        if not slots:
            return
        if manager is None:
            from robotsim.teleop import GamepadManager

            manager = GamepadManager(max_slots=max(slots) + 1)
            self._closers.append(manager.close)
        snaps: dict[int, InputSnapshot] = {}
        first = slots[0]

        def poller(slot: int) -> Callable[[], InputSnapshot | None]:
            def poll() -> InputSnapshot | None:
                if slot == first:  # one SDL poll per round serves every slot
                    snaps.clear()
                    snaps.update(manager.poll())
                return snaps.get(slot)

            return poll

        for slot in slots:
            self.add(f"gamepad {slot}", poller(slot), mapping)

    def names(self) -> list[str]:
        with self._lock:
            return [d[0] for d in self._devices]

    def mappings(self) -> dict[str, Any]:
        """Device name -> its :class:`robotsim.teleop.mapping.InputMapping`."""
        with self._lock:
            return {name: m.mapping for name, _, m in self._devices}

    def poll(self) -> tuple[str, ...]:
        """Read every device once; returns the names of the parameters that changed."""
        with self._lock:
            devices = list(self._devices)
        before = self.params.as_dict()
        for _, poll, mapper in devices:
            snap = poll()
            mapper.update(snap if snap is not None else InputSnapshot())
        after = self.params.as_dict()
        return tuple(k for k in after if after[k] != before[k])

    def close(self) -> None:
        for close in self._closers:
            try:
                close()
            except Exception:  # closing must not fail a studio's stop
                pass
        self._closers.clear()
        with self._lock:
            self._devices.clear()

    def add_closer(self, close: Callable[[], None]) -> None:
        """Call ``close()`` when the studio stops (a device's resources)."""
        self._closers.append(close)
