"""A wheeled base in a physics World: read its planar pose, command a body twist.

:class:`MobileBase` binds a robot of a :class:`robotsim.physics.World` that has a wheel
drive (``omni`` or ``diffdrive`` metadata, or a drive its robot profile infers from a
URDF/MJCF). Wheel rates for a body twist come from the wheels' real geometry in the
compiled world: for wheel ``i`` centred at ``p_i`` (base frame) with axle ``a_i`` and
radius ``r_i``, rolling without slip needs

    rate_i = u_i . (v + w z x p_i) / r_i,     u_i = unit(a_i x z)

which for the library ``omni3`` equals the paper's eq. 1 divided by ``k r`` (tested).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError, UnknownNameError
from robotsim.physics.drives import wheel_matrix
from robotsim.physics.world import World

__all__ = ["MobileBase"]


class MobileBase:
    """The wheeled robot ``robot`` of ``world`` (see the module docstring)."""

    def __init__(self, world: World, robot: str) -> None:
        drives = world.drives
        if robot not in drives:
            raise UnknownNameError("wheeled robot", robot, drives)
        self.world, self.robot = world, robot
        self.drive = drives[robot]
        placement = next(r for r in world.scene.robots if r.name == robot)
        self.base = world.body(f"{robot}/{placement.model.root}")
        self.motors = [world.motor(j) for j in self.drive.wheel_joints]
        self.G = self._geometry()
        self._G = self.G.tolist()
        self.holonomic = self.drive.kind == "omni"
        self._root = int(world.model.body_rootid[self.base.id])

    def _geometry(self) -> np.ndarray:
        w = self.world
        return wheel_matrix(w.model, w.data, self.drive, self.base.id)

    def pose(self) -> np.ndarray:
        """Planar pose ``[x, y, theta]`` (m, m, rad) of the base in the world."""
        return np.array(self.pose_xyt())

    def pose_xyt(self) -> tuple[float, float, float]:
        """:meth:`pose` as three floats."""
        d, b = self.world.data, self.base.id
        x, y, _ = d.xpos[b].tolist()
        R = d.xmat[b]
        return x, y, math.atan2(R[3], R[0])

    def twist(self) -> np.ndarray:
        """Measured body-frame twist ``[vx, vy, w]`` (of the base body's centre of mass)."""
        return np.array(self.twist_xyw())

    def twist_xyw(self) -> tuple[float, float, float]:
        """:meth:`twist` as three floats: what ``mj_objectVelocity`` (``mjOBJ_BODY``, as
        :attr:`~robotsim.physics.BodyHandle.velocity` calls it) computes, the com-based
        ``cvel`` moved from the subtree's centre of mass to the body's (``xipos``), the
        same arithmetic without the call and its array."""
        d = self.world.data
        b = self.base.id
        ax, ay, az, lx, ly, _ = d.cvel[b].tolist()
        px, py, pz = d.xipos[b].tolist()
        cx, cy, cz = d.subtree_com[self._root].tolist()
        dx, dy, dz = px - cx, py - cy, pz - cz
        vx = lx - (dy * az - dz * ay)
        vy = ly - (dz * ax - dx * az)
        R = d.xmat[b].tolist()
        th = math.atan2(R[3], R[0])
        c, s = math.cos(th), math.sin(th)
        return c * vx + s * vy, -s * vx + c * vy, az

    def wheel_rates(self, twist: ArrayLike) -> np.ndarray:
        """Wheel rates (n,) rad/s for a body twist ``[vx, vy, w]``."""
        return self.G @ np.asarray(twist, dtype=np.float64).reshape(3)

    def set_twist(self, twist: ArrayLike) -> np.ndarray:
        """Command the wheel motors for a body twist; returns the wheel rates."""
        vx, vy, w = np.asarray(twist, dtype=np.float64).reshape(3).tolist()
        return np.array(self.set_twist_xyw(vx, vy, w))

    def set_twist_xyw(self, vx: float, vy: float, w: float) -> list[float]:
        """:meth:`set_twist` on floats (m/s, m/s, rad/s); returns the wheel rates."""
        rates = [gx * vx + gy * vy + gw * w for gx, gy, gw in self._G]
        for mot, r in zip(self.motors, rates):
            mot.set(r)
        return rates

    def set_wheel_rates(self, rates: ArrayLike) -> None:
        r = np.asarray(rates, dtype=np.float64).reshape(-1)
        if r.shape != (len(self.motors),):
            raise InputError(
                f"robot {self.robot!r} has {len(self.motors)} wheels, got {r.shape[0]} rates"
            )
        for mot, v in zip(self.motors, r):
            mot.set(float(v))
