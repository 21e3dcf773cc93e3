"""Joint sensors: positions, velocities and motor torques of a robot's joints.

Reading fields ``(n,)`` in the order of :meth:`JointSensor.meta`'s ``joints``:
``position`` (rad or m), ``velocity`` (rad/s or m/s) and ``torque`` (N m or N: the
force the joint's motor applies, MuJoCo's ``qfrc_actuator``; 0 for a joint without a
motor), each with Gaussian noise of its ``*_std``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor

__all__ = ["JointSensor"]


class JointSensor(Sensor):
    type = "joint"

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        m = world.model
        ids = [m.joint(f"{mount.robot}/{j}").id for j in mount.joints]
        self._q = np.array([m.jnt_qposadr[i] for i in ids], dtype=np.intp)
        self._v = np.array([m.jnt_dofadr[i] for i in ids], dtype=np.intp)
        n = mount.spec.noise
        self._std = (float(n.position_std), float(n.velocity_std), float(n.torque_std))
        super().__init__(world, mount, seed, data)

    def reading_bytes(self) -> int:
        return 3 * 8 * len(self.mount.joints)

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        out["joints"] = list(self.mount.joints)
        return out

    def sample(self) -> dict[str, np.ndarray]:
        d = self.world.data  # positions and velocities now; torques of the last step
        out = {
            "position": d.qpos[self._q].copy(),
            "velocity": d.qvel[self._v].copy(),
            "torque": d.qfrc_actuator[self._v].copy(),
        }
        for (_key, arr), std in zip(out.items(), self._std):
            if std > 0:
                arr += self.rng.normal(0.0, std, arr.shape)
        return out
