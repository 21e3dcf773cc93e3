"""Wheel odometry: the wheels' turns integrated into a planar pose.

Between two readings each wheel joint turned by ``d_i`` (its encoder; Gaussian noise of
``wheel_std`` rad/s times the interval added); the base moved by the least-squares
body displacement ``D = pinv(G) d`` (``G``: wheel rates from a body twist, the wheels'
real geometry at the start, :func:`robotsim.physics.drives.wheel_matrix`), which is
integrated at the mid heading. Whatever the wheels slip in physics (a wheel spinning
on the spot, an omni wheel sliding sideways) shows as drift against the true pose.

Reading fields: ``pose`` ``(3,)`` ``[x, y, theta]`` (m, m, rad) in the frame of the
base's start pose, ``twist`` ``(3,)`` ``[vx, vy, w]`` (m/s, m/s, rad/s, body frame) over
the last interval.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.physics.drives import wheel_matrix
from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor

__all__ = ["Odometry"]


class Odometry(Sensor):
    type = "odometry"

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        drive = world.drives.get(mount.robot)
        if drive is None:
            raise InputError(f"{mount.where}.type: odometry: robot {mount.robot!r} has no drive")
        placement = next(r for r in world.scene.robots if r.name == mount.robot)
        self._base = world.body(f"{mount.robot}/{placement.model.root}").id
        m = world.model
        self._qadr = np.array([m.jnt_qposadr[m.joint(j).id] for j in drive.wheel_joints])
        self._G = wheel_matrix(m, world.data, drive, self._base)
        self._Ginv = np.linalg.pinv(self._G)
        self._std = float(mount.spec.wheel_std)
        super().__init__(world, mount, seed, data)

    def reset(self) -> None:
        super().reset()
        self._last = self.world.data.qpos[self._qadr].copy()
        self._last_t = self.world.time
        self._pose = [0.0, 0.0, 0.0]

    def reading_bytes(self) -> int:
        return 6 * 8  # pose, twist

    def sample(self) -> dict[str, np.ndarray]:
        q = self.world.data.qpos[self._qadr]
        dq = q - self._last
        self._last = q.copy()
        t = self.world.time
        dt, self._last_t = t - self._last_t, t
        if self._std > 0:
            dq = dq + self.rng.normal(0.0, self._std * dt, dq.shape)
        dx, dy, dth = (self._Ginv @ dq).tolist()
        x, y, th = self._pose
        mid = th + dth / 2
        c, s = math.cos(mid), math.sin(mid)
        th = math.atan2(math.sin(th + dth), math.cos(th + dth))
        self._pose = [x + c * dx - s * dy, y + s * dx + c * dy, th]
        return {
            "pose": np.array(self._pose),
            "twist": np.array([dx, dy, dth]) / dt if dt > 0 else np.zeros(3),
        }
