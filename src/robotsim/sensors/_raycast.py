"""Compiled ray casting of a lidar scan against MuJoCo's primitive geoms.

One call casts every ray of a scan from the sensor frame: the frame is composed from the
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

from robotsim.sensors._pointers import f4, f8

__all__ = [
    "PRIMITIVES",
    "cast_scan",
    "finish_ranges",
    "finish_row",
    "mat_to_quat",
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


@njit(cache=True, nogil=True)
def cast_scan(xpos, xmat, b, R_bs, p_bs, dirs, geom_type, geom_size, geom_pos, geom_mat,
              geom_rbound, active, range_max, dist, geoms, pose):  # type: ignore[no-untyped-def]  # fmt: skip
    """Cast the rays ``dirs`` ``(n, 3)`` (sensor frame) of a sensor mounted at ``R_bs``,
    ``p_bs`` on body ``b`` (MuJoCo's ``xpos`` ``(nbody, 3)``, ``xmat`` ``(nbody, 9)``:
    its pose) against the geoms
    ``active`` (indices into MuJoCo's ``geom_*`` arrays: types, sizes ``(G, 3)``, world
    positions ``(G, 3)``, rotations ``(G, 9)``, bounding radii; primitives only; geoms
    whose bounding sphere lies beyond ``range_max`` are skipped).

    Writes ``dist`` ``(n,)`` (m; ``inf``: no hit), ``geoms`` ``(n,)`` the geom hit (-1:
    none) and ``pose`` ``(7,)`` the sensor frame in the world (x, y, z, qw, qx, qy, qz);
    returns the rays in the world ``(n, 3)``."""
    R = np.empty((3, 3))
    o = np.empty(3)
    body_mat = xmat[b]
    for i in range(3):
        for j in range(3):
            R[i, j] = (body_mat[3 * i] * R_bs[0, j] + body_mat[3 * i + 1] * R_bs[1, j]
                       + body_mat[3 * i + 2] * R_bs[2, j])  # fmt: skip
        o[i] = xpos[b, i] + (body_mat[3 * i] * p_bs[0] + body_mat[3 * i + 1] * p_bs[1]
                             + body_mat[3 * i + 2] * p_bs[2])  # fmt: skip
    n = dirs.shape[0]
    w = np.empty((n, 3))
    best = dist
    for r in range(n):
        best[r] = np.inf
        for i in range(3):
            w[r, i] = R[i, 0] * dirs[r, 0] + R[i, 1] * dirs[r, 1] + R[i, 2] * dirs[r, 2]
        geoms[r] = -1
    for g in active:
        t = geom_type[g]
        cx, cy, cz = geom_pos[g, 0], geom_pos[g, 1], geom_pos[g, 2]
        dx, dy, dz = o[0] - cx, o[1] - cy, o[2] - cz
        m = geom_mat[g]
        # the origin in the geom's frame (R^T dif), once per geom
        lx = m[0] * dx + m[3] * dy + m[6] * dz
        ly = m[1] * dx + m[4] * dy + m[7] * dz
        lz = m[2] * dx + m[5] * dy + m[8] * dz
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
        s0, s1, s2 = geom_size[g, 0], geom_size[g, 1], geom_size[g, 2]
        for r in range(n):
            vx, vy, vz = w[r, 0], w[r, 1], w[r, 2]
            if cull and vx * ux + vy * uy + vz * uz < cosmax:
                continue
            lvx = m[0] * vx + m[3] * vy + m[6] * vz
            lvy = m[1] * vx + m[4] * vy + m[7] * vz
            lvz = m[2] * vx + m[5] * vy + m[8] * vz
            x = ray_primitive(t, s0, s1, s2, lx, ly, lz, lvx, lvy, lvz)
            if x >= 0 and x < best[r]:
                best[r] = x
                geoms[r] = g
    pose[0], pose[1], pose[2] = o[0], o[1], o[2]
    mat_to_quat(R, pose)
    return w


@njit(cache=True, nogil=True)
def finish_ranges(dist, geoms, range_min, range_max, ranges):  # type: ignore[no-untyped-def]
    """``ranges`` (float32) from ``dist``: ``inf`` beyond ``range_max`` (its geom -1),
    NaN closer than ``range_min``."""
    for r in range(dist.shape[0]):
        x = dist[r]
        if x > range_max:
            ranges[r] = np.inf
            geoms[r] = -1
        elif x < range_min:
            ranges[r] = np.nan
        else:
            ranges[r] = x


@njit(cache=True, nogil=True)
def finish_row(dist, geoms, range_min, range_max, noise, drop, dropout, pose, row, off_r,
               off_p, t):  # type: ignore[no-untyped-def]  # fmt: skip
    """A scan's reading into the row at address ``row``: ``t`` (float64) at its start,
    the ranges (float32, as :func:`finish_ranges`) at ``row + off_r``, ``pose`` ``(7,)``
    (float64) at ``row + off_p``. ``noise`` ``(n,)`` (m, already scaled; or empty) is
    added to every return within range (in float32, clipped at 0), and a ray whose
    ``drop`` ``(n,)`` (uniform in [0, 1); or empty) is below ``dropout`` returns NaN."""
    head = f8(row)
    head[0] = t
    out = f4(row + off_r)
    n = dist.shape[0]
    noisy = noise.shape[0] == n
    drops = drop.shape[0] == n
    zero = np.float32(0.0)
    for r in range(n):
        x = dist[r]
        if x > range_max:
            v = np.float32(np.inf)
            geoms[r] = -1
        elif x < range_min:
            v = np.float32(np.nan)
        else:
            v = np.float32(x)
            if noisy:
                v = np.float32(v + np.float32(noise[r]))
                if v < zero:
                    v = zero
        if drops and drop[r] < dropout:
            v = np.float32(np.nan)
        out[r] = v
    p = f8(row + off_p)
    for i in range(7):
        p[i] = pose[i]


@njit(cache=True)
def mat_to_quat(R, out):  # type: ignore[no-untyped-def]
    """``out[3:7]`` = the unit quaternion (w, x, y, z, w >= 0) of rotation ``R``."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x = 0.25 * s, (R[2, 1] - R[1, 2]) / s
        y, z = (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2
        w, x = (R[2, 1] - R[1, 2]) / s, 0.25 * s
        y, z = (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2
        w, x = (R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s
        y, z = 0.25 * s, (R[1, 2] + R[2, 1]) / s
    else:
        s = math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2
        w, x = (R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s
        y, z = (R[1, 2] + R[2, 1]) / s, 0.25 * s
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    nrm = math.sqrt(w * w + x * x + y * y + z * z)
    out[3], out[4], out[5], out[6] = w / nrm, x / nrm, y / nrm, z / nrm
