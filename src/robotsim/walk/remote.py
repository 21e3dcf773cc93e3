"""A walking humanoid as a remote-control target: ``robotsim serve ROBOT --walk``.

The UDP server (:mod:`robotsim.remote.server`, docs/protocol.md) drives it like a mobile
base: ``set_base_velocity`` (``vx``, ``vy`` m/s, ``omega`` rad/s, body frame) steers the
walk (:class:`~robotsim.walk.engine.WalkEngine`: steps replanned, clamped to the step
limits; all zero: the feet come together and it stands), like NAO's ``moveToward``.
The legs are the walk's, so ``set_joints`` takes no joint. ``state`` gives the root
pose, the joints, the measured body twist, the walk's planned footsteps (``footsteps``:
foot, x, y, yaw, lift and land times) and, after a fall, ``fell``/``reason``.
``reset`` puts it back standing where it started.

A ``kind: walk`` scenario served (``robotsim serve walk_commands``) is the same target,
with the file's robot, floor friction and walk parameters; its scheduled commands and
pushes are left out: the remote client is the controller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.remote.target import RobotInfo, pos_quat_json
from robotsim.walk.biped import Biped

__all__ = ["WalkTarget"]


class WalkTarget:
    """One biped walking in MuJoCo, steered over UDP (module docs)."""

    def __init__(self, biped: Biped, friction: float | None = None, params: Any = None) -> None:
        self.biped = biped
        self.name = biped.name
        self.friction = friction
        self.params = params  # WalkParams (None: sized from the robot)
        self._build()

    def _build(self) -> None:
        from robotsim.walk.engine import WalkEngine
        from robotsim.walk.simulate import CommandDriver, WalkSim

        self.driver = CommandDriver(WalkEngine(self.biped, self.params))
        self.sim = WalkSim(self.driver, friction=self.friction, record=False)
        self._prev: tuple[float, np.ndarray] | None = None

    @property
    def dt(self) -> float:
        return self.sim.dt

    @property
    def time(self) -> float:
        return self.sim.t

    def robots(self) -> Mapping[str, RobotInfo]:
        return {self.name: RobotInfo(self.name, (), (), True)}

    def _check(self, robot: str) -> None:
        if robot != self.name:
            raise UnknownNameError("robot", robot, [self.name])

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            T = self.sim.base.pose
            self._prev = (self.sim.t, T)
            self.sim.step()

    def _twist(self) -> dict[str, float]:
        """The measured planar twist of the root (body frame) over the last step."""
        if self._prev is None:
            return {"vx": 0.0, "vy": 0.0, "omega": 0.0}
        t0, T0 = self._prev
        T1 = self.sim.base.pose
        dt = max(self.sim.t - t0, 1e-9)
        yaw0 = math.atan2(T0[1, 0], T0[0, 0])
        yaw1 = math.atan2(T1[1, 0], T1[0, 0])
        v = (T1[:2, 3] - T0[:2, 3]) / dt
        c, s = math.cos(yaw1), math.sin(yaw1)
        dyaw = (yaw1 - yaw0 + math.pi) % (2 * math.pi) - math.pi
        return {"vx": c * v[0] + s * v[1], "vy": -s * v[0] + c * v[1], "omega": dyaw / dt}

    def state(self, robots: Sequence[str] | None = None) -> dict[str, Any]:
        for r in robots or ():
            self._check(r)
        sim = self.sim
        model = self.biped.model
        q = sim.joint_positions()
        entry: dict[str, Any] = {
            "base": pos_quat_json(sim.base.position, sim.base.quat),
            "joints": {n: float(v) for n, v in zip(model.joint_names, q)},
            "velocities": {},
            "base_velocity": self._twist(),
            "footsteps": [
                {
                    "foot": "left" if s.side == 0 else "right",
                    "x": s.pose[0],
                    "y": s.pose[1],
                    "yaw": s.pose[2],
                    "t_lift": s.t_lift,
                    "t_land": s.t_land,
                }
                for s in self.driver.engine.steps
            ],
        }
        if sim.fell:
            entry["fell"] = True
            entry["reason"] = sim.reason
        return {self.name: entry}

    def link_poses(self, robot: str) -> dict[str, np.ndarray]:
        self._check(robot)
        P = self.sim.link_poses()
        return {lk: P[i] for i, lk in enumerate(self.biped.model.link_names)}

    def set_joint_targets(self, robot: str, targets: Mapping[str, float]) -> None:
        self._check(robot)
        if targets:
            raise InputError(
                f"robot {robot!r} is walking: its joints follow the walk; steer it with "
                "set_base_velocity"
            )

    def set_base_velocity(self, robot: str, vx: float, vy: float, omega: float) -> None:
        self._check(robot)
        self.driver.command(float(vx), float(vy), float(omega))

    def set_wheel_speeds(self, robot: str, speeds: Mapping[str, float]) -> None:
        self._check(robot)
        if speeds:
            raise InputError(f"robot {robot!r} has no wheels")

    def reset(self) -> None:
        self._build()
