"""Batched SE(3)/SO(3) helpers.

Conventions (see ``docs/conventions.md``): column vectors; ``T_a_b`` is a 4x4
homogeneous transform mapping coordinates in frame *b* to frame *a*; quaternions are
``(w, x, y, z)``; angles in radians; lengths in metres. Every function accepts any
number of leading batch axes: a rotation is ``(..., 3, 3)``, a transform
``(..., 4, 4)``, a vector ``(..., 3)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]

__all__ = [
    "R_to_quat",
    "R_to_rpy",
    "axis_angle_to_R",
    "inv_T",
    "make_T",
    "quat_to_R",
    "rot_log",
    "rot_x",
    "rot_y",
    "rot_z",
    "rpy_to_R",
    "skew",
    "trans",
    "transform_points",
]


def _f(x: ArrayLike) -> F64:
    return np.asarray(x, dtype=np.float64)


def rot_x(angle: ArrayLike) -> F64:
    """Rotation about x by ``angle`` (rad), shape ``(..., 3, 3)``."""
    a = _f(angle)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([o, z, z, z, c, -s, z, s, c], axis=-1).reshape(*a.shape, 3, 3)


def rot_y(angle: ArrayLike) -> F64:
    """Rotation about y by ``angle`` (rad), shape ``(..., 3, 3)``."""
    a = _f(angle)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([c, z, s, z, o, z, -s, z, c], axis=-1).reshape(*a.shape, 3, 3)


def rot_z(angle: ArrayLike) -> F64:
    """Rotation about z by ``angle`` (rad), shape ``(..., 3, 3)``."""
    a = _f(angle)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([c, -s, z, s, c, z, z, z, o], axis=-1).reshape(*a.shape, 3, 3)


def skew(v: ArrayLike) -> F64:
    """Cross-product matrix ``[v]x`` of ``v`` ``(..., 3)`` -> ``(..., 3, 3)``."""
    v = _f(v)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    o = np.zeros_like(x)
    return np.stack([o, -z, y, z, o, -x, -y, x, o], axis=-1).reshape(*v.shape[:-1], 3, 3)


def axis_angle_to_R(axis: ArrayLike, angle: ArrayLike) -> F64:
    """Rodrigues' formula. ``axis`` ``(..., 3)`` (normalised here), ``angle`` ``(...)``."""
    axis = _f(axis)
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    k = axis / np.where(n > 0, n, 1.0)
    a = _f(angle)[..., None, None]
    K = skew(k)
    eye = np.broadcast_to(np.eye(3), K.shape)
    return eye + np.sin(a) * K + (1.0 - np.cos(a)) * (K @ K)


def rpy_to_R(rpy: ArrayLike) -> F64:
    """URDF roll-pitch-yaw (fixed axes x, y, z): ``R = Rz(yaw) Ry(pitch) Rx(roll)``."""
    rpy = _f(rpy)
    return rot_z(rpy[..., 2]) @ rot_y(rpy[..., 1]) @ rot_x(rpy[..., 0])


def R_to_rpy(R: ArrayLike) -> F64:
    """Inverse of :func:`rpy_to_R` ``(..., 3, 3) -> (..., 3)``; at the pitch
    singularity (|pitch| = pi/2) roll is set to 0 and yaw absorbs the rest."""
    R = _f(R)
    sp = np.clip(-R[..., 2, 0], -1.0, 1.0)
    pitch = np.arcsin(sp)
    cp = np.sqrt(R[..., 2, 1] ** 2 + R[..., 2, 2] ** 2)
    regular = cp > 1e-12
    roll = np.where(regular, np.arctan2(R[..., 2, 1], R[..., 2, 2]), 0.0)
    yaw = np.where(
        regular,
        np.arctan2(R[..., 1, 0], R[..., 0, 0]),
        np.arctan2(-R[..., 0, 1], R[..., 1, 1]),
    )
    return np.stack([roll, pitch, yaw], axis=-1)


def quat_to_R(q: ArrayLike) -> F64:
    """Unit quaternion ``(w, x, y, z)`` ``(..., 4)`` (normalised here) -> ``(..., 3, 3)``."""
    qa = _f(q)
    qa = qa / np.linalg.norm(qa, axis=-1, keepdims=True)
    w, x, y, z = qa[..., 0], qa[..., 1], qa[..., 2], qa[..., 3]
    return np.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
        ],
        axis=-1,
    ).reshape(*qa.shape[:-1], 3, 3)  # fmt: skip


def R_to_quat(R: ArrayLike) -> F64:
    """Rotation ``(..., 3, 3)`` -> unit quaternion ``(w, x, y, z)`` with ``w >= 0``."""
    R = _f(R)
    m = R.reshape(-1, 3, 3)
    out = np.empty((m.shape[0], 4))
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    for i in range(m.shape[0]):
        a = m[i]
        if tr[i] > 0:
            s = 2.0 * np.sqrt(tr[i] + 1.0)
            out[i] = [0.25 * s, (a[2, 1] - a[1, 2]) / s, (a[0, 2] - a[2, 0]) / s,
                      (a[1, 0] - a[0, 1]) / s]  # fmt: skip
        elif a[0, 0] > a[1, 1] and a[0, 0] > a[2, 2]:
            s = 2.0 * np.sqrt(1.0 + a[0, 0] - a[1, 1] - a[2, 2])
            out[i] = [(a[2, 1] - a[1, 2]) / s, 0.25 * s, (a[0, 1] + a[1, 0]) / s,
                      (a[0, 2] + a[2, 0]) / s]  # fmt: skip
        elif a[1, 1] > a[2, 2]:
            s = 2.0 * np.sqrt(1.0 + a[1, 1] - a[0, 0] - a[2, 2])
            out[i] = [(a[0, 2] - a[2, 0]) / s, (a[0, 1] + a[1, 0]) / s, 0.25 * s,
                      (a[1, 2] + a[2, 1]) / s]  # fmt: skip
        else:
            s = 2.0 * np.sqrt(1.0 + a[2, 2] - a[0, 0] - a[1, 1])
            out[i] = [(a[1, 0] - a[0, 1]) / s, (a[0, 2] + a[2, 0]) / s,
                      (a[1, 2] + a[2, 1]) / s, 0.25 * s]  # fmt: skip
    out *= np.where(out[:, :1] < 0, -1.0, 1.0)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out.reshape(*R.shape[:-2], 4)


def rot_log(R: ArrayLike) -> F64:
    """Rotation vector (axis * angle, rad) of ``R`` ``(..., 3, 3)`` -> ``(..., 3)``.

    Accurate near 0 and near pi (uses the quaternion, not arccos of the trace).
    """
    q = R_to_quat(R)
    w = np.clip(q[..., 0], -1.0, 1.0)
    v = q[..., 1:]
    s = np.linalg.norm(v, axis=-1)
    angle = 2.0 * np.arctan2(s, w)
    scale = np.where(s > 1e-12, angle / np.where(s > 1e-12, s, 1.0), 2.0)
    return v * scale[..., None]


def trans(xyz: ArrayLike) -> F64:
    """Pure translation ``(..., 3) -> (..., 4, 4)``."""
    xyz = _f(xyz)
    T = np.zeros((*xyz.shape[:-1], 4, 4))
    T[..., :3, :3] = np.eye(3)
    T[..., :3, 3] = xyz
    T[..., 3, 3] = 1.0
    return T


def make_T(R: ArrayLike | None = None, p: ArrayLike | None = None) -> F64:
    """Assemble ``(..., 4, 4)`` from rotation ``(..., 3, 3)`` and/or position ``(..., 3)``."""
    Rm = np.eye(3) if R is None else _f(R)
    pv = np.zeros(3) if p is None else _f(p)
    batch = np.broadcast_shapes(Rm.shape[:-2], pv.shape[:-1])
    T = np.zeros((*batch, 4, 4))
    T[..., :3, :3] = Rm
    T[..., :3, 3] = pv
    T[..., 3, 3] = 1.0
    return T


def inv_T(T: ArrayLike) -> F64:
    """Inverse of a rigid transform ``(..., 4, 4)`` (exact: uses ``R^T``)."""
    T = _f(T)
    out = np.zeros_like(T)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -(Rt @ T[..., :3, 3, None])[..., 0]
    out[..., 3, 3] = 1.0
    return out


def transform_points(T: ArrayLike, pts: ArrayLike) -> F64:
    """Apply ``T`` ``(..., 4, 4)`` to points ``(..., n, 3)`` -> ``(..., n, 3)``."""
    T = _f(T)
    pts = _f(pts)
    return pts @ np.swapaxes(T[..., :3, :3], -1, -2) + T[..., None, :3, 3]
