"""Compiled (numba) kernels for forward kinematics and Jacobians.

Every joint is pre-rotated so that it moves about (revolute) or along (prismatic) its
local z axis; a chain is then ``F0 Z(q1) F1 Z(q2) ... Fk`` with fixed 3x4 transforms
``F`` (see :mod:`robotsim.kinematics.tree`). Transforms are carried as 12 scalars
(row-major 3x4) so LLVM keeps them in registers.

Joint type codes: 0 fixed, 1 rotation about z, 2 translation along z.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

FIXED, REVOLUTE, PRISMATIC = 0, 1, 2


@njit(cache=True, inline="always")
def _load(M):  # type: ignore[no-untyped-def]
    return (
        M[0, 0], M[0, 1], M[0, 2], M[0, 3],
        M[1, 0], M[1, 1], M[1, 2], M[1, 3],
        M[2, 0], M[2, 1], M[2, 2], M[2, 3],
    )  # fmt: skip


@njit(cache=True, inline="always")
def _mul(a, b):  # type: ignore[no-untyped-def]
    a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23 = a
    b00, b01, b02, b03, b10, b11, b12, b13, b20, b21, b22, b23 = b
    return (
        a00 * b00 + a01 * b10 + a02 * b20,
        a00 * b01 + a01 * b11 + a02 * b21,
        a00 * b02 + a01 * b12 + a02 * b22,
        a00 * b03 + a01 * b13 + a02 * b23 + a03,
        a10 * b00 + a11 * b10 + a12 * b20,
        a10 * b01 + a11 * b11 + a12 * b21,
        a10 * b02 + a11 * b12 + a12 * b22,
        a10 * b03 + a11 * b13 + a12 * b23 + a13,
        a20 * b00 + a21 * b10 + a22 * b20,
        a20 * b01 + a21 * b11 + a22 * b21,
        a20 * b02 + a21 * b12 + a22 * b22,
        a20 * b03 + a21 * b13 + a22 * b23 + a23,
    )


@njit(cache=True, inline="always")
def _move(t, jt, x):  # type: ignore[no-untyped-def]
    """``t @ Rz(x)`` (jt == 1) or ``t @ Tz(x)`` (jt == 2)."""
    t00, t01, t02, t03, t10, t11, t12, t13, t20, t21, t22, t23 = t
    if jt == 1:
        c = math.cos(x)
        s = math.sin(x)
        return (
            t00 * c + t01 * s, t01 * c - t00 * s, t02, t03,
            t10 * c + t11 * s, t11 * c - t10 * s, t12, t13,
            t20 * c + t21 * s, t21 * c - t20 * s, t22, t23,
        )  # fmt: skip
    if jt == 2:
        return (
            t00, t01, t02, t03 + t02 * x,
            t10, t11, t12, t13 + t12 * x,
            t20, t21, t22, t23 + t22 * x,
        )  # fmt: skip
    return t


@njit(cache=True, inline="always")
def _store(out, t):  # type: ignore[no-untyped-def]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = t[0], t[1], t[2], t[3]
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = t[4], t[5], t[6], t[7]
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = t[8], t[9], t[10], t[11]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@njit(cache=True, nogil=True)
def chain_fk(q, F, jt, qi, mult, off, out):  # type: ignore[no-untyped-def]
    """Pose of one frame at the end of a chain.

    q: (N, nq); F: (K+1, 3, 4) fixed transforms; jt, qi: (K,) int64; mult, off: (K,);
    out: (N, 4, 4) written in place.
    """
    K = jt.shape[0]
    for n in range(q.shape[0]):
        t = _load(F[0])
        for k in range(K):
            x = mult[k] * q[n, qi[k]] + off[k]
            t = _move(t, jt[k], x)
            t = _mul(t, _load(F[k + 1]))
        _store(out[n], t)


# One configuration: q (nq,) any strides, prog (K+1, 16), out (4, 4). An explicit
# signature so the compiled entry point can be called without type dispatch.
_F8 = types.float64
CHAIN_FK_ONE_SIG = (types.Array(_F8, 1, "A"), types.Array(_F8, 2, "C"), types.Array(_F8, 2, "C"))


@njit(CHAIN_FK_ONE_SIG, cache=True, nogil=True)
def chain_fk_one(q, prog, out):  # type: ignore[no-untyped-def]
    """:func:`chain_fk` of one configuration ``q (nq,)`` from a packed chain.

    ``prog`` (K+1, 16): row ``k < K`` holds ``jt, qi, mult, off`` and ``F[k+1]``
    (3x4 row-major); row ``K`` holds ``F[0]`` in columns 4..15. Same operations in the
    same order as :func:`chain_fk`, so the result is bit-for-bit the same.
    """
    K = prog.shape[0] - 1
    f = prog[K]
    t = (f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], f[14], f[15])
    for k in range(K):
        p = prog[k]
        x = p[2] * q[int(p[1])] + p[3]
        t = _move(t, int(p[0]), x)
        t = _mul(t, (p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]))
    _store(out, t)


def entry_point(dispatcher, signature):  # type: ignore[no-untyped-def]
    """The compiled function of ``dispatcher`` for ``signature``, callable without
    numba's per-call type dispatch (the caller guarantees the argument types), or
    the dispatcher itself if this numba does not expose it."""
    try:
        return dispatcher.overloads[tuple(signature)].entry_point
    except (AttributeError, KeyError):
        return dispatcher


@njit(cache=True, nogil=True)
def tree_fk(q, parent, jt, qi, mult, off, A, B, out):  # type: ignore[no-untyped-def]
    """Poses of all links of a tree, root at the identity.

    parent: (L,) int64 (parent[0] = -1); jt, qi: (L,); mult, off: (L,);
    A, B: (L, 3, 4) with T_parent_child = A Z(q) B; out: (N, L, 4, 4).
    """
    L = parent.shape[0]
    for n in range(q.shape[0]):
        o = out[n]
        _store(o[0], (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0))
        for i in range(1, L):
            t = _mul(_load(o[parent[i]]), _load(A[i]))
            if jt[i] != 0:
                x = mult[i] * q[n, qi[i]] + off[i]
                t = _move(t, jt[i], x)
                t = _mul(t, _load(B[i]))
            _store(o[i], t)


@njit(cache=True, nogil=True)
def chain_jacobian(q, F, jt, qi, mult, off, T_out, J_out):  # type: ignore[no-untyped-def]
    """Pose and world-aligned geometric Jacobian of a chain's end frame.

    J_out: (N, 6, nq) zeroed here; rows [v; w] of the frame origin in world axes.
    """
    K = jt.shape[0]
    zs = np.empty((K, 3))
    ps = np.empty((K, 3))
    for n in range(q.shape[0]):
        t = _load(F[0])
        for k in range(K):
            zs[k, 0], zs[k, 1], zs[k, 2] = t[2], t[6], t[10]
            ps[k, 0], ps[k, 1], ps[k, 2] = t[3], t[7], t[11]
            x = mult[k] * q[n, qi[k]] + off[k]
            t = _move(t, jt[k], x)
            t = _mul(t, _load(F[k + 1]))
        _store(T_out[n], t)
        J = J_out[n]
        J[:, :] = 0.0
        px, py, pz = t[3], t[7], t[11]
        for k in range(K):
            c = qi[k]
            m = mult[k]
            zx, zy, zz = zs[k, 0], zs[k, 1], zs[k, 2]
            if jt[k] == 1:
                dx, dy, dz = px - ps[k, 0], py - ps[k, 1], pz - ps[k, 2]
                J[0, c] += m * (zy * dz - zz * dy)
                J[1, c] += m * (zz * dx - zx * dz)
                J[2, c] += m * (zx * dy - zy * dx)
                J[3, c] += m * zx
                J[4, c] += m * zy
                J[5, c] += m * zz
            else:
                J[0, c] += m * zx
                J[1, c] += m * zy
                J[2, c] += m * zz


@njit(cache=True, inline="always")
def _inv(t):  # type: ignore[no-untyped-def]
    """Inverse of a rigid 3x4 transform (R^T, -R^T p)."""
    r00, r01, r02, p0, r10, r11, r12, p1, r20, r21, r22, p2 = t
    return (
        r00, r10, r20, -(r00 * p0 + r10 * p1 + r20 * p2),
        r01, r11, r21, -(r01 * p0 + r11 * p1 + r21 * p2),
        r02, r12, r22, -(r02 * p0 + r12 * p1 + r22 * p2),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def anchored_fk(q, parent, jt, qi, mult, off, A, B, anchor, anchor_off, T_world_anchor,
                rel_out, world_out, root_out):  # type: ignore[no-untyped-def]  # fmt: skip
    """One configuration ``q`` (nq,): root-relative link poses into ``rel_out`` (L,4,4),
    the root pose that keeps link ``anchor`` (offset ``anchor_off``) at
    ``T_world_anchor`` into ``root_out`` (4,4) (``anchor < 0``: ``root_out`` is read as
    given), and world link poses into ``world_out`` (L,4,4)."""
    L = parent.shape[0]
    _store(rel_out[0], (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0))
    for i in range(1, L):
        t = _mul(_load(rel_out[parent[i]]), _load(A[i]))
        if jt[i] != 0:
            t = _move(t, jt[i], mult[i] * q[qi[i]] + off[i])
            t = _mul(t, _load(B[i]))
        _store(rel_out[i], t)
    if anchor >= 0:
        T_root_anchor = _mul(_load(rel_out[anchor]), _load(anchor_off))
        _store(root_out, _mul(_load(T_world_anchor), _inv(T_root_anchor)))
    root = _load(root_out)
    for i in range(L):
        _store(world_out[i], _mul(root, _load(rel_out[i])))
