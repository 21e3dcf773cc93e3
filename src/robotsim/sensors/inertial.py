"""The IMU: specific force, angular velocity and orientation of the sensor frame.

Read from MuJoCo's state at the sample time, not integrated: one compiled call
(:func:`imu_row`) takes the body's com-based velocity and acceleration as the step
computed them (``cvel``, ``cacc`` after ``mj_rnePostConstraint``, contacts included),
moves them to the body origin as ``mj_objectAcceleration`` does (``a_o = a_c - d x
alpha + w x v_o``, ``d`` from the subtree's centre of mass to the body origin), then to
the sensor point ``a_o + alpha x r + w x (w x r)`` and into the sensor frame, adds the
biases and the noise, and writes the reading's row (time, ``accel``, ``gyro``,
``orientation``) where it is told. MuJoCo counts gravity as an upward acceleration of
the world, so a resting IMU reads +9.81 m/s^2 along the world's up, as a real
accelerometer does. Nothing is computed while the sensor is not due: MuJoCo's own
accelerometer would run the post-constraint pass at every physics step.

Reading fields (sensor frame unless said): ``accel`` ``(3,)`` m/s^2, ``gyro`` ``(3,)``
rad/s, ``orientation`` ``(4,)`` the sensor frame in the world, wxyz.

Noise: white Gaussian (``accel_std``, ``gyro_std``), constant biases (the file's vector
plus one drawn from the seed with ``*_bias_std``), and the orientation turned by a
rotation vector with Gaussian components (``orientation_std_deg``). The normal numbers
are drawn from the sensor's generator 64 readings at a time, in the order the readings
use them (accel, gyro, then the rotation vector of each reading): the same numbers as
drawn one reading at a time, so the same seed gives the same readings however they are
taken.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types

from robotsim.kinematics.kernels import entry_point
from robotsim.sensors._pointers import f8
from robotsim.sensors.mount import Mount
from robotsim.sensors.types import Sensor

__all__ = ["IMU_ROW", "Imu", "imu_row"]

#: One reading's row: time, then the fields, float64, contiguous (88 bytes).
IMU_ROW = np.dtype([("t", "<f8"), ("accel", "<f8", (3,)), ("gyro", "<f8", (3,)),
                    ("orientation", "<f8", (4,))])  # fmt: skip
_NOISE_ROWS = 64  # readings' noise drawn at once
_PAR = 20  # R_bs (9), p_bs (3), accel and gyro bias (6), white noise (0/1), rotation noise (0/1)


@njit(cache=True, error_model="numpy", _nrt=False, nogil=True)
def imu_row(cacc, cvel, xmat, xpos, scom, body, root, par, noise, row, t):  # type: ignore[no-untyped-def]
    """One IMU reading into the row at address ``row`` (float64: ``t``, accel (3),
    gyro (3), orientation (4) wxyz with w >= 0), from the MuJoCo data arrays at the
    addresses ``cacc``, ``cvel`` (nbody, 6), ``xmat`` (nbody, 9), ``xpos``, ``scom``
    (``subtree_com``, nbody, 3) of body ``body`` whose tree root is ``root``.
    ``par`` (20,): the mount ``R_bs`` (row-major) and ``p_bs``, the accel and gyro
    biases, then 1.0 when ``noise`` holds white noise (accel, gyro: 6 values) and 1.0
    when it holds a rotation vector (3 values, after them); ``noise``: the address of
    this reading's noise (already scaled), or 0."""
    A = f8(cacc)
    V = f8(cvel)
    X = f8(xmat)
    P = f8(xpos)
    S = f8(scom)
    Q = f8(par)
    out = f8(row)
    a6, b9, b3 = 6 * body, 9 * body, 3 * body
    c3 = 3 * root
    # R = R_wb R_bs (the sensor frame), r = R_wb p_bs (the mount offset in the world)
    m00, m01, m02 = X[b9], X[b9 + 1], X[b9 + 2]
    m10, m11, m12 = X[b9 + 3], X[b9 + 4], X[b9 + 5]
    m20, m21, m22 = X[b9 + 6], X[b9 + 7], X[b9 + 8]
    R0 = m00 * Q[0] + m01 * Q[3] + m02 * Q[6]
    R1 = m00 * Q[1] + m01 * Q[4] + m02 * Q[7]
    R2 = m00 * Q[2] + m01 * Q[5] + m02 * Q[8]
    R3 = m10 * Q[0] + m11 * Q[3] + m12 * Q[6]
    R4 = m10 * Q[1] + m11 * Q[4] + m12 * Q[7]
    R5 = m10 * Q[2] + m11 * Q[5] + m12 * Q[8]
    R6 = m20 * Q[0] + m21 * Q[3] + m22 * Q[6]
    R7 = m20 * Q[1] + m21 * Q[4] + m22 * Q[7]
    R8 = m20 * Q[2] + m21 * Q[5] + m22 * Q[8]
    rx = m00 * Q[9] + m01 * Q[10] + m02 * Q[11]
    ry = m10 * Q[9] + m11 * Q[10] + m12 * Q[11]
    rz = m20 * Q[9] + m21 * Q[10] + m22 * Q[11]
    # the body origin's velocity and acceleration from the com-based ones
    dx, dy, dz = P[b3] - S[c3], P[b3 + 1] - S[c3 + 1], P[b3 + 2] - S[c3 + 2]
    wx, wy, wz = V[a6], V[a6 + 1], V[a6 + 2]
    vx = V[a6 + 3] - (dy * wz - dz * wy)
    vy = V[a6 + 4] - (dz * wx - dx * wz)
    vz = V[a6 + 5] - (dx * wy - dy * wx)
    alx, aly, alz = A[a6], A[a6 + 1], A[a6 + 2]
    ax = A[a6 + 3] - (dy * alz - dz * aly) + (wy * vz - wz * vy)
    ay = A[a6 + 4] - (dz * alx - dx * alz) + (wz * vx - wx * vz)
    az = A[a6 + 5] - (dx * aly - dy * alx) + (wx * vy - wy * vx)
    # the sensor point: a_o + alpha x r + w x (w x r)
    cx, cy, cz = wy * rz - wz * ry, wz * rx - wx * rz, wx * ry - wy * rx
    ax += aly * rz - alz * ry + wy * cz - wz * cy
    ay += alz * rx - alx * rz + wz * cx - wx * cz
    az += alx * ry - aly * rx + wx * cy - wy * cx
    out[0] = t  # R^T a + bias, R^T w + bias
    out[1] = R0 * ax + R3 * ay + R6 * az + Q[12]
    out[2] = R1 * ax + R4 * ay + R7 * az + Q[13]
    out[3] = R2 * ax + R5 * ay + R8 * az + Q[14]
    out[4] = R0 * wx + R3 * wy + R6 * wz + Q[15]
    out[5] = R1 * wx + R4 * wy + R7 * wz + Q[16]
    out[6] = R2 * wx + R5 * wy + R8 * wz + Q[17]
    k = 0
    if noise != 0:
        N = f8(noise)
        if Q[18] != 0.0:
            for j in range(6):
                out[1 + j] += N[j]
            k = 6
    # the orientation of R (w >= 0)
    tr = R0 + R4 + R8
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x, y, z = 0.25 * s, (R7 - R5) / s, (R2 - R6) / s, (R3 - R1) / s
    elif R0 > R4 and R0 > R8:
        s = math.sqrt(1.0 + R0 - R4 - R8) * 2
        w, x, y, z = (R7 - R5) / s, 0.25 * s, (R1 + R3) / s, (R2 + R6) / s
    elif R4 > R8:
        s = math.sqrt(1.0 + R4 - R0 - R8) * 2
        w, x, y, z = (R2 - R6) / s, (R1 + R3) / s, 0.25 * s, (R5 + R7) / s
    else:
        s = math.sqrt(1.0 + R8 - R0 - R4) * 2
        w, x, y, z = (R3 - R1) / s, (R2 + R6) / s, (R5 + R7) / s, 0.25 * s
    if noise != 0 and Q[19] != 0.0:  # turned by the rotation vector: q_noise * q
        N = f8(noise)
        ux, uy, uz = N[k], N[k + 1], N[k + 2]
        angle = math.sqrt(ux * ux + uy * uy + uz * uz)
        if angle > 0:
            h = math.sin(angle / 2) / angle
            nw, nx, ny, nz = math.cos(angle / 2), ux * h, uy * h, uz * h
            w, x, y, z = (
                nw * w - nx * x - ny * y - nz * z,
                nw * x + nx * w + ny * z - nz * y,
                nw * y - nx * z + ny * w + nz * x,
                nw * z + nx * y - ny * x + nz * w,
            )
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    nrm = math.sqrt(w * w + x * x + y * y + z * z)
    out[7], out[8], out[9], out[10] = w / nrm, x / nrm, y / nrm, z / nrm


_I = types.intp
IMU_ROW_SIG = (_I, _I, _I, _I, _I, _I, _I, _I, _I, _I, types.float64)


class Imu(Sensor):
    type = "imu"
    deferred = True
    needs_accelerations = True
    row_dtype = IMU_ROW

    def __init__(self, world: Any, mount: Mount, seed: int, data: Any = None) -> None:
        n = mount.spec.noise
        self._root = int(world.model.body_rootid[world.body(mount.site.body).id])
        white = [float(n.accel_std)] * 3 + [float(n.gyro_std)] * 3
        scale = (white if any(v > 0 for v in white) else []) + (
            [math.radians(n.orientation_std_deg)] * 3 if n.orientation_std_deg > 0 else []
        )
        self._scale = np.array(scale)
        self._k = len(scale)  # normal numbers a reading takes
        self._bound: Any = None  # the MuJoCo data the addresses below are of
        self._addr: tuple[int, ...] = ()
        # the drawn noise: its address, numbers a reading, readings of it used (of 64);
        # an array, so that the rig's compiled stepping (sensors._stepping) shares it
        self._nz = np.zeros(3, dtype=np.int64)
        self._nz[1] = self._k
        self._row = np.zeros(1, IMU_ROW)  # sample()'s reading
        self._kernel = None
        super().__init__(world, mount, seed, data)
        par = np.zeros(_PAR)
        par[:9] = self._R_bs.ravel()
        par[9:12] = self._p_bs
        par[18] = 1.0 if any(v > 0 for v in white) else 0.0
        par[19] = 1.0 if n.orientation_std_deg > 0 else 0.0
        self._par = par
        self._set_bias()

    def reset(self) -> None:
        super().reset()
        n = self.mount.spec.noise
        self.accel_bias = np.asarray(n.accel_bias, dtype=np.float64).copy()
        self.gyro_bias = np.asarray(n.gyro_bias, dtype=np.float64).copy()
        if n.accel_bias_std > 0:
            self.accel_bias += self.rng.normal(0.0, n.accel_bias_std, 3)
        if n.gyro_bias_std > 0:
            self.gyro_bias += self.rng.normal(0.0, n.gyro_bias_std, 3)
        self._noise = None  # the normal numbers drawn, _NOISE_ROWS readings' worth
        self._nz[0], self._nz[2] = 0, _NOISE_ROWS
        if hasattr(self, "_par"):
            self._set_bias()

    def _set_bias(self) -> None:
        self._par[12:15] = self.accel_bias
        self._par[15:18] = self.gyro_bias

    def reading_bytes(self) -> int:
        return 10 * 8  # accel, gyro, orientation

    def meta(self) -> dict[str, Any]:
        out = super().meta()
        out.update(accel_bias=self.accel_bias.tolist(), gyro_bias=self.gyro_bias.tolist())
        return out

    def read_row(self, address: int, t: float) -> None:
        """Write the reading of the state :attr:`data` holds into the :data:`IMU_ROW`
        at ``address`` (time ``t``): one compiled call, no arrays made."""
        d = self.data
        if d is not self._bound:
            self._bind(d)
        noise = 0
        k = self._k
        if k:
            nz = self._nz
            used = int(nz[2])
            if used >= _NOISE_ROWS:
                self._noise = self.rng.standard_normal((_NOISE_ROWS, k))
                self._noise *= self._scale
                nz[0], used = int(self._noise.ctypes.data), 0
            noise = int(nz[0]) + 8 * k * used
            nz[2] = used + 1
        self._kernel(*self._addr, noise, address, t)  # type: ignore[misc]

    def _bind(self, d: Any) -> None:
        if self._kernel is None:
            self._kernel = entry_point(imu_row, IMU_ROW_SIG)
        self._bound = d
        self._addr = self.addresses(d)

    def addresses(self, d: Any) -> tuple[int, ...]:
        """The first eight arguments of :func:`imu_row` for this IMU on MuJoCo data ``d``
        (the arrays' addresses, the body, its tree's root, the parameters')."""
        return (
            int(d.cacc.ctypes.data), int(d.cvel.ctypes.data), int(d.xmat.ctypes.data),
            int(d.xpos.ctypes.data), int(d.subtree_com.ctypes.data), self.body, self._root,
            int(self._par.ctypes.data),
        )  # fmt: skip

    def sample(self) -> dict[str, np.ndarray]:
        row = self._row
        self.read_row(int(row.ctypes.data), 0.0)
        r = row[0]
        return {"accel": r["accel"].copy(), "gyro": r["gyro"].copy(),
                "orientation": r["orientation"].copy()}  # fmt: skip
