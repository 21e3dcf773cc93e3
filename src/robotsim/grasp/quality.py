"""Grasp quality: force closure and the grasp-wrench-space margin (Ferrari and Canny,
"Planning optimal grasps", ICRA 1992: the radius of the largest ball around the origin
inside the convex hull of the contact wrenches, each contact pressing with unit normal
force; the L1 grasp wrench space).

Each contact is a soft finger (a pad or fingertip of finite size): its friction cone
(``mu``, linearised with ``edges`` edges) and a torsional friction ``+-torsion`` about
its normal (N m per N of normal force). Torques are divided by ``rho``, a length of the
object (its largest distance from the centre of mass), so forces and torques weigh
alike. A margin > 0 means force closure: the contacts resist any wrench, the larger the
margin the larger the wrench they resist per unit of grip force. Two point contacts
without torsional friction cannot resist a torque about the line through them, which
is why pads matter for parallel grippers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["approx_margins", "contact_wrenches", "gws_margin", "wrench_reach"]


def _tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.where(np.abs(n[..., :1]) < 0.9, np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    t1 = np.cross(n, a)
    t1 /= np.linalg.norm(t1, axis=-1, keepdims=True)
    return t1, np.cross(n, t1)


def contact_wrenches(
    points: np.ndarray,
    normals: np.ndarray,
    com: np.ndarray,
    mu: float,
    rho: float,
    torsion: float = 0.0,
    edges: int = 8,
) -> np.ndarray:
    """The primitive wrenches ``(..., k * edges [+ 2 k], 6)`` ``[f, tau / rho]`` of
    contacts at ``points`` ``(..., k, 3)`` with inward unit ``normals`` ``(..., k, 3)``
    (into the object), torques about ``com`` ``(3,)``: friction-cone edges with unit
    normal force, and (``torsion > 0``) the normal force with ``+-torsion`` N m of
    twist per N."""
    p = np.asarray(points, float)
    n = np.asarray(normals, float)
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    t1, t2 = _tangents(n)
    th = 2 * np.pi * np.arange(edges) / edges
    c, s = np.cos(th)[:, None], np.sin(th)[:, None]
    f = n[..., None, :] + mu * (c * t1[..., None, :] + s * t2[..., None, :])  # (..., k, e, 3)
    r = p - np.asarray(com, float)
    tau = np.cross(r[..., None, :], f)
    lead = p.shape[:-2]
    w = [np.concatenate([f, tau / rho], axis=-1).reshape(*lead, -1, 6)]
    if torsion > 0:
        tn = np.cross(r, n)
        for sgn in (1.0, -1.0):
            w.append(np.concatenate([n, (tn + sgn * torsion * n) / rho], axis=-1))
    return np.concatenate(w, axis=-2)


def _hull(wrenches: np.ndarray) -> np.ndarray | None:
    """Facet equations ``(f, 7)`` of the wrenches' hull (unit normals, ``n . x + d <= 0``
    inside), or None when the wrenches do not span all six dimensions."""
    from scipy.spatial import ConvexHull, QhullError

    W = np.asarray(wrenches, float)
    if len(W) < 7 or np.linalg.matrix_rank(W, tol=1e-9) < 6:
        return None
    try:
        return np.asarray(ConvexHull(W).equations)
    except (QhullError, ValueError):
        return None


def gws_margin(wrenches: np.ndarray) -> float:
    """The Ferrari-Canny margin of a set of wrenches ``(m, 6)``: the distance from the
    origin to the boundary of their convex hull when the origin lies strictly inside
    (force closure), else 0."""
    eq = _hull(wrenches)
    if eq is None:
        return 0.0
    return float(max((-eq[:, 6]).min(), 0.0))


def wrench_reach(wrenches: np.ndarray, direction: np.ndarray) -> float:
    """How far the hull of ``wrenches`` ``(m, 6)`` reaches from the origin along
    ``direction`` ``(6,)`` (the largest ``t`` with ``t * direction`` inside), 0 when the
    origin is not inside."""
    eq = _hull(wrenches)
    if eq is None or (-eq[:, 6]).min() <= 0:
        return 0.0
    u = np.asarray(direction, float) / np.linalg.norm(direction)
    a = eq[:, :6] @ u
    pos = a > 1e-12
    return float(np.min(-eq[pos, 6] / a[pos])) if pos.any() else np.inf


_DIRS: dict[int, np.ndarray] = {}


def _directions(n: int) -> np.ndarray:
    u = _DIRS.get(n)
    if u is None:
        rng = np.random.default_rng(12345)
        u = rng.normal(size=(n, 6))
        u = np.concatenate([u / np.linalg.norm(u, axis=1, keepdims=True), np.eye(6), -np.eye(6)])
        _DIRS[n] = u
    return u


def approx_margins(wrenches: np.ndarray, n_dirs: int = 256) -> np.ndarray:
    """A fast estimate of :func:`gws_margin` for a batch ``(B, m, 6)``: the smallest
    support value ``max_i w_i . u`` over a fixed set of ``n_dirs`` directions (plus the
    axes). It is an upper bound of the margin (equal when the worst direction is among
    them): the planner ranks with it and certifies the few it keeps with
    :func:`gws_margin`."""
    U = _directions(n_dirs)
    support = np.max(np.asarray(wrenches) @ U.T, axis=1)  # (B, D)
    return np.maximum(support.min(axis=1), 0.0)
