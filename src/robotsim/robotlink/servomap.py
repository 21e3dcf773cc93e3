"""Joint values <-> Dynamixel ticks, from a robot profile's ``servos`` section.

``tick = center + direction * (degrees(q) - offset_deg) * ticks_per_rev / 360``,
rounded and clipped to ``[0, ticks_per_rev - 1]``; the inverse maps back to radians.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError
from robotsim.model.robot import RobotModel
from robotsim.motion.profile import RobotProfile

__all__ = ["ServoMap"]


@dataclass(frozen=True, eq=False)
class ServoMap:
    """Servo ids, directions and offsets for the joints of ``model`` listed in the
    profile, in ``joints`` order; ``index[k]`` is joint ``k``'s position in ``q``."""

    joints: tuple[str, ...]
    ids: np.ndarray
    index: np.ndarray
    direction: np.ndarray
    offset_rad: np.ndarray
    ticks_per_rad: float
    center: int
    max_tick: int

    @classmethod
    def from_profile(cls, model: RobotModel, profile: RobotProfile) -> ServoMap:
        bus = profile.servos
        if not bus.joints:
            raise InputError(f"profile of {profile.robot}: no servos listed")
        names = tuple(bus.joints)
        ids = [bus.joints[n].id for n in names]
        if len(set(ids)) != len(ids):
            raise InputError(f"profile of {profile.robot}: servo ids are not unique: {ids}")
        return cls(
            joints=names,
            ids=np.array(ids, dtype=np.int64),
            index=np.array([model.joint_index(n) for n in names], dtype=np.int64),
            direction=np.array([bus.joints[n].direction for n in names], dtype=np.float64),
            offset_rad=np.radians([bus.joints[n].offset_deg for n in names]),
            ticks_per_rad=bus.ticks_per_rev / (2 * np.pi),
            center=bus.center_tick,
            max_tick=bus.ticks_per_rev - 1,
        )

    def to_ticks(self, q: np.ndarray) -> np.ndarray:
        """Goal ticks ``(S,)`` for a configuration ``q`` ``(nq,)`` (rad)."""
        x = (
            self.center
            + self.direction * (np.asarray(q)[self.index] - self.offset_rad) * self.ticks_per_rad
        )
        return np.clip(np.rint(x), 0, self.max_tick).astype(np.int64)

    def to_q(self, ticks: np.ndarray, base: np.ndarray) -> np.ndarray:
        """``base`` ``(nq,)`` with the servo joints set from ``ticks`` ``(S,)``."""
        q = np.array(base, dtype=np.float64)
        q[self.index] = self.offset_rad + (np.asarray(ticks) - self.center) / (
            self.ticks_per_rad * self.direction
        )
        return q
