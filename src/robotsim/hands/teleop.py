"""Live teleoperation of the two arms: input devices -> per-arm commands -> a tick.

Two gamepads drive two arms (slot order given by ``--gamepad 0,1``: the first slot
listed drives the left arm); the keyboard drives one arm. Each device goes through a
:class:`robotsim.teleop.Mapper` (the arm paper's layout by default) whose joint names
are checked against the robot once, at start-up; its :class:`TeleopCommand` becomes an
:class:`ArmCommand` here (joint rates by arm role, close/open, the speed step).
:class:`HandsTeleop` ticks the simulation (kinematic or physics) with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robotsim.errors import InputError, UnknownNameError
from robotsim.hands.commands import ArmCommand, Grip
from robotsim.hands.layout import HandLayout
from robotsim.hands.script import HandsSim
from robotsim.hands.state import HandEvent

__all__ = ["DEFAULT_GAMEPAD_MAPPING", "DEFAULT_KEYBOARD_MAPPING", "HandsTeleop", "arm_command"]

DEFAULT_GAMEPAD_MAPPING = "arm_paper"
DEFAULT_KEYBOARD_MAPPING = "keyboard_arm"


def arm_command(cmd: Any, layout: HandLayout) -> ArmCommand:
    """A :class:`robotsim.teleop.TeleopCommand` for one arm -> :class:`ArmCommand`.

    Every joint it names must be an arm joint of ``layout``'s side (fingers move with
    the grip buttons only); otherwise :class:`UnknownNameError` lists the valid ones.
    """
    role_of = {name: role for role, name in layout.arm_joints.items()}
    rates: dict[str, float] = {}
    for name, rate in cmd.joint_rates.items():
        if name not in role_of:
            raise UnknownNameError(f"arm joint of hand {layout.side}", name, list(role_of))
        rates[role_of[name]] = max(-1.0, min(1.0, float(rate)))
    speed = float(cmd.speed) * float(getattr(cmd, "max_speed_scale", 1.0))
    return ArmCommand(rates=rates, grip=Grip(int(cmd.grip)), speed=speed)


class HandsTeleop:
    """Devices bound to arms, ticking a hands simulation.

    Args:
        sim: :class:`KinematicHands` or :class:`PhysicsHands`.
        gamepads: SDL slots, in arm order (``[0, 1]``: slot 0 left, slot 1 right);
            empty for none.
        keyboard: drive ``keyboard_side`` from the terminal keyboard.
        gamepad_mapping, keyboard_mapping: mapping names or files (robotsim-input/1).
        manager, keyboard_device: devices to use instead of opening the real ones
            (a :class:`GamepadManager`, a :class:`TerminalKeyboard`).

    Every device shares one :class:`robotsim.teleop.LiveParameters` (``params``): its
    max speed scales the arm speed step, its gain scale the physics servos (kp and kd,
    :meth:`PhysicsHands.set_gain_scale`), its time scale how many simulation ticks one
    :meth:`tick` advances (2: two; 0.5: one every other call) — in the studio its clock
    (which shares these parameters) runs at the time scale instead.
    """

    def __init__(
        self,
        sim: HandsSim,
        gamepads: Sequence[int] = (0, 1),
        keyboard: bool = False,
        keyboard_side: str = "L",
        gamepad_mapping: str = DEFAULT_GAMEPAD_MAPPING,
        keyboard_mapping: str = DEFAULT_KEYBOARD_MAPPING,
        manager: Any = None,
        keyboard_device: Any = None,
    ) -> None:
        from robotsim.teleop import Mapper
        from robotsim.teleop.params import LiveParameters

        self.sim = sim
        self.params = LiveParameters()
        self._gain_applied = 1.0
        self._ticks_owed = 0.0
        sides = ("L", "R")
        if len(gamepads) > 2:
            raise InputError(f"--gamepad: at most two pads (one per arm), got {list(gamepads)}")
        if len(set(gamepads)) != len(gamepads) or any(s < 0 for s in gamepads):
            raise InputError(f"--gamepad: slots must be distinct and >= 0, got {list(gamepads)}")
        if keyboard_side not in sides:
            raise InputError(f"keyboard side must be 'L' or 'R', got {keyboard_side!r}")
        # A mapping may only drive the arm joints of its side (fingers: grip buttons).
        arm = {s: list(sim.layouts[s].arm_joints.values()) for s in sides}
        self.pad_side = {slot: sides[k] for k, slot in enumerate(gamepads)}
        self.pad_mappers = {
            slot: Mapper(gamepad_mapping, {"side": side}, arm[side], params=self.params)
            for slot, side in self.pad_side.items()
        }
        self.keyboard_side = keyboard_side
        self.key_mapper = (
            Mapper(
                keyboard_mapping, {"side": keyboard_side}, arm[keyboard_side], params=self.params
            )
            if keyboard
            else None
        )
        self._manager = manager
        self._keyboard = keyboard_device
        self.last_commands: dict[str, ArmCommand] = {}

    # ----------------------------------------------------------------- devices
    @property
    def keyboard_device(self) -> Any:
        """The keyboard in use (terminal or studio page), or None."""
        return self._keyboard

    def open_devices(self) -> None:
        """Open the gamepads (SDL) and the terminal keyboard unless given."""
        from robotsim.teleop import GamepadManager, TerminalKeyboard

        if self.pad_mappers and self._manager is None:
            self._manager = GamepadManager(max_slots=max(self.pad_mappers) + 1)
        if self.key_mapper is not None and self._keyboard is None:
            self._keyboard = TerminalKeyboard()

    def close(self) -> None:
        if self._keyboard is not None and hasattr(self._keyboard, "close"):
            self._keyboard.close()
        if self._manager is not None and hasattr(self._manager, "close"):
            self._manager.close()

    def devices(self) -> list[str]:
        """One line per bound device, for the panel and the terminal."""
        out = []
        names = {}
        if self._manager is not None:
            names = {d.slot: d.name for d in self._manager.devices()}
        for slot, side in self.pad_side.items():
            out.append(f"gamepad {slot} -> {side} arm: {names.get(slot, 'not connected')}")
        if self.key_mapper is not None:
            out.append(f"keyboard -> {self.keyboard_side} arm")
        return out

    def read_commands(self) -> dict[str, ArmCommand]:
        """Poll every device once; the command of each arm (a side driven by two
        devices adds their rates)."""
        cmds: dict[str, ArmCommand] = {}
        snaps: Mapping[int, Any] = self._manager.poll() if self._manager is not None else {}
        for slot, mapper in self.pad_mappers.items():
            snap = snaps.get(slot)
            if snap is not None:
                side = self.pad_side[slot]
                cmds[side] = _merge(
                    cmds.get(side), arm_command(mapper.update(snap), self.sim.layouts[side])
                )
        if self.key_mapper is not None and self._keyboard is not None:
            side = self.keyboard_side
            tc = self.key_mapper.update(self._keyboard.poll())
            cmds[side] = _merge(cmds.get(side), arm_command(tc, self.sim.layouts[side]))
        return cmds

    def tick(self, time_scaled: bool = True) -> tuple[HandEvent, ...]:
        """Read the devices and advance the simulation by the time scale (in ticks,
        the fraction carried to the next call); with ``time_scaled`` False by one tick
        (a caller whose clock runs at the time scale already: the studio)."""
        self.last_commands = self.read_commands()
        if self.params.gain_scale != self._gain_applied:
            set_gain = getattr(self.sim, "set_gain_scale", None)
            if set_gain is not None:  # the kinematic hands have no servos
                set_gain(self.params.gain_scale)
            self._gain_applied = self.params.gain_scale
        self._ticks_owed += self.params.time_scale if time_scaled else 1.0
        events: tuple[HandEvent, ...] = ()
        while self._ticks_owed >= 1.0 - 1e-9:
            self._ticks_owed -= 1.0
            events += self.sim.step(self.last_commands)
        return events


def _merge(a: ArmCommand | None, b: ArmCommand) -> ArmCommand:
    if a is None:
        return b
    rates = dict(a.rates)
    for role, r in b.rates.items():
        rates[role] = max(-1.0, min(1.0, rates.get(role, 0.0) + r))
    grip = a.grip if b.grip is Grip.HOLD else b.grip
    return ArmCommand(rates=rates, grip=grip, speed=max(a.speed, b.speed))
