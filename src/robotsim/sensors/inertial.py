"""The IMU: specific force, angular velocity and orientation of the sensor frame.

Read from MuJoCo's state at the sample time, not integrated (one compiled call,
:func:`imu_frame`, after MuJoCo's velocity and acceleration of the body): the linear acceleration is
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
from numba import njit

from robotsim.sensors._raycast import mat_to_quat
from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor
from robotsim.spatial import R_to_quat, axis_angle_to_R, quat_to_R

__all__ = ["Imu", "imu_frame"]


@njit(cache=True)
def imu_frame(acc, vel, body_mat, R_bs, p_bs, bias, accel, gyro, quat):  # type: ignore[no-untyped-def]
    """The IMU's reading from its body's 6D acceleration ``acc`` and velocity ``vel``
    (MuJoCo's ``[rot, lin]`` at the body origin, world orientation), the body rotation
    ``body_mat`` ``(9,)`` and the mount ``R_bs``, ``p_bs``: ``accel`` = R^T (a_o + alpha
    x r + w x (w x r)) + bias[0], ``gyro`` = R^T w + bias[1], ``quat`` = the sensor frame
    (w >= 0), with ``r`` = the mount offset in the world and ``R`` = the sensor frame."""
    R = np.empty((3, 3))
    r = np.empty(3)
    for i in range(3):
        for j in range(3):
            R[i, j] = (body_mat[3 * i] * R_bs[0, j] + body_mat[3 * i + 1] * R_bs[1, j]
                       + body_mat[3 * i + 2] * R_bs[2, j])  # fmt: skip
        r[i] = (
            body_mat[3 * i] * p_bs[0]
            + body_mat[3 * i + 1] * p_bs[1]
            + body_mat[3 * i + 2] * p_bs[2]
        )
    wx, wy, wz = vel[0], vel[1], vel[2]
    ax, ay, az = acc[3], acc[4], acc[5]
    cx, cy, cz = wy * r[2] - wz * r[1], wz * r[0] - wx * r[2], wx * r[1] - wy * r[0]
    ax += acc[1] * r[2] - acc[2] * r[1] + wy * cz - wz * cy
    ay += acc[2] * r[0] - acc[0] * r[2] + wz * cx - wx * cz
    az += acc[0] * r[1] - acc[1] * r[0] + wx * cy - wy * cx
    for j in range(3):
        accel[j] = R[0, j] * ax + R[1, j] * ay + R[2, j] * az + bias[0, j]
        gyro[j] = R[0, j] * wx + R[1, j] * wy + R[2, j] * wz + bias[1, j]
    tmp = np.empty(7)
    mat_to_quat(R, tmp)
    quat[:] = tmp[3:]


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
        accel, gyro, quat = np.empty(3), np.empty(3), np.empty(4)
        imu_frame(acc, vel, d.xmat[b], self._R_bs, self._p_bs, self._bias, accel, gyro, quat)
        if self._std is not None:
            noise = self._std * self.rng.standard_normal((2, 3))
            accel += noise[0]
            gyro += noise[1]
        if self._orient_std > 0:
            rv = self.rng.normal(0.0, self._orient_std, 3)
            angle = float(np.linalg.norm(rv))
            if angle > 0:
                quat = R_to_quat(axis_angle_to_R(rv / angle, angle) @ quat_to_R(quat))
        return {"accel": accel, "gyro": gyro, "orientation": quat}
