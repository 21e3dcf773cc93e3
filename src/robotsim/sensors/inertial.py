"""The IMU: specific force, angular velocity and orientation of the sensor frame.

Read from MuJoCo's state at the sample time, not integrated: the linear acceleration is
that of the sensor point, ``a_o + alpha x r + w x (w x r)`` from the acceleration of the
body origin (``mj_objectAcceleration`` after ``mj_rnePostConstraint``, contacts
included; MuJoCo counts gravity as an upward acceleration of the world, so a resting
IMU reads +9.81 m/s^2 along the world's up, as a real accelerometer does). Nothing is
computed while the sensor is not due: MuJoCo's own accelerometer would run the
post-constraint pass at every physics step.

Reading fields (sensor frame unless said): ``accel`` ``(3,)`` m/s^2, ``gyro`` ``(3,)``
rad/s, ``orientation`` ``(4,)`` the sensor frame in the world, wxyz.

Noise: white Gaussian (``accel_std``, ``gyro_std``), constant biases (the file's vector
plus one drawn from the seed with ``*_bias_std``), and the orientation turned by a
rotation vector with Gaussian components (``orientation_std_deg``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor
from robotsim.spatial import axis_angle_to_R

__all__ = ["Imu"]


class Imu(Sensor):
    type = "imu"
    deferred = True
    needs_accelerations = True

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        import mujoco

        self._mj = mujoco
        self._xbody = int(mujoco.mjtObj.mjOBJ_XBODY)
        self._acc = np.zeros(6)
        self._vel = np.zeros(6)
        n = mount.spec.noise
        stds = [[float(n.accel_std)] * 3, [float(n.gyro_std)] * 3]
        self._std = np.array(stds) if any(v > 0 for v in stds[0] + stds[1]) else None
        self._orient_std = math.radians(n.orientation_std_deg)
        super().__init__(world, mount, seed, data)
        self._offset = bool(np.any(self._p_bs != 0.0))

    def reset(self) -> None:
        super().reset()
        n = self.mount.spec.noise
        self.accel_bias = np.asarray(n.accel_bias, dtype=np.float64).copy()
        self.gyro_bias = np.asarray(n.gyro_bias, dtype=np.float64).copy()
        if n.accel_bias_std > 0:
            self.accel_bias += self.rng.normal(0.0, n.accel_bias_std, 3)
        if n.gyro_bias_std > 0:
            self.gyro_bias += self.rng.normal(0.0, n.gyro_bias_std, 3)
        self._bias = np.array([self.accel_bias, self.gyro_bias])

    def reading_bytes(self) -> int:
        return 10 * 8  # accel, gyro, orientation

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        out.update(accel_bias=self.accel_bias.tolist(), gyro_bias=self.gyro_bias.tolist())
        return out

    def sample(self) -> dict[str, np.ndarray]:
        mj = self._mj
        m, d = self.world.model, self.data
        acc, vel = self._acc, self._vel
        b = self.body
        mj.mj_objectAcceleration(m, d, self._xbody, b, acc, 0)
        mj.mj_objectVelocity(m, d, self._xbody, b, vel, 0)
        R_wb = d.xmat[b].reshape(3, 3)
        R = R_wb @ self._R_bs
        wx, wy, wz, ax, ay, az = vel[0], vel[1], vel[2], acc[3], acc[4], acc[5]
        if self._offset:  # the sensor point is r from the body origin
            rx, ry, rz = (R_wb @ self._p_bs).tolist()
            alx, aly, alz = acc[0], acc[1], acc[2]
            # w x r, then alpha x r + w x (w x r)
            cx, cy, cz = wy * rz - wz * ry, wz * rx - wx * rz, wx * ry - wy * rx
            ax += aly * rz - alz * ry + wy * cz - wz * cy
            ay += alz * rx - alx * rz + wz * cx - wx * cz
            az += alx * ry - aly * rx + wx * cy - wy * cx
        both = np.array([[ax, ay, az], [wx, wy, wz]]) @ R  # rows: R^T a, R^T w
        both += self._bias
        if self._std is not None:
            both += self._std * self.rng.standard_normal((2, 3))
        if self._orient_std > 0:
            rv = self.rng.normal(0.0, self._orient_std, 3)
            angle = float(np.linalg.norm(rv))
            if angle > 0:
                R = axis_angle_to_R(rv / angle, angle) @ R
        quat = np.empty(4)
        mj.mju_mat2Quat(quat, R.ravel())
        if quat[0] < 0:
            quat = -quat
        return {"accel": both[0], "gyro": both[1], "orientation": quat}
