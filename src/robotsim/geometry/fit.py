"""Fitting bounding volumes to point sets and to a link's shapes.

* :func:`min_volume_ellipsoid`: the minimum-volume enclosing ellipsoid of points (to a
  relative tolerance ``tol``; Todd-Yildirim's Wolfe-Atwood iteration on the hull's
  vertices, :mod:`robotsim.geometry._mvee`), then scaled about its centre so that
  every point is inside (the algorithm's ellipsoid can miss points by ~``tol``).
* :func:`enclosing_sphere`, :func:`enclosing_capsule`, :func:`enclosing_box`: tight
  but not necessarily minimal (sphere by Badoiu-Clarkson iterations, capsule along the
  principal axis with the segment shrunk to the points, box along the principal axes).
* :func:`shape_points`: points whose convex hull encloses a primitive or mesh shape
  placed on a link (box corners; sphere, cylinder, capsule and ellipsoid surfaces
  sampled and pushed outwards so the polytope of samples contains the true surface;
  mesh vertices).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from robotsim.errors import InputError, ModelFileError
from robotsim.file_scope import check_readable
from robotsim.geometry._mvee import dual_volume_bound, mvee_weights
from robotsim.geometry.sphere_points import fibonacci_sphere
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Shape, Sphere

__all__ = [
    "enclosing_box",
    "enclosing_capsule",
    "enclosing_sphere",
    "min_volume_ellipsoid",
    "shape_points",
]


def _points(points: object) -> np.ndarray:
    P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(P) == 0 or not np.all(np.isfinite(P)):
        raise InputError("bounding volume fit needs at least one finite point")
    return P


def min_volume_ellipsoid(
    points: object, tol: float = 1e-6, min_radius: float = 1e-6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimum-volume enclosing ellipsoid ``(center (3,), R (3,3), radii (3,))`` (m):
    the points ``p`` with ``|R^T (p - center) / radii| <= 1``; every input point is
    inside.

    ``tol`` is the relative optimality tolerance: the returned volume is within a
    factor ``(1 + tol (d + 1) / d)^(d / 2)`` (about ``1 + 2 tol`` in 3-D) of the
    minimum, ``d`` the dimension the points span. The points are reduced to their
    convex hull's vertices (the same minimum ellipsoid) and the dual weights found by
    the Wolfe-Atwood iteration with away steps (:mod:`robotsim.geometry._mvee`); the
    ellipsoid is then scaled about its centre to hold every point exactly. The result
    does not depend on the points' order. Flat or degenerate point sets get radii of
    at least ``min_radius`` along the missing directions.
    """
    P = np.unique(_points(points), axis=0)  # sorted: the fit ignores the input order
    if len(P) == 1:
        return P[0].copy(), np.eye(3), np.full(3, min_radius)
    # work in the span's coordinates so degenerate (planar/linear) sets stay solvable
    mean = P.mean(axis=0)
    _, S, Vt = np.linalg.svd(P - mean, full_matrices=False)
    rank = int(np.sum(S > 1e-12 * max(S[0], 1e-300)))
    basis = Vt[:rank]
    X = (P - mean) @ basis.T  # (n, rank)
    # the weights are affine invariant: solve on whitened coordinates (better rounding)
    Y = X / S[:rank]
    hull = _hull_vertices(Y)
    u = mvee_weights(Y[hull], tol).u
    c, dM = dual_volume_bound(X[hull], u)  # (x-c)^T dM^-1 (x-c) <= 1, nearly all points
    evals, evecs = np.linalg.eigh(dM)
    evals, evecs = evals[::-1], evecs[:, ::-1]  # longest axis first
    radii_sub = np.sqrt(np.maximum(evals, 0.0))
    # scale to contain every point exactly
    local = (X - c) @ evecs / np.maximum(radii_sub, 1e-300)
    radii_sub = radii_sub * max(1.0, float(np.sqrt((local**2).sum(axis=1)).max()))
    axes = evecs.T @ basis  # rows: principal axes in 3-D
    center = mean + c @ basis
    full_axes = list(axes)
    radii = list(radii_sub)
    for v in Vt[rank:] if rank < 3 else []:
        full_axes.append(v)
        radii.append(min_radius)
    while len(full_axes) < 3:  # rank deficiency larger than Vt provides
        full_axes.append(_perpendicular(np.array(full_axes)))
        radii.append(min_radius)
    R = np.array(full_axes).T
    if np.linalg.det(R) < 0:
        R[:, 2] *= -1
    return center, R, np.maximum(np.array(radii), min_radius)


def _hull_vertices(Y: np.ndarray) -> np.ndarray:
    """Indices (ascending) of the vertices of the convex hull of ``Y (n, k)``, which
    spans ``R^k``; all indices when qhull cannot build the hull (nearly flat sets)."""
    if Y.shape[1] == 1:
        return np.unique([int(np.argmin(Y[:, 0])), int(np.argmax(Y[:, 0]))])
    from scipy.spatial import ConvexHull, QhullError

    try:
        return np.sort(ConvexHull(Y).vertices)
    except QhullError:
        return np.arange(len(Y))


def _perpendicular(rows: np.ndarray) -> np.ndarray:
    for e in np.eye(3):
        v = e - rows.T @ (rows @ e)
        if np.linalg.norm(v) > 1e-6:
            return v / np.linalg.norm(v)
    raise AssertionError("unreachable")


def enclosing_sphere(points: object, iterations: int = 2000) -> tuple[np.ndarray, float]:
    """An enclosing sphere ``(center, radius)`` within ~1/sqrt(iterations) of the
    minimal radius (Badoiu-Clarkson core-set iterations), always containing all points."""
    P = _points(points)
    c = P.mean(axis=0)
    for k in range(1, iterations + 1):
        far = P[np.argmax(((P - c) ** 2).sum(axis=1))]
        c = c + (far - c) / (k + 1)
    return c, float(np.sqrt(((P - c) ** 2).sum(axis=1)).max())


def _principal(P: np.ndarray) -> np.ndarray:
    _, _, Vt = np.linalg.svd(P - P.mean(axis=0), full_matrices=False)
    R = np.eye(3)
    R[:, : Vt.shape[0]] = Vt.T
    if Vt.shape[0] < 3:
        R[:, 2] = np.cross(R[:, 0], R[:, 1])
    if np.linalg.det(R) < 0:
        R[:, 2] *= -1
    return R


def enclosing_capsule(points: object) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(center, R, radius, length)``: a capsule along ``R[:, 2]`` (the principal axis)
    containing all points; ``length`` is the cylindrical part (m)."""
    P = _points(points)
    R = _principal(P)
    R = R[:, [1, 2, 0]] if np.linalg.det(R[:, [1, 2, 0]]) > 0 else R[:, [2, 1, 0]]
    axis = R[:, 2]
    m = P.mean(axis=0)
    z = (P - m) @ axis
    perp = (P - m) - np.outer(z, axis)
    # centre the axis line on the points' perpendicular spread
    off, rho = enclosing_circle_2d(perp @ R[:, :2])
    m = m + R[:, :2] @ off
    perp = (P - m) - np.outer(z, axis)
    d = np.linalg.norm(perp, axis=1)
    rho = max(float(d.max()), 1e-9)
    w = np.sqrt(np.maximum(rho**2 - d**2, 0.0))
    lo = float(np.min(z + w))
    hi = float(np.max(z - w))
    if lo > hi:
        lo = hi = 0.5 * (lo + hi)
    center = m + axis * 0.5 * (lo + hi)
    return center, R, rho, hi - lo


def enclosing_circle_2d(xy: np.ndarray, iterations: int = 1000) -> tuple[np.ndarray, float]:
    c = xy.mean(axis=0)
    for k in range(1, iterations + 1):
        far = xy[np.argmax(((xy - c) ** 2).sum(axis=1))]
        c = c + (far - c) / (k + 1)
    return c, float(np.sqrt(((xy - c) ** 2).sum(axis=1)).max())


def enclosing_box(points: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(center, R, size)``: a box along the principal axes; ``size`` full lengths."""
    P = _points(points)
    R = _principal(P)
    local = P @ R
    lo, hi = local.min(axis=0), local.max(axis=0)
    return R @ ((lo + hi) / 2), R, np.maximum(hi - lo, 1e-9)


def _inscribed_radius(points: np.ndarray) -> float:
    """Radius of the largest origin-centred ball inside the hull of unit-sphere points."""
    from scipy.spatial import ConvexHull

    return float(-ConvexHull(points).equations[:, 3].max())


_SPHERE_PTS = fibonacci_sphere(400)
# The samples' hull holds the unit ball shrunk to its inscribed radius (measured with
# scipy's ConvexHull: 0.990708...); the samples are pushed out by its inverse.
_INFLATE = 1.0093793456022593
_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * math.pi, 48, endpoint=False)),
                    np.sin(np.linspace(0, 2 * math.pi, 48, endpoint=False))], axis=1)  # fmt: skip
_CIRCLE_INFLATE = 1.0 / math.cos(math.pi / 48)


def shape_points(shapes: Iterable[Shape], base_dir: Path | None = None) -> np.ndarray:
    """Points ``(n, 3)`` in the link frame whose hull encloses every shape."""
    out = []
    for sh in shapes:
        g = sh.geometry
        if isinstance(g, Box):
            s = np.array(g.size) / 2
            local = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)]) * s
        elif isinstance(g, Sphere):
            local = _SPHERE_PTS * g.radius * _INFLATE
        elif isinstance(g, Ellipsoid):
            local = _SPHERE_PTS * np.array(g.radii) * _INFLATE
        elif isinstance(g, Capsule):
            cap = _SPHERE_PTS * g.radius * _INFLATE
            half = np.array([0.0, 0.0, g.length / 2])
            local = np.vstack([cap + half, cap - half])
        elif isinstance(g, Cylinder):
            ring = np.hstack([_CIRCLE * g.radius * _CIRCLE_INFLATE, np.zeros((48, 1))])
            half = np.array([0.0, 0.0, g.length / 2])
            local = np.vstack([ring + half, ring - half])
        elif isinstance(g, Mesh):
            local = _mesh_vertices(g, base_dir)
        else:
            raise InputError(f"cannot fit a bounding volume to {type(g).__name__}")
        T = sh.T_link_shape
        out.append(local @ T[:3, :3].T + T[:3, 3])
    if not out:
        raise InputError("the link has no geometry to fit a bounding volume to")
    return np.vstack(out)


def _mesh_vertices(mesh: Mesh, base_dir: Path | None) -> np.ndarray:
    import trimesh

    path = Path(mesh.path)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    check_readable(path)
    try:
        loaded = trimesh.load(path, force="mesh")
    except Exception as exc:  # trimesh raises many types for unreadable files
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    V = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=np.float64)
    if V.size == 0:
        raise ModelFileError(path, "mesh has no vertices")
    return V * np.asarray(mesh.scale, dtype=np.float64)
