"""Signed distance between placed primitive volumes: sphere, capsule, box, ellipsoid.

``shape_distance(shape_a, T_a, shape_b, T_b)`` with shapes from
:mod:`robotsim.model.geometry` and world poses ``T (..., 4, 4)`` (broadcast). Signed
distance as in :mod:`robotsim.geometry.ellipsoid` (negative = minus the minimum
translation distance). Methods and accuracy per pair:

==========================  =========================================================
sphere/ellipsoid pairs       the exact ellipsoid kernel (a sphere is an ellipsoid)
capsule-capsule, -sphere     segment-segment / point-segment distance minus the radii:
                             exact (capsule = segment + ball, and the signed distance
                             of Minkowski sums with a ball shifts by the radius)
capsule-ellipsoid,           support function split into vertex cones (exact kernel)
box-ellipsoid                and edge arcs (1-D golden section): exact when apart, see
                             :mod:`.core_ellipsoid`
box-sphere                   exact (point-box signed distance minus the radius)
box-box, box-capsule         exact: closest features when apart, separating-axis depth
                             (15 resp. 6 axes, exact for these polytopes) when overlapping
==========================  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.geometry import support as sp
from robotsim.geometry._ellipsoid_kernel import ellipsoid_pairs, kernel_input
from robotsim.geometry.core_ellipsoid import box_ellipsoid, capsule_ellipsoid
from robotsim.geometry.segments import point_box, point_segment, segment_segment
from robotsim.model.geometry import Box, Capsule, Ellipsoid, Sphere

__all__ = ["ShapeDistance", "pack_shape", "shape_distance"]

_KIND = {Sphere: sp.SPHERE, Capsule: sp.CAPSULE, Box: sp.BOX, Ellipsoid: sp.ELLIPSOID}


@dataclass(frozen=True)
class ShapeDistance:
    """Signed distance (m) ``(...)``, witness points ``(..., 3)`` and unit normal from A
    to B ``(..., 3)``; ``point_b - point_a = distance * normal`` (for overlapping boxes
    the witness points are one support point of A and its translate)."""

    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray


def pack_shape(shape: object) -> tuple[int, np.ndarray]:
    """``(kind, size)`` of a primitive (see :mod:`robotsim.geometry.support`)."""
    if isinstance(shape, Sphere):
        return sp.SPHERE, np.full(3, shape.radius)
    if isinstance(shape, Capsule):
        return sp.CAPSULE, np.array([shape.radius, shape.radius, shape.length / 2])
    if isinstance(shape, Box):
        return sp.BOX, np.array(shape.size, dtype=float) / 2
    if isinstance(shape, Ellipsoid):
        return sp.ELLIPSOID, np.array(shape.radii, dtype=float)
    raise InputError(
        f"bounding volume must be a sphere, capsule, box or ellipsoid, got {type(shape).__name__}"
    )


def shape_distance(
    shape_a: object, T_a: ArrayLike, shape_b: object, T_b: ArrayLike
) -> ShapeDistance:
    """Signed distance between ``shape_a`` at ``T_a`` and ``shape_b`` at ``T_b``."""
    ka, sa = pack_shape(shape_a)
    kb, sb = pack_shape(shape_b)
    Ta = np.asarray(T_a, dtype=np.float64)
    Tb = np.asarray(T_b, dtype=np.float64)
    batch = np.broadcast_shapes(Ta.shape[:-2], Tb.shape[:-2])
    n = int(np.prod(batch, dtype=np.int64))
    Ta = np.broadcast_to(Ta, (*batch, 4, 4)).reshape(n, 4, 4)
    Tb = np.broadcast_to(Tb, (*batch, 4, 4)).reshape(n, 4, 4)
    d, pa, pb, nrm = packed_distance(
        ka,
        np.broadcast_to(sa, (n, 3)),
        Ta[:, :3, :3],
        Ta[:, :3, 3],
        kb,
        np.broadcast_to(sb, (n, 3)),
        Tb[:, :3, :3],
        Tb[:, :3, 3],
    )
    return ShapeDistance(
        d.reshape(batch), pa.reshape(*batch, 3), pb.reshape(*batch, 3), nrm.reshape(*batch, 3)
    )


def packed_distance(
    ka: int,
    sa: np.ndarray,
    Ra: np.ndarray,
    ca: np.ndarray,
    kb: int,
    sb: np.ndarray,
    Rb: np.ndarray,
    cb: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flat version: ``N`` pairs, sizes ``(N,3)``, rotations ``(N,3,3)``, centres ``(N,3)``."""
    if ka > kb:
        d, pb, pa, nrm = packed_distance(kb, sb, Rb, cb, ka, sa, Ra, ca)
        return d, pa, pb, -nrm
    pair = (ka, kb)
    round_kinds = (sp.SPHERE, sp.ELLIPSOID)
    if ka in round_kinds and kb in round_kinds:
        return _ellipsoids(sa, Ra, ca, sb, Rb, cb)
    if pair == (sp.SPHERE, sp.CAPSULE):
        pb0, qb0 = _segment(sb, Rb, cb)
        dist, c = point_segment(ca, pb0, qb0)
        return _inflate(dist, ca, c, sa[:, 0], sb[:, 0])
    if pair == (sp.CAPSULE, sp.CAPSULE):
        p1, q1 = _segment(sa, Ra, ca)
        p2, q2 = _segment(sb, Rb, cb)
        dist, x, y = segment_segment(p1, q1, p2, q2)
        return _inflate(dist, x, y, sa[:, 0], sb[:, 0], np.cross(Ra[:, :, 2], Rb[:, :, 2]))
    if pair == (sp.CAPSULE, sp.ELLIPSOID):
        return capsule_ellipsoid(sa, Ra, ca, sb, Rb, cb)
    if pair == (sp.SPHERE, sp.BOX):
        d, pb, pa, nrm = _box_point(sb, Rb, cb, ca, sa[:, 0])
        return d, pa, pb, -nrm
    if pair == (sp.CAPSULE, sp.BOX):
        d, pb, pa, nrm = _box_segment(sb, Rb, cb, sa, Ra, ca)
        return d, pa, pb, -nrm
    if pair == (sp.BOX, sp.BOX):
        return _box_box(sa, Ra, ca, sb, Rb, cb)
    return box_ellipsoid(sa, Ra, ca, sb, Rb, cb)


def _ellipsoids(sa, Ra, ca, sb, Rb, cb):  # type: ignore[no-untyped-def]
    n = len(sa)
    out = np.empty(n), np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3))
    c = kernel_input
    ellipsoid_pairs(c(ca), c(Ra), c(sa), c(cb), c(Rb), c(sb), *out)
    return out


def _segment(s: np.ndarray, R: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    axis = R[:, :, 2] * s[:, 2:3]
    return c - axis, c + axis


def _inflate(dist, x, y, ra, rb, plane=None):  # type: ignore[no-untyped-def]
    """Core distance ``dist`` between points ``x`` (A's core) and ``y`` (B's) -> signed
    distance of the cores inflated by radii ``ra, rb``. ``plane``: a normal to use when
    the cores touch (crossing segments: the normal of the plane they span)."""
    v = y - x
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    fallback = np.tile([0.0, 0.0, 1.0], (len(dist), 1))
    if plane is not None:
        npl = np.linalg.norm(plane, axis=-1, keepdims=True)
        fallback = np.where(npl > 1e-12, plane / np.where(npl > 0, npl, 1.0), fallback)
    nrm = np.where(nv > 1e-15, v / np.where(nv > 0, nv, 1.0), fallback)
    return dist - ra - rb, x + ra[:, None] * nrm, y - rb[:, None] * nrm, nrm


def _box_point(sb, Rb, cb, x, radius):  # type: ignore[no-untyped-def]
    """Box (B) against a sphere at ``x``; returns ``(d, p_box, p_sphere, n box->sphere)``."""
    local = np.einsum("nji,nj->ni", Rb, x - cb)
    d, surf = point_box(local, sb)
    ps = cb + np.einsum("nij,nj->ni", Rb, surf)
    v = x - ps
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    nrm = v / np.where(nv > 0, nv, 1.0) * np.where(d >= 0, 1.0, -1.0)[:, None]
    return d - radius, ps, ps + (d - radius)[:, None] * nrm, nrm


def _box_frame(R: np.ndarray, c: np.ndarray, h: np.ndarray):  # type: ignore[no-untyped-def]
    signs = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
    verts = c[:, None, :] + np.einsum("nij,nvj->nvi", R, signs[None, :, :] * h[:, None, :])
    # the 12 edges as vertex index pairs differing in one sign
    edges = [(a, b) for a in range(8) for b in range(a + 1, 8) if np.sum(signs[a] != signs[b]) == 1]
    return verts, edges


def _sat(axes: np.ndarray, r: np.ndarray, parts: list[tuple[np.ndarray, np.ndarray]]):  # type: ignore[no-untyped-def]
    """Overlap of the projections on each axis ``(N, K, 3)`` (unnormalised allowed);
    ``parts`` are (frame axes (N,3,3) scaled by half extents) support contributions."""
    norm = np.linalg.norm(axes, axis=-1)
    ok = norm > 1e-9
    u = axes / np.where(ok, norm, 1.0)[..., None]
    h = np.zeros(u.shape[:2])
    for M, _ in parts:  # M (N, 3, m): columns are half-extent vectors
        h += np.abs(np.einsum("nki,nim->nkm", u, M)).sum(-1)
    proj = np.einsum("nki,ni->nk", u, r)
    overlap = np.where(ok, h - np.abs(proj), np.inf)
    sign = np.where(proj >= 0, 1.0, -1.0)
    return overlap, u * sign[..., None]


def _box_box(sa, Ra, ca, sb, Rb, cb):  # type: ignore[no-untyped-def]
    N = len(sa)
    r = cb - ca
    ea, eb = Ra, Rb  # columns: axes
    axes = [ea[:, :, i] for i in range(3)] + [eb[:, :, i] for i in range(3)]
    axes += [np.cross(ea[:, :, i], eb[:, :, j]) for i in range(3) for j in range(3)]
    A = np.stack(axes, axis=1)
    overlap, u = _sat(A, r, [(Ra * sa[:, None, :], None), (Rb * sb[:, None, :], None)])
    k = np.argmin(overlap, axis=1)
    depth = overlap[np.arange(N), k]
    nrm_ov = u[np.arange(N), k]
    # separated: closest features
    va, edges = _box_frame(Ra, ca, sa)
    vb, _ = _box_frame(Rb, cb, sb)
    best = np.full(N, np.inf)
    pa = np.zeros((N, 3))
    pb = np.zeros((N, 3))
    for v in range(8):
        d, ps, _, _ = _box_point(sb, Rb, cb, va[:, v], np.zeros(N))
        upd = d < best
        best, pa, pb = (
            np.where(upd, d, best),
            np.where(upd[:, None], va[:, v], pa),
            np.where(upd[:, None], ps, pb),
        )
        d, ps, _, _ = _box_point(sa, Ra, ca, vb[:, v], np.zeros(N))
        upd = d < best
        best, pa, pb = (
            np.where(upd, d, best),
            np.where(upd[:, None], ps, pa),
            np.where(upd[:, None], vb[:, v], pb),
        )
    ia = np.array(edges)
    P1, Q1 = va[:, ia[:, 0]][:, :, None], va[:, ia[:, 1]][:, :, None]
    P2, Q2 = vb[:, ia[:, 0]][:, None], vb[:, ia[:, 1]][:, None]
    d, x, y = segment_segment(P1, Q1, P2, Q2)
    flat = d.reshape(N, -1)
    j = np.argmin(flat, axis=1)
    de = flat[np.arange(N), j]
    upd = de < best
    best = np.where(upd, de, best)
    pa = np.where(upd[:, None], x.reshape(N, -1, 3)[np.arange(N), j], pa)
    pb = np.where(upd[:, None], y.reshape(N, -1, 3)[np.arange(N), j], pb)
    separated = depth < 0
    v = pb - pa
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    nrm_sep = v / np.where(nv > 0, nv, 1.0)
    dist = np.where(separated, best, -depth)
    nrm = np.where(separated[:, None], nrm_sep, nrm_ov)
    sup = sp.support_point(sp.BOX, sa, Ra, ca, nrm_ov)
    pa = np.where(separated[:, None], pa, sup)
    pb = np.where(separated[:, None], pb, sup + dist[:, None] * nrm)
    return dist, pa, pb, nrm


def _box_segment(sb, Rb, cb, sa, Ra, ca):  # type: ignore[no-untyped-def]
    """Box (first) against a capsule; returns ``(d, p_box, p_capsule, n box->capsule)``."""
    N = len(sb)
    p, q = _segment(sa, Ra, ca)
    rho = sa[:, 0]
    r = ca - cb
    axis = Ra[:, :, 2]
    axes = [Rb[:, :, i] for i in range(3)] + [np.cross(axis, Rb[:, :, i]) for i in range(3)]
    A = np.stack(axes, axis=1)
    seg = (axis * sa[:, 2:3])[:, :, None]
    overlap, u = _sat(A, r, [(Rb * sb[:, None, :], None), (seg, None)])
    k = np.argmin(overlap, axis=1)
    depth = overlap[np.arange(N), k]
    nrm_ov = u[np.arange(N), k]
    best = np.full(N, np.inf)
    pbx = np.zeros((N, 3))
    pseg = np.zeros((N, 3))
    for x in (p, q):
        d, ps, _, _ = _box_point(sb, Rb, cb, x, np.zeros(N))
        upd = d < best
        best = np.where(upd, d, best)
        pbx = np.where(upd[:, None], ps, pbx)
        pseg = np.where(upd[:, None], x, pseg)
    vb, edges = _box_frame(Rb, cb, sb)
    ia = np.array(edges)
    d, x, y = segment_segment(vb[:, ia[:, 0]], vb[:, ia[:, 1]], p[:, None], q[:, None])
    j = np.argmin(d, axis=1)
    de = d[np.arange(N), j]
    upd = de < best
    best = np.where(upd, de, best)
    pbx = np.where(upd[:, None], x[np.arange(N), j], pbx)
    pseg = np.where(upd[:, None], y[np.arange(N), j], pseg)
    separated = depth < 0
    v = pseg - pbx
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    nrm = np.where(separated[:, None], v / np.where(nv > 0, nv, 1.0), nrm_ov)
    core = np.where(separated, best, -depth)
    dist = core - rho
    sup = sp.support_point(sp.BOX, sb, Rb, cb, nrm)
    pbx = np.where(separated[:, None], pbx, sup)
    return dist, pbx, pbx + dist[:, None] * nrm, nrm
