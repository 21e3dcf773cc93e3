"""Mass properties of objects: exact for primitives, from the closed surface for meshes,
and the test that decides whether a file's own mass and inertia are believable.

Every function returns a :class:`robotsim.model.robot.Inertial` (mass kg, centre of
mass m, inertia about the centre of mass kg m^2, in the object's axes) at a uniform
``density`` (kg/m^3). Primitives use the textbook formulas (box, sphere, cylinder and
ellipsoid from any mechanics handbook; the capsule's hemispherical caps add
``m_s (2r^2/5 + l^2/4 + 3lr/8)`` across the axis). Meshes use trimesh's integration over
the closed surface (Mirtich's polyhedral mass properties); a surface that does not close
takes the union of its convex pieces instead.

**Plausibility** (:func:`judge_inertial`). A file's inertial is used only if

- the mass is finite and > 0 and its density over the object's volume lies in
  ``DENSITY_RANGE`` (1 .. 25,000 kg/m^3: a balloon to osmium),
- the centre of mass lies within the object's bounds (10 % margin),
- the inertia is physically possible (:meth:`Inertial.problem`: symmetric, positive,
  triangle inequality), no principal moment exceeds ``m R^2`` (``R``: the largest
  distance from the centre of mass to the object's surface, the bound for any mass
  distribution inside it), and the trace is at least ``MIN_INERTIA_RATIO`` of the
  uniform solid's at that mass (a placeholder of 1e-6 on a 1 kg brick is not a brick).

A file whose inertial is exactly SDFormat's default (mass 1 kg, inertia diag(1, 1, 1): what
a tool writes when nobody measured anything; sdformat.org, "Specifying inertial
properties") holds no measurement at all: mass and inertia both come from the geometry
(:func:`is_default_inertial`).

Otherwise the geometry's values replace the implausible part (the file's mass is kept
when only the inertia is wrong) and one warning line says which and why: a placeholder
``ixx=1`` on a 0.1 kg object never reaches physics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Sphere
from robotsim.model.robot import Inertial

__all__ = [
    "DENSITY_RANGE",
    "MIN_INERTIA_RATIO",
    "InertialVerdict",
    "combine",
    "is_default_inertial",
    "judge_inertial",
    "mesh_inertial",
    "primitive_inertial",
    "scaled_inertial",
]

DENSITY_RANGE = (1.0, 25000.0)
"""kg/m^3: a file's mass over the object's volume must fall in here to be believed."""
MIN_INERTIA_RATIO = 0.05
"""A file's inertia trace below this share of the uniform solid's (same mass) is a
placeholder, not a real mass distribution."""


def _diag(m: float, d: Sequence[float], com: Sequence[float] = (0.0, 0.0, 0.0)) -> Inertial:
    return Inertial(float(m), np.asarray(com, float), np.diag(np.asarray(d, float)))


def primitive_inertial(g: Geometry, density: float) -> Inertial:
    """A uniform primitive centred on its frame (cylinders and capsules along z)."""
    rho = float(density)
    if isinstance(g, Box):
        a, b, c = g.size
        m = rho * a * b * c
        return _diag(
            m, (m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12)
        )
    if isinstance(g, Sphere):
        r = g.radius
        m = rho * 4.0 / 3.0 * np.pi * r**3
        return _diag(m, (0.4 * m * r * r,) * 3)
    if isinstance(g, Ellipsoid):
        a, b, c = g.radii
        m = rho * 4.0 / 3.0 * np.pi * a * b * c
        return _diag(m, (m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5))
    if isinstance(g, Cylinder):
        r, h = g.radius, g.length
        m = rho * np.pi * r * r * h
        side = m * (3 * r * r + h * h) / 12
        return _diag(m, (side, side, 0.5 * m * r * r))
    if isinstance(g, Capsule):
        r, l = g.radius, g.length
        mc = rho * np.pi * r * r * l
        ms = rho * 4.0 / 3.0 * np.pi * r**3
        side = mc * (3 * r * r + l * l) / 12 + ms * (0.4 * r * r + l * l / 4 + 3 * l * r / 8)
        return _diag(mc + ms, (side, side, 0.5 * mc * r * r + 0.4 * ms * r * r))
    raise InputError(f"no closed-form mass properties for a {type(g).__name__}")


def mesh_inertial(vertices: np.ndarray, faces: np.ndarray, density: float) -> Inertial | None:
    """A closed triangle surface ``vertices (n, 3)`` m, ``faces (m, 3)`` as a uniform
    solid; None when the surface does not close (or encloses no volume)."""
    import trimesh

    mesh = trimesh.Trimesh(vertices=vertices, faces=faces, process=True)
    if not mesh.is_watertight:
        return None
    if not mesh.is_winding_consistent:
        trimesh.repair.fix_winding(mesh)
    if mesh.volume < 0:
        mesh.invert()
    if not mesh.volume > 0:
        return None
    mesh.density = float(density)
    I = np.asarray(mesh.moment_inertia, float)
    return Inertial(float(mesh.mass), np.asarray(mesh.center_mass, float), (I + I.T) / 2)


def capped_inertial(vertices: np.ndarray, faces: np.ndarray, density: float) -> Inertial | None:
    """:func:`mesh_inertial` of a surface whose holes are closed first, part by part
    (parts: faces joined by shared vertices): each loop of boundary edges gets a fan of
    triangles to its centroid (the usual hole fill; exact for a planar hole, as where a
    modelled handle's open end meets a mug's wall). None when a part is not manifold
    or still does not close."""
    import trimesh
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    whole = trimesh.Trimesh(vertices=vertices, faces=faces, process=False)
    parts = whole.split(only_watertight=False) if len(whole.faces) else []
    if len(parts) > 1:  # each part on its own (closed parts that touch share no edge)
        solids = [capped_inertial(np.asarray(p.vertices), np.asarray(p.faces), density)
                  for p in parts]  # fmt: skip
        if any(x is None for x in solids):
            return None
        return combine([(x, np.eye(4)) for x in solids if x is not None])
    mesh = trimesh.Trimesh(vertices=vertices, faces=faces, process=True)
    if mesh.is_watertight:
        return mesh_inertial(mesh.vertices, mesh.faces, density)
    F = np.asarray(mesh.faces)
    e = F[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    _, inv, cnt = np.unique(np.sort(e, axis=1), axis=0, return_inverse=True, return_counts=True)
    if (cnt > 2).any():
        return None
    bnd = e[cnt[inv.ravel()] == 1]
    if not len(bnd):
        return None
    V = np.asarray(mesh.vertices)
    n = len(V)
    graph = coo_matrix((np.ones(len(bnd)), (bnd[:, 0], bnd[:, 1])), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    loops = np.unique(label[bnd[:, 0]])
    centre = {int(c): n + i for i, c in enumerate(loops)}
    cen = np.array([V[np.unique(bnd[label[bnd[:, 0]] == c])].mean(axis=0) for c in loops])
    caps = np.array([[b, a, centre[int(label[a])]] for a, b in bnd])
    return mesh_inertial(np.vstack([V, cen]), np.vstack([F, caps]), density)


def combine(parts: Sequence[tuple[Inertial, np.ndarray]]) -> Inertial:
    """One body's mass properties from parts ``(Inertial in the part's frame,
    T_body_part (4, 4))`` (parallel-axis theorem)."""
    if not parts:
        raise InputError("no parts to combine")
    m = sum(p.mass for p, _ in parts)
    if not m > 0:
        raise InputError("the parts have no mass")
    coms = [T[:3, :3] @ p.com + T[:3, 3] for p, T in parts]
    c = sum(p.mass * x for (p, _), x in zip(parts, coms, strict=True)) / m
    I = np.zeros((3, 3))
    for (p, T), x in zip(parts, coms, strict=True):
        R = T[:3, :3]
        d = x - c
        I += R @ p.inertia @ R.T + p.mass * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(float(m), c, (I + I.T) / 2)


def is_default_inertial(i: Inertial) -> bool:
    """Whether a file's inertial (as written, before any scale) is SDFormat's default:
    mass 1 kg and inertia diag(1, 1, 1) kg m^2, a placeholder for mass and inertia."""
    return bool(float(i.mass) == 1.0 and np.array_equal(np.asarray(i.inertia, float), np.eye(3)))


def scaled_inertial(i: Inertial, mass: float) -> Inertial:
    """The same mass distribution with a different total ``mass`` (kg)."""
    return Inertial(float(mass), i.com, np.asarray(i.inertia) * (float(mass) / i.mass))


@dataclass(frozen=True)
class InertialVerdict:
    """What :func:`judge_inertial` decided: the ``inertial`` to use, where its mass and
    inertia come from (``"file"`` or ``"geometry"``) and the one-line ``warning`` (None
    when the file's values were used as they are)."""

    inertial: Inertial
    mass_source: str
    inertia_source: str
    warning: str | None


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def judge_inertial(
    file: Inertial | None,
    geometry: Inertial,
    surface_points: np.ndarray,
    volume: float,
    density: float,
    where: str,
    file_problem: str | None = None,
) -> InertialVerdict:
    """Use ``file`` (a file's inertial in the object frame) if plausible, else the
    ``geometry``'s (uniform solid at ``density``; see the module docstring).

    Args:
        geometry: the uniform solid's mass properties at ``density`` kg/m^3.
        surface_points: ``(n, 3)`` points of the object's surface (hull vertices), m.
        volume: the solid's volume (m^3).
        where: the file, for the warning line.
        file_problem: why the file's inertial could not even be read (an impossible
            tensor the model loader refused), if so.
    """
    pts = np.asarray(surface_points, float).reshape(-1, 3)
    at_density = f"from the geometry at {density:g} kg/m^3"
    if file is None:
        why = file_problem or "no mass in the file"
        return InertialVerdict(
            geometry, "geometry", "geometry", f"{where}: {why}: mass and inertia {at_density}"
        )
    m = float(file.mass)
    dens = m / volume if volume > 0 else np.inf
    if not (np.isfinite(m) and m > 0 and DENSITY_RANGE[0] <= dens <= DENSITY_RANGE[1]):
        lo, hi = DENSITY_RANGE
        why = (f"mass {_fmt(m)} kg is implausible for {_fmt(volume * 1e6)} cm^3 "
               f"({_fmt(dens)} kg/m^3; believable: {lo:g} .. {hi:g})")  # fmt: skip
        return InertialVerdict(
            geometry, "geometry", "geometry", f"{where}: {why}: mass and inertia {at_density}"
        )
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.1 * (hi - lo) + 1e-9
    com_ok = bool(np.all(file.com >= lo - pad) and np.all(file.com <= hi + pad))
    problem = file_problem or file.problem()
    reason = None
    if problem is not None:
        reason = problem
    elif not com_ok:
        reason = f"centre of mass {np.round(file.com, 4).tolist()} m lies outside the object"
    else:
        R2 = float(np.max(np.sum((pts - file.com) ** 2, axis=1)))
        ev = np.linalg.eigvalsh(np.asarray(file.inertia))
        bound = m * R2
        solid = scaled_inertial(geometry, m)
        floor = MIN_INERTIA_RATIO * float(np.trace(solid.inertia))
        if ev[-1] > bound * 1.05:
            reason = (f"inertia {_fmt(ev[-1])} kg m^2 is impossible for {_fmt(m)} kg "
                      f"within {_fmt(np.sqrt(R2))} m of its centre of mass "
                      f"(at most {_fmt(bound)})")  # fmt: skip
        elif float(np.sum(ev)) < floor:
            full = float(np.trace(solid.inertia))
            reason = (f"inertia trace {_fmt(float(np.sum(ev)))} kg m^2 is under "
                      f"{MIN_INERTIA_RATIO:g} x the solid's {_fmt(full)}")  # fmt: skip
    if reason is None:
        return InertialVerdict(file, "file", "file", None)
    kept = scaled_inertial(geometry, m)
    warning = f"{where}: {reason}: inertia from the geometry at the file's mass {_fmt(m)} kg"
    return InertialVerdict(kept, "file", "geometry", warning)
