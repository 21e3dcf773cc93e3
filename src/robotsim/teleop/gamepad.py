"""Gamepads through pygame/SDL 2: several at once, plugged and unplugged at any time.

:class:`GamepadManager` gives each connected pad a *slot* (0, 1, ...): the lowest free
slot when it is plugged in, freed when it is unplugged, so "two gamepads = two arms"
stays stable when one pad is replugged. :meth:`GamepadManager.poll` pumps SDL's events
and returns one :class:`InputSnapshot` per slot.

No window is opened: SDL's video driver defaults to ``dummy`` and joystick events are
read in the background (``SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS``), so this works
headless, beside the web studio, over SSH.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GamepadInfo", "GamepadManager", "InputSnapshot"]


@dataclass(frozen=True)
class InputSnapshot:
    """The state of one input device at one instant.

    ``axes`` in [-1, 1] (SDL order: usually left stick x, y, ...; y is +1 *down*);
    ``buttons`` pressed flags (0-based SDL indices); ``hats`` D-pads as ``(x, y)``
    with x right +1 and y up +1; ``keys`` names of keys held (keyboard devices).
    """

    axes: tuple[float, ...] = ()
    buttons: tuple[bool, ...] = ()
    hats: tuple[tuple[int, int], ...] = ()
    keys: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class GamepadInfo:
    slot: int
    name: str
    instance_id: int
    guid: str
    axes: int
    buttons: int
    hats: int


class GamepadManager:
    """All connected gamepads, by slot.

    Args:
        max_slots: at most this many pads get a slot (extra pads are ignored until a
            slot frees up).
    """

    def __init__(self, max_slots: int = 2) -> None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS", "1")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        from robotsim.extras import require

        pygame = require("pygame", "gamepads (--gamepad)")
        self._pg = pygame
        if not pygame.display.get_init():
            pygame.display.init()  # the event queue needs the (dummy) video subsystem
        pygame.joystick.init()
        from robotsim.teleop.sdl_virtual import sdl_library

        self._sdl = sdl_library()
        self.max_slots = max_slots
        self._pads: dict[int, Any] = {}  # instance id -> pygame Joystick
        self._slot_of: dict[int, int] = {}  # instance id -> slot
        self.poll()

    def _add(self, device_index: int) -> None:
        used = set(self._slot_of.values())
        free = [s for s in range(self.max_slots) if s not in used]
        if not free:  # no slot: ignored until one frees up
            return
        try:
            js = self._pg.joystick.Joystick(device_index)
        except self._pg.error:  # unplugged again in the meantime
            return
        self._pads[js.get_instance_id()] = js
        self._slot_of[js.get_instance_id()] = free[0]

    def _remove(self, instance_id: int) -> None:
        self._pads.pop(instance_id, None)
        self._slot_of.pop(instance_id, None)

    def poll(self) -> dict[int, InputSnapshot]:
        """Pump SDL events, notice plugged/unplugged pads; the current state of every slot.

        Hot-plug is read from SDL's device list rather than from pygame's device events
        (pygame cannot convert the events of a device it never opened), so a pad that
        came and went between two polls is simply never seen.
        """
        pg = self._pg
        pg.event.pump()
        pg.event.clear(
            (
                pg.JOYDEVICEADDED,
                pg.JOYDEVICEREMOVED,
                pg.JOYAXISMOTION,
                pg.JOYBUTTONDOWN,
                pg.JOYBUTTONUP,
                pg.JOYHATMOTION,
                pg.JOYBALLMOTION,
            )
        )
        sdl = self._sdl
        present = {
            int(sdl.SDL_JoystickGetDeviceInstanceID(i)): i
            for i in range(int(sdl.SDL_NumJoysticks()))
        }
        for iid in [i for i in self._pads if i not in present]:
            self._remove(iid)
        for iid, index in sorted(present.items()):
            if iid not in self._pads:
                self._add(index)
        out = {}
        for iid, js in self._pads.items():
            out[self._slot_of[iid]] = InputSnapshot(
                axes=tuple(js.get_axis(i) for i in range(js.get_numaxes())),
                buttons=tuple(bool(js.get_button(i)) for i in range(js.get_numbuttons())),
                hats=tuple(tuple(js.get_hat(i)) for i in range(js.get_numhats())),
            )
        return dict(sorted(out.items()))

    def devices(self) -> list[GamepadInfo]:
        """The pads holding a slot, by slot."""
        infos = [
            GamepadInfo(
                self._slot_of[iid],
                js.get_name(),
                iid,
                js.get_guid(),
                js.get_numaxes(),
                js.get_numbuttons(),
                js.get_numhats(),
            )
            for iid, js in self._pads.items()
        ]
        return sorted(infos, key=lambda i: i.slot)

    def close(self) -> None:
        """Forget the pads. SDL's joystick subsystem stays up: other managers, virtual
        pads or pygame users in the process may still use it."""
        self._pads.clear()
        self._slot_of.clear()

    def __enter__(self) -> GamepadManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
