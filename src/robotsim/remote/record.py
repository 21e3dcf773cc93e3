"""Recording what a served simulation does: the target's state into a run store.

Signal names follow the run store's convention (docs/recording.md): ``base.x``,
``base.y``, ``base.z``, ``base.yaw`` (m, rad), ``base.qw`` ... ``base.qz`` (the root's
orientation), ``q.<joint>`` and ``qd.<joint>`` (rad or m, per s), and for mobile robots
``twist.vx``, ``twist.vy``, ``twist.omega``; a physics world's moving objects record
their pose. With :func:`target_scene` stored as the run's scene, a served run replays
and exports like any other (``docs/export.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from robotsim.recording import Recorder
from robotsim.recording.scene import (
    PhysicsPoseSampler,
    pose_names,
    pose_values,
    robot_doc,
    scene_doc,
)
from robotsim.remote.target import SimulationTarget

__all__ = ["StateSampler", "state_signals", "target_poses", "target_scene"]


def target_scene(target: SimulationTarget) -> dict[str, Any]:
    """The scene document of a served target (a physics world's scene, or the
    kinematic robots at their starts on an unbounded ground)."""
    from robotsim.recording.scene import physics_scene_doc

    world = getattr(target, "world", None)
    if world is not None:
        return physics_scene_doc(world.scene)
    robots = getattr(target, "_robots", {})
    docs = [robot_doc(n, r.model, r.T0, r.q0) for n, r in robots.items()]
    return scene_doc(
        docs, ground={"size": None, "rgba": [0.82, 0.84, 0.86, 1.0]}, engine="kinematic"
    )


def target_poses(target: SimulationTarget) -> Callable[[], list[tuple[str, Any, list[float]]]]:
    """A function giving the target's pose signals now (the run store's
    :func:`~robotsim.recording.scene.pose_names` per robot, moving objects' poses)."""
    world = getattr(target, "world", None)
    if world is not None:
        return PhysicsPoseSampler(world).sample
    robots = getattr(target, "_robots", {})

    def sample() -> list[tuple[str, Any, list[float]]]:
        return [
            (n, pose_names(r.model), pose_values(r.state.T_world_root, r.state.q))
            for n, r in robots.items()
        ]

    return sample


def state_signals(robot_state: dict[str, Any]) -> tuple[tuple[str, ...], list[float]]:
    """One robot's entry of ``target.state()`` -> (names, values) in the convention."""
    pos = robot_state["base"]["position"]
    names = ["base.x", "base.y", "base.z", "base.yaw"]
    values = [pos[0], pos[1], pos[2], robot_state["base"]["yaw"]]
    quat = robot_state["base"].get("quaternion")
    if quat is not None:
        names += ["base.qw", "base.qx", "base.qy", "base.qz"]
        values += [float(v) for v in quat]
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
        self._objects: Any = None  # a physics world's pose sampler, for its objects

    def __call__(self, target: SimulationTarget) -> None:
        t = target.time
        if t + 1e-12 < self._next:
            if t < self._next - 2 * self.period:  # the target was reset: start over
                self._next = t
            else:
                return
        self._next = t + self.period
        world = getattr(target, "world", None)
        if world is not None:  # base pose and joints of one instant (World.poses_now)
            if self._objects is None:
                self._objects = PhysicsPoseSampler(world)
            robots = {r.name for r in world.scene.robots}
            for group, names, values in self._objects.sample():
                if group not in robots:
                    self.recorder.signal(group, t, names, values)
        for robot, st in target.state().items():
            names, values = state_signals(st)
            cached = self._names.get(robot)
            if cached != names:
                self._names[robot] = cached = names
            self.recorder.signal(robot, t, cached, values)
