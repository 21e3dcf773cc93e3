"""Compiled ray casting of a lidar scan against MuJoCo's primitive geoms.

One call casts every ray of a scan from the sensor frame (:func:`cast_into`, on
pointers to the MuJoCo data's arrays and the lidar's, without the GIL, so the rig's
compiled stepping calls it too: :func:`lidar_row`): the frame is composed from the
body's pose, every ray turned into the world, culled against each geom's bounding sphere
(a ray whose angle to the sphere's centre exceeds the sphere's angular radius cannot hit
it), and intersected exactly in the geom's frame. The intersections follow MuJoCo's own
ray functions (``engine_ray.c``: ``mj_ray``, ``mju_rayGeom``), so a scan agrees with
MuJoCo's casts to rounding (``tests/sensors/test_raycast.py`` holds them against
``mujoco.mju_rayGeom`` on random geoms and rays):

- a plane is hit from its front face only (the ray must point against its +z), within
  its rectangle when its sizes are positive;
- spheres, capsules, cylinders, boxes and ellipsoids are solid: a ray starting inside
  one hits it where it leaves;
- ``a x^2 + 2 b x + c = 0`` has no root when ``b^2 - a c < 1e-15`` (MuJoCo's
  ``mjMINVAL``), and the nearer non-negative root is the hit.

Meshes, height fields and SDFs are not handled here (:mod:`robotsim.sensors.lidar` casts
those rays with MuJoCo's ``mj_rayMesh``/``mj_rayHfield``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from robotsim.sensors._pointers import f4, f8, i4, i8

__all__ = [
    "PARAMS",
    "PRIMITIVES",
    "cast_into",
    "finish_into",
    "finish_ranges",
    "lidar_row",
    "ray_primitive",
]

MINVAL = 1e-15
PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX = 0, 2, 3, 4, 5, 6
#: geom types (``mjtGeom``) :func:`cast_scan` intersects
PRIMITIVES = (PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX)


@njit(cache=True, inline="always")
def _quad(a: float, b: float, c: float) -> tuple[float, float, float]:
    """Roots of ``a x^2 + 2 b x + c = 0`` (-1, -1 without) and the nearer non-negative
    one (-1: none)."""
    det = b * b - a * c
    if det < MINVAL:
        return -1.0, -1.0, -1.0
    det = math.sqrt(det)
    x0 = (-b - det) / a
    x1 = (-b + det) / a
    if x0 >= 0:
        return x0, x1, x0
    if x1 >= 0:
        return x0, x1, x1
    return x0, x1, -1.0


@njit(cache=True, inline="always")
def _better(x: float, sol: float) -> float:
    if sol >= 0 and (x < 0 or sol < x):
        return sol
    return x


@njit(cache=True)
def ray_primitive(gtype, s0, s1, s2, px, py, pz, vx, vy, vz):  # type: ignore[no-untyped-def]
    """Distance along a ray ``p + x v`` (in the geom's frame, ``p`` relative to its
    centre) to a primitive geom of MuJoCo type ``gtype`` and sizes ``s0, s1, s2``
    (MuJoCo's ``geom_size``); -1 when it misses."""
    if gtype == PLANE:
        if vz > -MINVAL:
            return -1.0
        x = -pz / vz
        if x < 0:
            return -1.0
        if (s0 <= 0 or abs(px + x * vx) <= s0) and (s1 <= 0 or abs(py + x * vy) <= s1):
            return x
        return -1.0
    if gtype == SPHERE:
        a = vx * vx + vy * vy + vz * vz
        b = vx * px + vy * py + vz * pz
        c = px * px + py * py + pz * pz - s0 * s0
        return _quad(a, b, c)[2]
    if gtype == ELLIPSOID:
        i0, i1, i2 = 1.0 / (s0 * s0), 1.0 / (s1 * s1), 1.0 / (s2 * s2)
        a = i0 * vx * vx + i1 * vy * vy + i2 * vz * vz
        b = i0 * vx * px + i1 * vy * py + i2 * vz * pz
        c = i0 * px * px + i1 * py * py + i2 * pz * pz - 1.0
        return _quad(a, b, c)[2]
    if gtype == CAPSULE:
        x = -1.0
        a = vx * vx + vy * vy
        b = vx * px + vy * py
        c = px * px + py * py - s0 * s0
        sol = _quad(a, b, c)[2]
        if sol >= 0 and abs(pz + sol * vz) <= s1:
            x = _better(x, sol)
        a = vx * vx + vy * vy + vz * vz
        for side in (1.0, -1.0):  # the caps: the half spheres beyond the flat ends
            dz = pz - side * s1
            b = vx * px + vy * py + vz * dz
            c = px * px + py * py + dz * dz - s0 * s0
            r0, r1, _ = _quad(a, b, c)
            for r in (r0, r1):
                if r >= 0 and side * (pz + r * vz) >= s1:
                    x = _better(x, r)
        return x
    if gtype == CYLINDER:
        x = -1.0
        if abs(vz) > MINVAL:
            for side in (-1.0, 1.0):
                sol = (side * s1 - pz) / vz
                if sol >= 0:
                    qx, qy = px + sol * vx, py + sol * vy
                    if qx * qx + qy * qy <= s0 * s0:
                        x = _better(x, sol)
        a = vx * vx + vy * vy
        b = vx * px + vy * py
        c = px * px + py * py - s0 * s0
        sol = _quad(a, b, c)[2]
        if sol >= 0 and abs(pz + sol * vz) <= s1:
            x = _better(x, sol)
        return x
    if gtype == BOX:
        x = -1.0
        p = (px, py, pz)
        v = (vx, vy, vz)
        s = (s0, s1, s2)
        for i in range(3):
            if abs(v[i]) > MINVAL:
                j, k = (1, 2) if i == 0 else ((0, 2) if i == 1 else (0, 1))
                for side in (-1.0, 1.0):
                    sol = (side * s[i] - p[i]) / v[i]
                    if sol >= 0:
                        if abs(p[j] + sol * v[j]) <= s[j] and abs(p[k] + sol * v[k]) <= s[k]:
                            x = _better(x, sol)
        return x
    return -1.0


#: The words of a lidar's cast parameters (an int64 array; the float64 values stored
#: bit for bit in their words), which :func:`cast_into`, :func:`finish_into` and
#: :func:`lidar_row` take by address: MuJoCo's ``xpos`` ``(nbody, 3)`` and ``xmat``
#: ``(nbody, 9)``, the body, the mount ``R_bs`` (3 x 3, row-major) and ``p_bs``, the
#: noise-free ray directions ``(n, 3)`` (sensor frame) and ``n``, the geoms' types
#: (int32), sizes ``(G, 3)``, world positions ``(G, 3)``, rotations ``(G, 9)`` and
#: bounding radii, the geoms cast against (int64 indices, primitives only) and their
#: number, the minimum and maximum ranges (float64), ``dist`` ``(n,)`` (m; ``inf``: no
#: hit), ``geoms`` ``(n,)`` (int32, the geom hit, -1: none), ``pose`` ``(7,)``, the rays
#: in the world ``(n, 3)``, the offsets of ``ranges`` and ``pose`` in a reading's row,
#: whether a reading takes range noise and dropouts (0/1) and the dropout probability.
(P_XPOS, P_XMAT, P_BODY, P_RBS, P_PBS, P_DIRS, P_N, P_GTYPE, P_GSIZE, P_GXPOS, P_GXMAT,
 P_GRB, P_ACTIVE, P_NACTIVE, P_RMIN, P_RMAX, P_DIST, P_GEOMS, P_POSE, P_W, P_OFF_R,
 P_OFF_P, P_NOISY, P_DROPS, P_DROPOUT) = range(25)  # fmt: skip
PARAMS = 25


@njit(cache=True, _nrt=False, nogil=True)
def cast_into(p_par, p_dirs):  # type: ignore[no-untyped-def]
    """Cast the rays at ``p_dirs`` (``(n, 3)`` float64, sensor frame) of the lidar whose
    parameters are at ``p_par`` (see :data:`PARAMS`) against its geoms (primitives;
    geoms whose bounding sphere lies beyond the maximum range are skipped): writes
    ``dist``, ``geoms``, ``pose`` (the sensor frame in the world: x, y, z, qw, qx, qy,
    qz) and the rays in the world. Pointers only: no array made, no GIL held."""
    q = i8(p_par)
    qf = f8(p_par)
    xpos, xmat, b = f8(q[P_XPOS]), f8(q[P_XMAT]), q[P_BODY]
    R_bs, p_bs, dirs, n = f8(q[P_RBS]), f8(q[P_PBS]), f8(p_dirs), q[P_N]
    geom_type, geom_size = i4(q[P_GTYPE]), f8(q[P_GSIZE])
    geom_pos, geom_mat, geom_rbound = f8(q[P_GXPOS]), f8(q[P_GXMAT]), f8(q[P_GRB])
    active, nactive, range_max = i8(q[P_ACTIVE]), q[P_NACTIVE], qf[P_RMAX]
    best, geoms, pose, w = f8(q[P_DIST]), i4(q[P_GEOMS]), f8(q[P_POSE]), f8(q[P_W])
    b9, b3 = 9 * b, 3 * b
    # R = R_wb R_bs, o = x_b + R_wb p_bs: the sensor frame, as local numbers
    R00 = xmat[b9] * R_bs[0] + xmat[b9 + 1] * R_bs[3] + xmat[b9 + 2] * R_bs[6]
    R01 = xmat[b9] * R_bs[1] + xmat[b9 + 1] * R_bs[4] + xmat[b9 + 2] * R_bs[7]
    R02 = xmat[b9] * R_bs[2] + xmat[b9 + 1] * R_bs[5] + xmat[b9 + 2] * R_bs[8]
    R10 = xmat[b9 + 3] * R_bs[0] + xmat[b9 + 4] * R_bs[3] + xmat[b9 + 5] * R_bs[6]
    R11 = xmat[b9 + 3] * R_bs[1] + xmat[b9 + 4] * R_bs[4] + xmat[b9 + 5] * R_bs[7]
    R12 = xmat[b9 + 3] * R_bs[2] + xmat[b9 + 4] * R_bs[5] + xmat[b9 + 5] * R_bs[8]
    R20 = xmat[b9 + 6] * R_bs[0] + xmat[b9 + 7] * R_bs[3] + xmat[b9 + 8] * R_bs[6]
    R21 = xmat[b9 + 6] * R_bs[1] + xmat[b9 + 7] * R_bs[4] + xmat[b9 + 8] * R_bs[7]
    R22 = xmat[b9 + 6] * R_bs[2] + xmat[b9 + 7] * R_bs[5] + xmat[b9 + 8] * R_bs[8]
    o0 = xpos[b3] + (xmat[b9] * p_bs[0] + xmat[b9 + 1] * p_bs[1] + xmat[b9 + 2] * p_bs[2])
    o1 = xpos[b3 + 1] + (xmat[b9 + 3] * p_bs[0] + xmat[b9 + 4] * p_bs[1]
                         + xmat[b9 + 5] * p_bs[2])  # fmt: skip
    o2 = xpos[b3 + 2] + (xmat[b9 + 6] * p_bs[0] + xmat[b9 + 7] * p_bs[1]
                         + xmat[b9 + 8] * p_bs[2])  # fmt: skip
    for r in range(n):
        best[r] = np.inf
        d0, d1, d2 = dirs[3 * r], dirs[3 * r + 1], dirs[3 * r + 2]
        w[3 * r] = R00 * d0 + R01 * d1 + R02 * d2
        w[3 * r + 1] = R10 * d0 + R11 * d1 + R12 * d2
        w[3 * r + 2] = R20 * d0 + R21 * d1 + R22 * d2
        geoms[r] = -1
    for j in range(nactive):
        g = active[j]
        t = geom_type[g]
        g3, g9 = 3 * g, 9 * g
        cx, cy, cz = geom_pos[g3], geom_pos[g3 + 1], geom_pos[g3 + 2]
        dx, dy, dz = o0 - cx, o1 - cy, o2 - cz
        m0, m1, m2 = geom_mat[g9], geom_mat[g9 + 1], geom_mat[g9 + 2]
        m3, m4, m5 = geom_mat[g9 + 3], geom_mat[g9 + 4], geom_mat[g9 + 5]
        m6, m7, m8 = geom_mat[g9 + 6], geom_mat[g9 + 7], geom_mat[g9 + 8]
        # the origin in the geom's frame (R^T dif), once per geom
        lx = m0 * dx + m3 * dy + m6 * dz
        ly = m1 * dx + m4 * dy + m7 * dz
        lz = m2 * dx + m5 * dy + m8 * dz
        cull = False
        cosmax = -2.0
        ux = uy = uz = 0.0
        if t != PLANE:
            rb = geom_rbound[g] * (1.0 + 1e-9) + 1e-12
            dc = math.sqrt(dx * dx + dy * dy + dz * dz)
            if dc - rb > range_max:
                continue
            if dc > rb:
                cull = True
                cosmax = math.sqrt(1.0 - (rb / dc) ** 2)
                ux, uy, uz = -dx / dc, -dy / dc, -dz / dc
        s0, s1, s2 = geom_size[g3], geom_size[g3 + 1], geom_size[g3 + 2]
        for r in range(n):
            vx, vy, vz = w[3 * r], w[3 * r + 1], w[3 * r + 2]
            if cull and vx * ux + vy * uy + vz * uz < cosmax:
                continue
            lvx = m0 * vx + m3 * vy + m6 * vz
            lvy = m1 * vx + m4 * vy + m7 * vz
            lvz = m2 * vx + m5 * vy + m8 * vz
            x = ray_primitive(t, s0, s1, s2, lx, ly, lz, lvx, lvy, lvz)
            if x >= 0 and x < best[r]:
                best[r] = x
                geoms[r] = g
    pose[0], pose[1], pose[2] = o0, o1, o2
    _quat_into(R00, R01, R02, R10, R11, R12, R20, R21, R22, pose)


@njit(cache=True, nogil=True)
def finish_ranges(dist, geoms, range_min, range_max, ranges):  # type: ignore[no-untyped-def]
    """``ranges`` (float32) from ``dist``: ``inf`` beyond ``range_max`` (its geom -1),
    NaN closer than ``range_min``."""
    for r in range(dist.shape[0]):
        v, beyond = _return_of(dist[r], range_min, range_max)
        ranges[r] = v
        if beyond:
            geoms[r] = -1


@njit(cache=True, inline="always")
def _return_of(x, range_min, range_max):  # type: ignore[no-untyped-def]
    """A ray's range (float32) from its distance ``x``: ``inf`` beyond ``range_max``
    (then True: it hit nothing), NaN closer than ``range_min``, else ``x``."""
    if x > range_max:
        return np.float32(np.inf), True
    if x < range_min:
        return np.float32(np.nan), False
    return np.float32(x), False


@njit(cache=True, _nrt=False, nogil=True)
def finish_into(p_par, noise, row, t):  # type: ignore[no-untyped-def]
    """A scan's reading (cast by :func:`cast_into`) into the row at address ``row``:
    ``t`` (float64) at its start, the ranges (float32, as :func:`finish_ranges`) at
    the parameters' ``ranges`` offset, the pose (float64, 7) at theirs. ``noise``: the
    address of this reading's drawn numbers (or 0): the range noise ``(n,)`` (m,
    already scaled) when the lidar has range noise, added to every return within range
    (in float32, clipped at 0), then ``(n,)`` uniform numbers in [0, 1) when it has
    dropouts: a ray whose number is below the dropout probability returns NaN."""
    q = i8(p_par)
    qf = f8(p_par)
    n = q[P_N]
    dist, geoms, pose = f8(q[P_DIST]), i4(q[P_GEOMS]), f8(q[P_POSE])
    range_min, range_max, dropout = qf[P_RMIN], qf[P_RMAX], qf[P_DROPOUT]
    noisy = noise != 0 and q[P_NOISY] != 0
    drops = noise != 0 and q[P_DROPS] != 0
    nz = f8(noise)
    dr = f8(noise + 8 * n * q[P_NOISY])
    head = f8(row)
    head[0] = t
    out = f4(row + q[P_OFF_R])
    zero = np.float32(0.0)
    for r in range(n):
        v, beyond = _return_of(dist[r], range_min, range_max)
        if beyond:
            geoms[r] = -1
        elif noisy and v == v:  # a return within range (not NaN): its noise
            v = np.float32(v + np.float32(nz[r]))
            if v < zero:
                v = zero
        if drops and dr[r] < dropout:
            v = np.float32(np.nan)
        out[r] = v
    p = f8(row + q[P_OFF_P])
    for i in range(7):
        p[i] = pose[i]


@njit(cache=True, _nrt=False, nogil=True)
def lidar_row(p_par, noise, row, t):  # type: ignore[no-untyped-def]
    """A noise-free-direction scan into the row at ``row``: :func:`cast_into` of the
    parameters' own ray directions, then :func:`finish_into` (what the rig's compiled
    stepping calls for a lidar that is due)."""
    cast_into(p_par, i8(p_par)[P_DIRS])
    finish_into(p_par, noise, row, t)


@njit(cache=True, _nrt=False, inline="always")
def _quat_into(R00, R01, R02, R10, R11, R12, R20, R21, R22, out):  # type: ignore[no-untyped-def]
    """``out[3:7]`` = the unit quaternion (w, x, y, z, w >= 0) of the rotation ``R``."""
    tr = R00 + R11 + R22
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x = 0.25 * s, (R21 - R12) / s
        y, z = (R02 - R20) / s, (R10 - R01) / s
    elif R00 > R11 and R00 > R22:
        s = math.sqrt(1.0 + R00 - R11 - R22) * 2
        w, x = (R21 - R12) / s, 0.25 * s
        y, z = (R01 + R10) / s, (R02 + R20) / s
    elif R11 > R22:
        s = math.sqrt(1.0 + R11 - R00 - R22) * 2
        w, x = (R02 - R20) / s, (R01 + R10) / s
        y, z = 0.25 * s, (R12 + R21) / s
    else:
        s = math.sqrt(1.0 + R22 - R00 - R11) * 2
        w, x = (R10 - R01) / s, (R02 + R20) / s
        y, z = (R12 + R21) / s, 0.25 * s
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    nrm = math.sqrt(w * w + x * x + y * y + z * z)
    out[3], out[4], out[5], out[6] = w / nrm, x / nrm, y / nrm, z / nrm
