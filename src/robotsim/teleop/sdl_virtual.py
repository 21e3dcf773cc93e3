"""A virtual SDL joystick: a gamepad in software, for tests and demos without hardware.

SDL 2 can attach virtual joysticks (``SDL_JoystickAttachVirtual``) that look exactly
like USB ones to every SDL user in the process, including pygame. We call it through
ctypes on the SDL library pygame itself loaded (found in ``/proc/self/maps``, else in
``pygame.libs``), so pygame sees the device, its hot-plug events and its values::

    pad = VirtualGamepad()          # appears as a new joystick
    pad.set_hat(0, (0, 1))          # main D-pad up
    pad.set_button(1, True)
    pad.set_axis(0, -0.5)
    pad.detach()                    # unplugged
"""

from __future__ import annotations

import ctypes
import glob
import os
from pathlib import Path

from robotsim.errors import InputError, RobotsimError

__all__ = ["VirtualGamepad", "sdl_library"]

_HAT_BITS = {
    (0, 0): 0,
    (0, 1): 1,
    (1, 0): 2,
    (0, -1): 4,
    (-1, 0): 8,
    (1, 1): 3,
    (1, -1): 6,
    (-1, -1): 12,
    (-1, 1): 9,
}
_SDL: ctypes.CDLL | None = None


def _find_sdl_path() -> str:
    import pygame  # loads SDL

    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                part = line.split()[-1]
                if "libSDL2-2" in part or os.path.basename(part).startswith("libSDL2-2.0.so"):
                    return part
    except OSError:
        pass
    libs = Path(pygame.__file__).resolve().parent.parent / "pygame.libs"
    found = sorted(glob.glob(str(libs / "libSDL2-2*.so*")))
    if found:
        return found[0]
    import ctypes.util

    name = ctypes.util.find_library("SDL2")
    if name:
        return name
    raise RobotsimError("cannot find the SDL2 library pygame uses")


def sdl_library() -> ctypes.CDLL:
    """The SDL 2 library pygame uses, with the joystick functions' signatures set."""
    global _SDL
    if _SDL is not None:
        return _SDL
    sdl = ctypes.CDLL(_find_sdl_path())
    vp, ci = ctypes.c_void_p, ctypes.c_int
    sdl.SDL_JoystickAttachVirtual.argtypes = [ci, ci, ci, ci]
    sdl.SDL_JoystickAttachVirtual.restype = ci
    sdl.SDL_JoystickDetachVirtual.argtypes = [ci]
    sdl.SDL_JoystickDetachVirtual.restype = ci
    sdl.SDL_JoystickOpen.argtypes = [ci]
    sdl.SDL_JoystickOpen.restype = vp
    sdl.SDL_JoystickClose.argtypes = [vp]
    sdl.SDL_JoystickInstanceID.argtypes = [vp]
    sdl.SDL_JoystickInstanceID.restype = ci
    sdl.SDL_NumJoysticks.restype = ci
    sdl.SDL_JoystickGetDeviceInstanceID.argtypes = [ci]
    sdl.SDL_JoystickGetDeviceInstanceID.restype = ci
    sdl.SDL_JoystickSetVirtualAxis.argtypes = [vp, ci, ctypes.c_int16]
    sdl.SDL_JoystickSetVirtualButton.argtypes = [vp, ci, ctypes.c_uint8]
    sdl.SDL_JoystickSetVirtualHat.argtypes = [vp, ci, ctypes.c_uint8]
    sdl.SDL_GetError.restype = ctypes.c_char_p
    _SDL = sdl
    return sdl


class VirtualGamepad:
    """A virtual joystick with ``naxes`` axes, ``nbuttons`` buttons, ``nhats`` hats.

    The SDL joystick subsystem must be initialised (``pygame.joystick.init()``; the
    :class:`~robotsim.teleop.gamepad.GamepadManager` does it). Values take effect at the
    next SDL event pump (``GamepadManager.poll()``).
    """

    def __init__(self, naxes: int = 6, nbuttons: int = 12, nhats: int = 2) -> None:
        import pygame

        if not pygame.joystick.get_init():
            raise RobotsimError(
                "initialise joysticks first (GamepadManager() or pygame.joystick.init())"
            )
        self.naxes, self.nbuttons, self.nhats = naxes, nbuttons, nhats
        self._sdl = sdl_library()
        index = self._sdl.SDL_JoystickAttachVirtual(1, naxes, nbuttons, nhats)
        if index < 0:
            raise RobotsimError(f"SDL_JoystickAttachVirtual failed: {self._sdl.SDL_GetError()}")
        self._handle = self._sdl.SDL_JoystickOpen(index)
        if not self._handle:
            raise RobotsimError(f"SDL_JoystickOpen failed: {self._sdl.SDL_GetError()}")
        self.instance_id = int(self._sdl.SDL_JoystickInstanceID(self._handle))

    @property
    def attached(self) -> bool:
        return self._handle is not None

    def _check(self, kind: str, i: int, n: int) -> None:
        if self._handle is None:
            raise RobotsimError("the virtual gamepad is detached")
        if not 0 <= i < n:
            raise InputError(f"virtual gamepad: {kind} {i} does not exist (0..{n - 1})")

    def set_axis(self, axis: int, value: float) -> None:
        """Axis position in [-1, 1]."""
        self._check("axis", axis, self.naxes)
        v = max(-1.0, min(1.0, float(value)))
        raw = round(v * 32767) if v >= 0 else round(v * 32768)
        self._sdl.SDL_JoystickSetVirtualAxis(self._handle, axis, raw)

    def set_button(self, button: int, pressed: bool) -> None:
        """Button state (0-based SDL button index)."""
        self._check("button", button, self.nbuttons)
        self._sdl.SDL_JoystickSetVirtualButton(self._handle, button, 1 if pressed else 0)

    def set_hat(self, hat: int, value: tuple[int, int]) -> None:
        """Hat (D-pad) as pygame reports it: ``(x, y)``, x right +1, y up +1."""
        self._check("hat", hat, self.nhats)
        key = (int(value[0]), int(value[1]))
        if key not in _HAT_BITS:
            raise InputError(f"virtual gamepad: hat value {value!r}; x and y in -1, 0, 1")
        self._sdl.SDL_JoystickSetVirtualHat(self._handle, hat, _HAT_BITS[key])

    def detach(self) -> None:
        """Unplug the device (a hot-unplug event follows)."""
        if self._handle is None:
            return
        self._sdl.SDL_JoystickClose(self._handle)
        self._handle = None
        for i in range(self._sdl.SDL_NumJoysticks()):
            if self._sdl.SDL_JoystickGetDeviceInstanceID(i) == self.instance_id:
                self._sdl.SDL_JoystickDetachVirtual(i)
                break

    def __enter__(self) -> VirtualGamepad:
        return self

    def __exit__(self, *exc: object) -> None:
        self.detach()
