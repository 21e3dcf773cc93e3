"""The Walk tab: steer a walking humanoid (sliders, the page keyboard, a gamepad), stop
it, push it, and see what it does (docs/walk.md, docs/input.md).

Keys (tick *Keyboard*, click the 3D view): arrows or W/S forward and back, A/D sideways,
Q/E or left/right turn, +/- the speed step (the ``keyboard_base`` mapping); a gamepad
(tick *Gamepad*, ``robotsim[io]``): left stick forward/sideways, right stick turn
(``mobile_base``). A full stick or key asks half the fastest the robot's step limits
allow (the driver's ``cruise``), times the speed step (+/-: ×0.25 to ×2, clamped to
the limits). Steering while the studio is paused starts its clock: a key held in the
page walks the robot at once, as on a live robot.
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any

from robotsim.studio.walk.driver import WalkDriver

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["WalkPanel"]

_IDLE = (
    "**No walk is open.** Open a walk scenario (Open tab → Scenario → walk_commands) to "
    "steer a humanoid walking in physics."
)


class WalkPanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.status = gui.add_markdown(_IDLE)
        self.vx = gui.add_slider("Forward (m/s)", min=-0.5, max=1.0, step=0.01, initial_value=0.0)
        self.vy = gui.add_slider("Left (m/s)", min=-0.5, max=0.5, step=0.01, initial_value=0.0)
        self.wz = gui.add_slider("Turn (°/s)", min=-90, max=90, step=1, initial_value=0)
        self.stop = gui.add_button("Stop", icon="player-stop")  # type: ignore[arg-type]
        self.push = gui.add_button("Push sideways", icon="hand-stop")  # type: ignore[arg-type]
        self.keys = gui.add_checkbox(
            "Keyboard", initial_value=False, hint="Arrows/WASD walk, QE turn (click the 3D view)"
        )
        self.pad = gui.add_checkbox(
            "Gamepad", initial_value=False, hint="Left stick walks, right stick turns (io extra)"
        )
        self.keyboard: Any = None
        self.key_mapper: Any = None
        self.key_script: Any = None  # the page script's GUI element
        self.pads: Any = None
        self.pad_mapper: Any = None
        # viser runs GUI callbacks on a pool of threads: a box unticked and ticked again
        # quickly has its two callbacks run at once or in either order. Each one, under
        # this lock, makes the devices follow the box's value as it is then, so the last
        # to run leaves what the box shows (before, a "tick" callback could find the old
        # endpoint still open and keep it, then the "untick" one close it: ticked, deaf).
        self._devices = threading.Lock()

        for s in (self.vx, self.vy, self.wz):

            @s.on_update
            @studio.guarded("walk command")
            def _(_) -> None:  # type: ignore[no-untyped-def]
                self.send_sliders()

        @self.stop.on_click
        @studio.guarded("stop walking")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            for s in (self.vx, self.vy, self.wz):
                s.value = 0
            self.send_sliders()

        @self.push.on_click
        @studio.guarded("push")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            d = self.driver
            if d is not None:
                with studio.locked():
                    d.sim.push(0.05 * d.biped.mass * 0.1 * 10, (0.0, 1.0))

        @self.keys.on_update
        @studio.guarded("walk keyboard")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            with self._devices:
                self.use_keyboard(self.keys.value)

        @self.pad.on_update
        @studio.guarded("walk gamepad")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            with self._devices:
                self.use_gamepad(self.pad.value)

        studio.on("driver", self.on_driver)
        studio.on("clock", self.on_clock)
        self.on_driver()

    @property
    def driver(self) -> WalkDriver | None:
        return self.studio.driver_as(WalkDriver)

    def on_driver(self) -> None:
        d = self.driver
        if d is None:
            self.status.content = _IDLE
            return
        vx, vy, wz = d.limits
        self.vx.min, self.vx.max = -round(0.5 * vx, 3), round(vx, 3)
        self.vy.min, self.vy.max = -round(vy, 3), round(vy, 3)
        w = round(math.degrees(wz))
        self.wz.min, self.wz.max = -w, w
        self.status.content = d.status()

    def send_sliders(self) -> None:
        self.steer((self.vx.value, self.vy.value, math.radians(self.wz.value)))

    def steer(self, v: tuple[float, float, float]) -> None:
        """Send ``(vx, vy, wz)`` to the walk; a non-zero command while paused plays the
        clock (the walk only steps while the studio plays)."""
        d = self.driver
        if d is None:
            return
        with self.studio.locked():
            d.set_velocity(*v)
        if any(v) and not self.studio.playing:
            self.studio.play(True)

    def use_keyboard(self, on: bool) -> None:
        if not on:
            if self.keyboard is not None:
                self.keyboard.close()
            if self.key_script is not None:
                self.key_script.remove()
            self.keyboard = self.key_mapper = self.key_script = None
            return
        if self.keyboard is not None:
            return  # already reading the page's keys
        from robotsim.studio.keyboard import BrowserKeyboard
        from robotsim.teleop import Mapper

        self.key_mapper = Mapper("keyboard_base")
        self.keyboard = BrowserKeyboard(getattr(self.studio, "host", "127.0.0.1"))
        bound = [b.key for b in self.key_mapper.mapping.bindings if b.key is not None]
        self.key_script = self.keyboard.install(self.studio.gui, self.studio.port, bound)

    def use_gamepad(self, on: bool) -> None:
        if not on:
            if self.pads is not None:
                self.pads.close()
            self.pads = self.pad_mapper = None
            return
        from robotsim.teleop import GamepadManager, Mapper

        self.pads = GamepadManager(max_slots=1)
        self.pad_mapper = Mapper("mobile_base")

    def poll_devices(self) -> None:
        """Keys and gamepad -> the walk command: a full key or stick asks the driver's
        cruise speed (half the step limits; the mapping's rates in
        [-1, 1]) times the mapping's speed step, clamped to the step limits."""
        d = self.driver
        if d is None:
            return
        rates, scale = None, 1.0
        if self.key_mapper is not None and self.keyboard is not None:
            cmd = self.key_mapper.update(self.keyboard.poll())
            if any(cmd.base_rates):
                rates, scale = cmd.base_rates, cmd.base_scale
        if rates is None and self.pad_mapper is not None and self.pads is not None:
            from robotsim.teleop import InputSnapshot

            cmd = self.pad_mapper.update(self.pads.poll().get(0, InputSnapshot()))
            if any(cmd.base_rates):
                rates, scale = cmd.base_rates, cmd.base_scale
        if rates is None:
            if self.key_mapper is None and self.pad_mapper is None:
                return
            rates = (0.0, 0.0, 0.0)
            if any((self.vx.value, self.vy.value, self.wz.value)):
                return  # the sliders steer
        v = (max(-m, min(m, r * c * scale)) for r, c, m in zip(rates, d.cruise, d.limits))
        self.steer(tuple(v))  # type: ignore[arg-type]

    def on_clock(self) -> None:
        d = self.driver
        if d is None:
            return
        self.poll_devices()
        self.status.content = d.status()
