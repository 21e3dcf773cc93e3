"""Recording what a served simulation does: the target's state into a run store.

Signal names follow the run store's convention (docs/recording.md): ``base.x``,
``base.y``, ``base.z``, ``base.yaw`` (m, rad), ``q.<joint>`` and ``qd.<joint>`` (rad or
m, per s), and for mobile robots ``twist.vx``, ``twist.vy``, ``twist.omega``.
"""

from __future__ import annotations

from typing import Any

from robotsim.recording import Recorder
from robotsim.remote.target import SimulationTarget

__all__ = ["StateSampler", "state_signals"]


def state_signals(robot_state: dict[str, Any]) -> tuple[tuple[str, ...], list[float]]:
    """One robot's entry of ``target.state()`` -> (names, values) in the convention."""
    pos = robot_state["base"]["position"]
    names = ["base.x", "base.y", "base.z", "base.yaw"]
    values = [pos[0], pos[1], pos[2], robot_state["base"]["yaw"]]
    for j, v in robot_state["joints"].items():
        names.append(f"q.{j}")
        values.append(v)
    for j, v in robot_state.get("velocities", {}).items():
        names.append(f"qd.{j}")
        values.append(v)
    for k, v in robot_state.get("base_velocity", {}).items():
        names.append(f"twist.{k}")
        values.append(v)
    return tuple(names), values


class StateSampler:
    """An ``on_step`` hook recording every robot's state every ``period`` s of sim time."""

    def __init__(self, recorder: Recorder, period: float = 0.02) -> None:
        self.recorder = recorder
        self.period = period
        self._next = 0.0
        self._names: dict[str, tuple[str, ...]] = {}

    def __call__(self, target: SimulationTarget) -> None:
        t = target.time
        if t + 1e-12 < self._next:
            if t < self._next - 2 * self.period:  # the target was reset: start over
                self._next = t
            else:
                return
        self._next = t + self.period
        for robot, st in target.state().items():
            names, values = state_signals(st)
            cached = self._names.get(robot)
            if cached != names:
                self._names[robot] = cached = names
            self.recorder.signal(robot, t, cached, values)
