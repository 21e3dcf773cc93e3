"""Compiled (numba) kernels for forward kinematics and Jacobians.

Every joint is pre-rotated so that it moves about (revolute) or along (prismatic) its
local z axis; a chain is then ``F0 Z(q1) F1 Z(q2) ... Fk`` with fixed 3x4 transforms
``F`` (see :mod:`robotsim.kinematics.tree`). Transforms are carried as 12 scalars
(row-major 3x4) so LLVM keeps them in registers.

Joint type codes: 0 fixed, 1 rotation about z, 2 translation along z.

Batches of a chain run in blocks of :data:`BLOCK` configurations, one joint at a time
across the block, which the compiler turns into SIMD code.

Sines and cosines (:func:`sincos`): one implementation for every kernel, so a single
configuration, a batch row and a Jacobian's pose agree bit for bit; branch-free, so a
loop over a block vectorises (AVX2: four angles per instruction). It lives in this file
because numba's on-disk cache of a kernel only notices changes to the kernel's own file.
Method: ``x = j pi/2 + r`` with ``|r| <= pi/4`` (Cody-Waite: ``pi/2`` split in
three 33-bit parts, each exact times any ``|j| < 2**20``, and a tail; the rounding
errors kept by TwoSum, so ``r`` is right even when ``x`` lies close to a multiple of
``pi/2``, and carried into the polynomials as ``y``), then minimax polynomials of
``sin`` and ``cos`` on ``[-pi/4, pi/4]`` and the quadrant ``j mod 4`` chosen by
selects, not branches.
The split of ``pi/2`` and the polynomial coefficients are the published ones of
fdlibm (Sun Microsystems, ``e_rem_pio2.c``, ``k_sin.c``, ``k_cos.c``).

Accuracy: within one unit in the last place of libm's value (checked against
``math.sin``/``math.cos`` in ``tests/kinematics/test_trig.py``); about 3 % of angles
differ from libm by that one unit. Angles beyond :data:`REDUCE_LIMIT` (where ``j``
times a 33-bit part would stop being exact) take ``math.sin``/``math.cos`` instead:
:func:`sincos` branches, :func:`sincos_fix` repairs a vectorised pass afterwards.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

FIXED, REVOLUTE, PRISMATIC = 0, 1, 2
BLOCK = 128
"""Configurations per block of the batched chain kernel (its work arrays stay in L1)."""

REDUCE_LIMIT = 4.0e5
"""|angle| (rad) up to which the polynomial path is used (then ``|j| < 2**18``)."""

_INVPIO2 = 6.36619772367581382433e-01  # 2/pi
_PIO2_1 = 1.57079632673412561417e00  # first 33 bits of pi/2
_PIO2_2 = 6.07710050630396597660e-11  # next 33 bits
_PIO2_3 = 2.02226624871116645580e-21  # next 33 bits
_PIO2_3T = 8.47842766036889956997e-32  # pi/2 - _PIO2_1 - _PIO2_2 - _PIO2_3
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@njit(cache=True, inline="always", error_model="numpy")
def sincos_poly(x):  # type: ignore[no-untyped-def]
    """``(sin x, cos x)`` by the polynomial path only (``|x| <= REDUCE_LIMIT``; NaN
    for NaN or inf); no branches, so a loop of it vectorises."""
    j = math.floor(x * _INVPIO2 + 0.5)
    r1 = x - j * _PIO2_1  # exact: _PIO2_1 has 33 bits, j fewer than 20
    w2 = j * _PIO2_2  # exact, likewise
    r2 = r1 - w2
    b2 = r2 - r1  # TwoSum: r1 - w2 = r2 + e2 exactly
    e2 = (r1 - (r2 - b2)) - (w2 + b2)
    w3 = j * _PIO2_3  # exact, likewise
    r3 = r2 - w3
    b3 = r3 - r2
    e3 = (r2 - (r3 - b3)) - (w3 + b3)
    w = j * _PIO2_3T - (e2 + e3)  # x - j pi/2 = r3 - w to about 150 bits of pi/2
    r = r3 - w
    y = (r3 - r) - w  # what rounding r lost: r + y is the reduced angle
    z = r * r
    v = z * r
    ps = _S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))
    sn = r - ((z * (0.5 * y - v * ps) - y) - v * _S1)
    pc = z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    hz = 0.5 * z
    w1 = 1.0 - hz
    cs = w1 + (((1.0 - w1) - hz) + (z * pc - r * y))
    m = j - 4.0 * math.floor(j * 0.25)  # quadrant 0..3
    # quadrants 0..3: (sin, cos) = (sn, cs), (cs, -sn), (-sn, -cs), (-cs, sn)
    odd = (m == 1.0) | (m == 3.0)
    s = cs if odd else sn
    c = sn if odd else cs
    s = -s if m >= 2.0 else s
    c = -c if (m == 1.0) | (m == 2.0) else c
    return s, c


@njit(cache=True, inline="always", error_model="numpy")
def sincos(x):  # type: ignore[no-untyped-def]
    """``(sin x, cos x)`` of one angle (rad): :func:`sincos_poly`, or libm beyond
    :data:`REDUCE_LIMIT` (and for NaN/inf)."""
    if abs(x) <= REDUCE_LIMIT:
        return sincos_poly(x)
    return math.sin(x), math.cos(x)


@njit(cache=True, inline="always")
def sincos_fix(x, s, c, n):  # type: ignore[no-untyped-def]
    """After ``s[i], c[i] = sincos_poly(x[i])`` for ``i < n``: redo the angles beyond
    :data:`REDUCE_LIMIT` (and NaN/inf) with libm, so the pair equals :func:`sincos`."""
    for i in range(n):
        if not abs(x[i]) <= REDUCE_LIMIT:
            s[i] = math.sin(x[i])
            c[i] = math.cos(x[i])


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
        s, c = sincos(x)
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
def _rot(t, s, c):  # type: ignore[no-untyped-def]
    """``t @ Rz(x)`` from ``s, c = sincos(x)``: :func:`_move`'s rotation."""
    t00, t01, t02, t03, t10, t11, t12, t13, t20, t21, t22, t23 = t
    return (
        t00 * c + t01 * s, t01 * c - t00 * s, t02, t03,
        t10 * c + t11 * s, t11 * c - t10 * s, t12, t13,
        t20 * c + t21 * s, t21 * c - t20 * s, t22, t23,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _store(out, t):  # type: ignore[no-untyped-def]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = t[0], t[1], t[2], t[3]
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = t[4], t[5], t[6], t[7]
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = t[8], t[9], t[10], t[11]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@njit(cache=True, nogil=True, error_model="numpy")
def chain_fk(q, prog, out):  # type: ignore[no-untyped-def]
    """Pose of one frame at the end of a chain for a batch of configurations.

    q: (N, nq) C-contiguous; prog: (K+1, 16) packed chain (see :func:`chain_fk_one`);
    out: (N, 4, 4) written in place. Blocks of :data:`BLOCK` configurations go through
    the chain joint by joint (structure-of-arrays transforms ``T (12, BLOCK)``); every
    configuration sees the same operations in the same order as :func:`chain_fk_one`,
    so the results are the same bit for bit.
    """
    K = int(prog[0, 0])
    N = q.shape[0]
    T = np.empty((12, BLOCK))
    X = np.empty(BLOCK)
    S = np.empty(BLOCK)
    C = np.empty(BLOCK)
    f0 = prog[0]
    for n0 in range(0, N, BLOCK):
        b = min(BLOCK, N - n0)
        for i in range(12):
            v = f0[4 + i]
            row = T[i]
            for n in range(b):
                row[n] = v
        for k in range(1, K + 1):
            p = prog[k]
            qi = int(p[1])
            m = p[2]
            o = p[3]
            for n in range(b):
                X[n] = m * q[n0 + n, qi] + o
            if int(p[0]) == REVOLUTE:
                for n in range(b):
                    S[n], C[n] = sincos_poly(X[n])
                sincos_fix(X, S, C, b)
                for r in range(3):  # t @ Rz(x)
                    t0 = T[4 * r]
                    t1 = T[4 * r + 1]
                    for n in range(b):
                        c = C[n]
                        s = S[n]
                        a0 = t0[n]
                        a1 = t1[n]
                        t0[n] = a0 * c + a1 * s
                        t1[n] = a1 * c - a0 * s
            else:  # t @ Tz(x)
                for r in range(3):
                    t2 = T[4 * r + 2]
                    t3 = T[4 * r + 3]
                    for n in range(b):
                        t3[n] = t3[n] + t2[n] * X[n]
            b00, b01, b02, b03 = p[4], p[5], p[6], p[7]
            b10, b11, b12, b13 = p[8], p[9], p[10], p[11]
            b20, b21, b22, b23 = p[12], p[13], p[14], p[15]
            for r in range(3):  # t @ F[k]
                t0 = T[4 * r]
                t1 = T[4 * r + 1]
                t2 = T[4 * r + 2]
                t3 = T[4 * r + 3]
                for n in range(b):
                    a0 = t0[n]
                    a1 = t1[n]
                    a2 = t2[n]
                    a3 = t3[n]
                    t0[n] = a0 * b00 + a1 * b10 + a2 * b20
                    t1[n] = a0 * b01 + a1 * b11 + a2 * b21
                    t2[n] = a0 * b02 + a1 * b12 + a2 * b22
                    t3[n] = a0 * b03 + a1 * b13 + a2 * b23 + a3
        for n in range(b):
            o_ = out[n0 + n]
            for r in range(3):
                for j in range(4):
                    o_[r, j] = T[4 * r + j, n]
            o_[3, 0] = 0.0
            o_[3, 1] = 0.0
            o_[3, 2] = 0.0
            o_[3, 3] = 1.0


@intrinsic
def _f8_ptr(typingctx, address):  # type: ignore[no-untyped-def]
    """A float64 pointer from an integer address (of an array kept alive elsewhere)."""
    sig = types.CPointer(types.float64)(types.intp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.float64)))

    return sig, codegen


_SCRATCH = 24
"""float64 slots of :func:`chain_fk_one`'s stack scratch: 8 angles, 8 sines, 8 cosines."""


@intrinsic
def _scratch(typingctx):  # type: ignore[no-untyped-def]
    """A pointer to :data:`_SCRATCH` float64 on the calling function's stack."""
    sig = types.CPointer(types.float64)()

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        n = context.get_constant(types.intp, _SCRATCH)
        return cgutils.alloca_once(builder, ir.DoubleType(), size=n)

    return sig, codegen


# One configuration: q (nq,) any strides, out (4, 4), the packed chain by address. One
# signature, compiled on first use (:data:`CHAIN_FK_ONE`), so the compiled entry point
# can be called without type dispatch; the chain as an address, not an array, saves
# converting a third array per call.
# ``_nrt=False`` (here and on lowest_z): the kernel allocates nothing (the chain is read
# through the pointer, not a carray), and without numba's reference-counted runtime the
# entry point takes an array without wrapping it in a new memory-info record each call.
_F8 = types.float64
CHAIN_FK_ONE_SIG = (types.Array(_F8, 1, "A"), types.Array(_F8, 2, "C"), types.intp)


@njit(cache=True, error_model="numpy", _nrt=False)
def chain_fk_one(q, out, prog_address):  # type: ignore[no-untyped-def]
    """Pose ``out (4, 4)`` of a chain's end frame for one configuration ``q (nq,)``.

    ``prog_address``: address of the packed chain ``prog`` (K+1, 16), C-contiguous
    float64 (the caller keeps it alive): row 0 holds ``K`` in column 0 and ``F[0]``
    (3x4 row-major) in columns 4..15; row ``k >= 1`` holds ``jt, qi, mult, off`` of
    joint ``k`` and ``F[k]``. Same operations in the same order as :func:`chain_fk`.
    """
    p = _f8_ptr(prog_address)  # row k of prog starts at p[16 k]
    K = int(p[0])
    t = (p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15])
    if K <= 8:
        # Every joint's sine and cosine first, eight lanes at once (unused lanes take
        # angle 0): one vectorised pass instead of one dependent scalar call per joint
        # in the chain of products. Same values as _move's (sincos == sincos_poly up
        # to REDUCE_LIMIT, then libm, as in chain_fk).
        w = _scratch()  # angles w[0:8], sines w[8:16], cosines w[16:24]
        for k in range(8):
            w[k] = 0.0
        for k in range(K):
            b = 16 * (k + 1)
            w[k] = p[b + 2] * q[int(p[b + 1])] + p[b + 3]
        for k in range(8):
            w[8 + k], w[16 + k] = sincos_poly(w[k])
        for k in range(K):
            x = w[k]
            if not abs(x) <= REDUCE_LIMIT:
                w[8 + k] = math.sin(x)
                w[16 + k] = math.cos(x)
        for k in range(1, K + 1):
            b = 16 * k
            jt = int(p[b])
            if jt == REVOLUTE:
                t = _rot(t, w[7 + k], w[15 + k])
            elif jt == PRISMATIC:
                t = _move(t, jt, w[k - 1])
            f = (p[b + 4], p[b + 5], p[b + 6], p[b + 7], p[b + 8], p[b + 9], p[b + 10],
                 p[b + 11], p[b + 12], p[b + 13], p[b + 14], p[b + 15])  # fmt: skip
            t = _mul(t, f)
    else:
        for k in range(1, K + 1):
            b = 16 * k
            x = p[b + 2] * q[int(p[b + 1])] + p[b + 3]
            t = _move(t, int(p[b]), x)
            f = (p[b + 4], p[b + 5], p[b + 6], p[b + 7], p[b + 8], p[b + 9], p[b + 10],
                 p[b + 11], p[b + 12], p[b + 13], p[b + 14], p[b + 15])  # fmt: skip
            t = _mul(t, f)
    _store(out, t)


_COMPILE_LOCK = threading.Lock()


def entry_point(dispatcher, signature):  # type: ignore[no-untyped-def]
    """The compiled function of ``dispatcher`` for ``signature``, callable without
    numba's per-call type dispatch (the caller guarantees the argument types), or
    the dispatcher itself if this numba does not expose it.

    Compiles ``signature`` (or loads it from numba's cache) on the first request and
    then stops the dispatcher compiling any other, as ``@njit(signature)`` would, but
    not at import: a command that never runs a kernel never waits for its compiler
    (a cold ``anchored_run`` and ``anchored_fk_at`` took 5-8 s, in every command that
    imported this module)."""
    sig = tuple(signature)
    with _COMPILE_LOCK:
        if sig not in dispatcher.overloads:
            dispatcher.compile(sig)
            dispatcher.disable_compile()
    try:
        return dispatcher.overloads[sig].entry_point
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


@njit(cache=True, inline="always")
def _load16(r):  # type: ignore[no-untyped-def]
    return (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11])


@njit(cache=True, inline="always")
def _store16(r, t):  # type: ignore[no-untyped-def]
    for k in range(12):
        r[k] = t[k]
    r[12] = 0.0
    r[13] = 0.0
    r[14] = 0.0
    r[15] = 1.0


ANCHORED_ROW = 29
"""Columns of a packed tree row: parent, jt, qi, mult, off, A (12), B (12)."""

_I8 = types.int64
_A1 = types.Array(_F8, 1, "C")
_A3 = types.Array(_F8, 3, "C")
_I1 = types.Array(_I8, 1, "C")
ANCHORED_FK_AT_SIG = (types.Array(_F8, 1, "A"), types.intp, types.intp, _I8, _I8)


@njit(cache=True, inline="always")
def _anchored(q, P, S, L, anchor):  # type: ignore[no-untyped-def]
    """The body of :func:`anchored_fk_at` on the packed arrays themselves."""
    _anchored_root(q, P, S, L, anchor)
    _world(S, L)


@njit(cache=True, inline="always")
def _world(S, L):  # type: ignore[no-untyped-def]
    """World link poses from the relative ones and the root pose (packed state)."""
    root = _load16(S[2 * L])
    for i in range(L):
        _store16(S[L + i], _mul(root, _load16(S[i])))


@njit(cache=True, inline="always")
def _anchored_root(q, P, S, L, anchor):  # type: ignore[no-untyped-def]
    """Relative link poses and the root pose of :func:`anchored_fk_at` (not the world
    poses)."""
    _store16(S[0], (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0))
    for i in range(1, L):
        p = P[i]
        a = (p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16])
        t = _mul(_load16(S[int(p[0])]), a)
        jt = int(p[1])
        if jt != 0:
            t = _move(t, jt, p[3] * q[int(p[2])] + p[4])
            b = (p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24], p[25], p[26],
                 p[27], p[28])  # fmt: skip
            t = _mul(t, b)
        _store16(S[i], t)
    root_row = 2 * L
    if anchor >= 0:
        T_root_anchor = _mul(_load16(S[anchor]), _load16(S[root_row + 1]))
        _store16(S[root_row], _mul(_load16(S[root_row + 2]), _inv(T_root_anchor)))


@njit(cache=True, error_model="numpy")
def anchored_fk_at(q, tree_address, state_address, L, anchor):  # type: ignore[no-untyped-def]
    """:func:`anchored_fk` on packed arrays given by address (one array to convert
    per call instead of thirteen); the same operations in the same order.

    ``tree_address``: float64 ``(L, ANCHORED_ROW)``, row ``i`` = ``parent, jt, qi,
    mult, off`` of link ``i`` then ``A[i]`` and ``B[i]`` (3x4 row-major).
    ``state_address``: float64 ``(2L + 3, 16)`` of 4x4 row-major poses: ``L`` relative
    poses, ``L`` world poses, then the root pose, the anchor offset and
    ``T_world_anchor``. The caller keeps both alive.
    """
    P = carray(_f8_ptr(tree_address), (L, ANCHORED_ROW))
    S = carray(_f8_ptr(state_address), (2 * L + 3, 16))
    _anchored(q, P, S, L, anchor)


LOWEST_Z_SIG = (_A3, _I1, _A3, _I1, _A1)


@njit(cache=True, inline="always")
def _lowest(w0, w1, w2, w3, pts, count):  # type: ignore[no-untyped-def]
    """``min_p (w . pts[p])`` over the first ``count`` points (inf for none)."""
    best = np.inf
    for p in range(count):
        c = pts[p]
        z = w0 * c[0] + w1 * c[1] + w2 * c[2] + w3 * c[3]
        if z < best:
            best = z
    return best


@njit(cache=True, error_model="numpy", _nrt=False)
def lowest_z(world, links, points, counts, out):  # type: ignore[no-untyped-def]
    """Lowest world height of each of ``F`` point sets fixed to links.

    world: (L, 4, 4) link poses; links: (F,) the link of each set; points: (F, P, 4)
    homogeneous points in the link frame (set f uses its first ``counts[f]``);
    out: (F,) ``min_p (world[links[f]] @ points[f, p])[2]`` (m).
    """
    for f in range(links.shape[0]):
        W = world[links[f]]
        out[f] = _lowest(W[2, 0], W[2, 1], W[2, 2], W[2, 3], points[f], counts[f])


_A2 = types.Array(_F8, 2, "C")
ANCHORED_RUN_SIG = (_A2, types.intp, types.intp, types.intp, types.intp, _I8, _I8, _I1, _A3,
                    _I1, _I8, _F8, _A3, _A2)  # fmt: skip


@njit(cache=True, error_model="numpy")
def anchored_run(qs, start, stop, tree_address, state_address, L, anchor, links, points,
                 counts, hold, sink_tol, root_out, heights_out):  # type: ignore[no-untyped-def]  # fmt: skip
    """Move an anchored state through ``qs[start:stop]`` (samples ``(N, nq)``) until a
    point set other than ``hold`` sinks: per sample, :func:`anchored_fk_at` (same
    arrays by address, same anchor) then :func:`lowest_z` of the world poses into
    ``heights_out[i]`` ``(F,)``, the root pose into ``root_out[i]`` ``(4, 4)``.

    Returns the first sample ``i`` at which some set ``f != hold`` is lower than
    ``min(0, h[hold]) - sink_tol`` (the state then holds sample ``i`` without its
    world poses, and ``root_out[i]`` is not written), or ``stop``. The same operations in the same
    order as one call of each kernel per sample, so the results equal theirs bit for
    bit (the support-switch rule of :mod:`robotsim.motion.support`).
    """
    P = carray(_f8_ptr(tree_address), (L, ANCHORED_ROW))
    S = carray(_f8_ptr(state_address), (2 * L + 3, 16))
    F = links.shape[0]
    for i in range(start, stop):
        _anchored_root(qs[i], P, S, L, anchor)
        root = _load16(S[2 * L])
        h = heights_out[i]
        for f in range(F):  # only the soles' world poses (all of them at the end)
            W = _mul(root, _load16(S[links[f]]))
            h[f] = _lowest(W[8], W[9], W[10], W[11], points[f], counts[f])
        if hold >= 0:
            floor = h[hold] if h[hold] < 0.0 else 0.0  # Python's min(0.0, h[hold])
            floor -= sink_tol
            for f in range(F):
                if f != hold and h[f] < floor:
                    return i
        o = root_out[i]
        for r in range(3):
            for c in range(4):
                o[r, c] = root[4 * r + c]
        o[3, 0] = 0.0
        o[3, 1] = 0.0
        o[3, 2] = 0.0
        o[3, 3] = 1.0
    _world(S, L)
    return stop


# The kernels with one signature, as compiled entry points (see :func:`entry_point`):
# module attributes made on first use (PEP 562), then plain globals.
_ENTRY_POINTS = {
    "CHAIN_FK_ONE": (chain_fk_one, CHAIN_FK_ONE_SIG),
    "ANCHORED_FK_AT": (anchored_fk_at, ANCHORED_FK_AT_SIG),
    "LOWEST_Z": (lowest_z, LOWEST_Z_SIG),
    "ANCHORED_RUN": (anchored_run, ANCHORED_RUN_SIG),
}


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    try:
        dispatcher, signature = _ENTRY_POINTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    fn = entry_point(dispatcher, signature)
    globals()[name] = fn
    return fn
