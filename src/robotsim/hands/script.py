"""Scripted teleoperation: what a person does with the gamepads, as a list of steps.

Each step turns into the same per-tick :class:`ArmCommand` values a gamepad produces,
so a script exercises exactly the teleoperation path (speed step, limits, blocking,
closing fingers stopping at touch):

- ``move``: push the arm joints towards target angles at the speed step (the rate is
  cut on the last tick so the target is met exactly); done when all are reached, or
  when nothing moved for a tick (blocked). ``together``: the joints arrive together,
  on the straight line in joint space (the path a planner checked).
- ``close``: hold the close button until the hand grasps (or the fingers stop).
- ``open``: hold the open button until the fingers reach their open limit.
- ``shape``: close or open the fingers to an angle (a planned grasp's pre-shape; the
  last tick's speed is cut so the angle is met exactly).
- ``wait``: do nothing for some seconds; ``wait_for``: until an event type happens.

Every step has a time limit; a step that runs out is recorded, not raised, so the
summary shows how far the script got.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from robotsim.errors import InputError
from robotsim.hands.commands import ArmCommand, Grip
from robotsim.hands.layout import ARM_ROLES, HandLayout
from robotsim.hands.scene import HandsScene
from robotsim.hands.state import EVENT_TYPES, HandEvent, HandsObservable, HandsState
from robotsim.model.robot import RobotModel

__all__ = ["HandsSim", "ScriptPlayer", "ScriptResult", "ScriptStep", "StepRecord", "run_script"]

STEP_KINDS = ("move", "close", "open", "shape", "wait", "wait_for")


class HandsSim(Protocol):
    """What a script drives: :class:`KinematicHands` or the MuJoCo mode."""

    mode: str
    dt: float
    model: RobotModel
    scene: HandsScene
    layouts: dict[str, HandLayout]
    observable: HandsObservable

    @property
    def t(self) -> float: ...

    def reset(self) -> None: ...

    def command_q(self) -> np.ndarray:
        """The commanded joint values ``(nq,)`` (rad)."""

    def step(self, commands: Mapping[str, ArmCommand] | None = None) -> tuple[HandEvent, ...]: ...

    def snapshot(self) -> HandsState: ...


@dataclass(frozen=True)
class ScriptStep:
    """One step (see the module docstring).

    Attributes:
        kind: one of ``move``, ``close``, ``open``, ``wait``, ``wait_for``.
        hand: ``"L"``/``"R"`` (move, close, open).
        targets: arm role -> angle (rad), for ``move``.
        seconds: duration of ``wait``.
        event: event type of ``wait_for``.
        max_time: the step gives up after this long (s).
        label: shown in the summary.
        together: ``move``: every joint arrives at once (a straight line in joint space).
        fingers: ``shape``: the finger joints' angle (rad).
    """

    kind: str
    hand: str | None = None
    targets: Mapping[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    event: str | None = None
    max_time: float = 10.0
    label: str = ""
    together: bool = False
    fingers: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in STEP_KINDS:
            raise InputError(f"script step kind {self.kind!r}; valid: {', '.join(STEP_KINDS)}")
        if self.kind in ("move", "close", "open", "shape") and self.hand not in ("L", "R"):
            raise InputError(
                f"script step {self.kind!r}: hand must be 'L' or 'R', got {self.hand!r}"
            )
        for role in self.targets:
            if role not in ARM_ROLES:
                raise InputError(
                    f"script move: unknown arm joint {role!r}; valid: {', '.join(ARM_ROLES)}"
                )
        if self.kind == "wait_for" and self.event not in EVENT_TYPES:
            raise InputError(
                f"script wait_for: event {self.event!r}; valid: {', '.join(EVENT_TYPES)}"
            )
        if self.kind == "shape" and (self.fingers is None or not np.isfinite(self.fingers)):
            raise InputError("script shape: fingers must be an angle (rad)")
        if self.max_time <= 0 or self.seconds < 0:
            raise InputError("script step: max_time must be > 0 and seconds >= 0")


@dataclass(frozen=True)
class StepRecord:
    label: str
    kind: str
    hand: str | None
    t_start: float
    t_end: float
    completed: bool


@dataclass(frozen=True)
class ScriptResult:
    """Events and per-step records of a script run."""

    events: tuple[HandEvent, ...]
    steps: tuple[StepRecord, ...]
    final: HandsState

    @property
    def completed(self) -> bool:
        return all(s.completed for s in self.steps)


def _move_command(sim: HandsSim, step: ScriptStep, speed: float) -> tuple[ArmCommand | None, bool]:
    """The rates that bring the arm to its targets; (None, True) when reached."""
    lay = sim.layouts[step.hand or "L"]
    q = sim.command_q()
    per_tick = speed * sim.dt
    errs = {}
    for role, target in step.targets.items():
        err = target - q[sim.model.joint_index(lay.arm_joints[role])]
        if abs(err) > 1e-12:
            errs[role] = float(err)
    if not errs:
        return None, True
    # together: the farthest joint sets the pace, the others keep in proportion
    scale = max(per_tick, max(abs(e) for e in errs.values())) if step.together else per_tick
    rates = {r: float(np.clip(e / scale, -1.0, 1.0)) for r, e in errs.items()}
    return ArmCommand(rates=rates, speed=speed), False


def _shape_command(sim: HandsSim, step: ScriptStep, speed: float) -> ArmCommand | None:
    """The grip that brings the fingers to ``step.fingers`` (None when there): the
    farthest finger sets the direction, the last tick's speed is cut to meet it."""
    lay = sim.layouts[step.hand or "L"]
    q = sim.command_q()
    errs = [float(step.fingers) - q[sim.model.joint_index(j)] for j in lay.finger_joints]  # type: ignore[arg-type]
    k = int(np.argmax(np.abs(errs)))
    if abs(errs[k]) <= 1e-9:
        return None
    closing = errs[k] * lay.closing[k] > 0
    step_speed = min(speed, abs(errs[k]) / sim.dt)
    return ArmCommand(grip=Grip.CLOSE if closing else Grip.OPEN, speed=step_speed)


class ScriptPlayer:
    """Plays ``steps`` on ``sim`` one simulation tick per :meth:`tick` call (the studio
    drives it from its clock; :func:`run_script` runs it to the end).

    Args:
        speed: the joint speed step (rad/s).
        on_tick: called with the new state after every tick.
    """

    def __init__(
        self,
        sim: HandsSim,
        steps: Sequence[ScriptStep],
        speed: float,
        on_tick: Callable[[HandsState], None] | None = None,
    ) -> None:
        self.sim, self.steps, self.speed, self.on_tick = sim, list(steps), speed, on_tick
        self.events: list[HandEvent] = []
        self.records: list[StepRecord] = []
        self.index = 0
        self._prev_start = 0
        self._begin()

    @property
    def finished(self) -> bool:
        return self.index >= len(self.steps)

    @property
    def current(self) -> ScriptStep | None:
        return None if self.finished else self.steps[self.index]

    def extend(self, steps: Sequence[ScriptStep]) -> None:
        """Append steps (a finished player starts on them at its next tick)."""
        was_finished = self.finished
        self.steps.extend(steps)
        if was_finished and not self.finished:
            self._begin()

    def _begin(self) -> None:
        self._t0 = self.sim.t
        # wait_for also accepts an event that already happened during the previous step
        self._seen, self._prev_start = self._prev_start, len(self.events)

    def _end(self, done: bool) -> None:
        step = self.steps[self.index]
        n = self.index
        label = step.label or f"{n}:{step.kind}{'' if step.hand is None else ' ' + step.hand}"
        self.records.append(StepRecord(label, step.kind, step.hand, self._t0, self.sim.t, done))
        self.index += 1
        if not self.finished:
            self._begin()

    def _decide(self, step: ScriptStep) -> tuple[dict[str, ArmCommand], bool | None]:
        """This tick's commands, or an outcome (True/False) when the step is over."""
        sim, hand = self.sim, step.hand or "L"
        if step.kind == "move":
            c, done = _move_command(sim, step, self.speed)
            return ({}, True) if done else ({hand: c}, None)  # type: ignore[dict-item]
        if step.kind == "close":
            if sim.snapshot().hands[hand].grasped:
                return {}, True
            return {hand: ArmCommand(grip=Grip.CLOSE, speed=self.speed)}, None
        if step.kind == "open":
            return {hand: ArmCommand(grip=Grip.OPEN, speed=self.speed)}, None
        if step.kind == "shape":
            c = _shape_command(sim, step, self.speed)
            return ({}, True) if c is None else ({hand: c}, None)
        if step.kind == "wait":
            return ({}, True) if sim.t - self._t0 >= step.seconds - 1e-9 else ({}, None)
        if any(e.type == step.event for e in self.events[self._seen :]):
            return {}, True
        return {}, None

    def tick(self) -> bool:
        """Advance the simulation one tick (closing steps that end without one first);
        False once the script is over (nothing was stepped)."""
        sim = self.sim
        while not self.finished:
            step = self.steps[self.index]
            if sim.t - self._t0 >= step.max_time - 1e-9:
                self._end(False)  # out of time
                continue
            cmd, outcome = self._decide(step)
            if outcome is not None:
                self._end(outcome)
                continue
            hand = step.hand or "L"
            # this hand's fingers (the other hand's grip may move its own meanwhile)
            fingers = [sim.model.joint_index(j) for j in sim.layouts[hand].finger_joints]
            before = sim.command_q()[fingers].copy()
            self.events.extend(sim.step(cmd))
            if self.on_tick is not None:
                self.on_tick(sim.snapshot())
            if step.kind == "move" and sim.snapshot().hands[hand].blocked:
                self._end(_move_command(sim, step, self.speed)[1])  # something in the way
            elif step.kind in ("close", "open", "shape") and np.array_equal(
                before, sim.command_q()[fingers]
            ):
                # fully open; a stalled close did not grasp; a stalled shape is blocked
                self._end(step.kind == "open")
            return True
        return False

    def result(self) -> ScriptResult:
        return ScriptResult(tuple(self.events), tuple(self.records), self.sim.snapshot())


def run_script(
    sim: HandsSim,
    steps: Sequence[ScriptStep],
    speed: float,
    on_tick: Callable[[HandsState], None] | None = None,
) -> ScriptResult:
    """Run ``steps`` in order on ``sim`` at joint speed step ``speed`` (rad/s)."""
    player = ScriptPlayer(sim, steps, speed, on_tick)
    while player.tick():
        pass
    return player.result()
