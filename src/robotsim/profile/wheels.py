"""Wheels from structure and geometry: driven wheels, their passive rollers, the drive.

At the zero pose (root at the origin, z up):

- a *spinning* joint is a continuous one, or a revolute one without limits;
- *rollers* are spinning joints hanging on a wheel's body (the wheel link and the links
  fixed to it), three or more of them, each free of further movable joints, their
  anchors spread around the wheel's axle (an omni or mecanum wheel's passive rollers);
  they are never driven wheels. Their wheel is the joint whose child carries them: its
  rolling radius is how far the geometry of the wheel and its rollers reaches from the
  axle, so a driven wheel without any shape of its own (onshape-to-robot's hubs) is
  found from its rollers;
- a wheel without rollers is a spinning joint with nothing movable below whose child
  geometry is a disc about the joint axis (a cylinder along it, or a mesh/box flat along
  it and round across);
- either way its axle is horizontal and its rim reaches the ground plane; two parallel
  wheels make a differential drive, three or four with non-parallel axles an
  omnidirectional one; a differential base's *casters* are the lowest links (not
  wheels) below the axles.

:func:`implausible_inertias` checks the wheels' and rollers' inertias against their
mass and size: no body of mass ``m`` whose geometry lies within ``d`` of its centre of
mass has a principal moment above ``m d^2``. A file giving a 10 mg wheel 1 kg m^2 (a
Robotino) gets, in physics, the inertia of its geometry's convex hull at its own mass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from robotsim.model.geometry import Cylinder
from robotsim.model.robot import Inertial, JointType, RobotModel
from robotsim.profile.shapes import link_points
from robotsim.profile.types import Drive, Wheel

__all__ = [
    "ROLLERS_MIN",
    "FoundWheel",
    "casters_below",
    "drive_matrix",
    "drive_of_wheels",
    "find_wheels",
    "implausible_inertias",
    "spinning",
    "wheel_inertia_fixes",
]

ROLLERS_MIN = 3  # passive rollers on a wheel, at least
PLAUSIBLE_FACTOR = 2.0  # a moment up to this times m d^2 passes (rounding, a loose com)


class TreeView(Protocol):
    """What the wheel search needs of the profile's tree (``infer._Tree``)."""

    m: RobotModel
    children: dict[str, list[Any]]
    parent_joint: dict[str, Any]
    T: dict[str, np.ndarray]

    def subtree(self, link: str) -> list[str]: ...

    def points(self, links: Iterable[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class FoundWheel:
    """A driven wheel in world axes at the zero pose: ``radius`` (m), unit ``axis``,
    ``centre`` (on the axle), and its passive ``rollers`` (joint names)."""

    joint: str
    radius: float
    axis: np.ndarray
    centre: np.ndarray
    rollers: tuple[str, ...] = ()


def spinning(j: Any) -> bool:
    """A joint that can turn a wheel or a roller: continuous, or revolute without limits."""
    return j.mimic is None and (
        j.type is JointType.CONTINUOUS
        or (j.type is JointType.REVOLUTE and not np.isfinite(j.limits.lower))
    )


def _axle(tree: TreeView, j: Any) -> tuple[np.ndarray, np.ndarray]:
    """The joint's axis (unit) and anchor in world axes at the zero pose."""
    T = tree.T[j.child]
    post = np.asarray(j.post)
    axis_w = T[:3, :3] @ (post[:3, :3].T @ np.asarray(j.axis))
    anchor = T[:3, :3] @ (-(post[:3, :3].T @ post[:3, 3])) + T[:3, 3]
    return axis_w / np.linalg.norm(axis_w), anchor


def _rigid(tree: TreeView, link: str) -> list[str]:
    """``link`` and the links fixed to it (recursively)."""
    out, stack = [], [link]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(c.child for c in tree.children.get(n, []) if not c.movable)
    return out


def _radial(p: np.ndarray, axis: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Distances ``(n,)`` of points ``(n, 3)`` from the line through ``centre``."""
    d = p - centre
    return np.linalg.norm(d - np.outer(d @ axis, axis), axis=1)


def rollers_of(tree: TreeView, j: Any) -> tuple[str, ...]:
    """The passive rollers on joint ``j``'s wheel (module doc), or ``()``."""
    hanging = [c for n in _rigid(tree, j.child) for c in tree.children.get(n, []) if c.movable]
    if len(hanging) < ROLLERS_MIN or not all(spinning(c) for c in hanging):
        return ()
    if any(c.movable for r in hanging for n in tree.subtree(r.child)
           for c in tree.children.get(n, [])):  # fmt: skip
        return ()
    axis, centre = _axle(tree, j)
    anchors = np.array([_axle(tree, c)[1] for c in hanging])
    d = anchors - centre
    radial = d - np.outer(d @ axis, axis)
    dist = np.linalg.norm(radial, axis=1)
    if dist.min() <= 1e-9:
        return ()
    spread = np.linalg.norm((radial / dist[:, None]).mean(axis=0))
    if spread > 0.5:  # not around the axle (all on one side)
        return ()
    return tuple(c.name for c in hanging)


def _rolling_radius(
    tree: TreeView, rollers: tuple[str, ...], axis: np.ndarray, centre: np.ndarray
) -> float | None:
    """How far the rollers reach from the axle, each measured along the radius through
    its own anchor (the point that touches the ground when it is at the bottom: a
    cylinder roller's end circles, off that radius, do not count)."""
    reach = []
    for name in rollers:
        j = tree.m.joint(name)
        p = tree.points(tree.subtree(j.child))
        if len(p) == 0:
            continue
        d = _axle(tree, j)[1] - centre
        u = d - (d @ axis) * axis
        u /= np.linalg.norm(u)
        reach.append(float(((p - centre) @ u).max()))
    return max(reach) if reach else None


def _wheel(tree: TreeView, j: Any, zmin: float, height: float) -> FoundWheel | None:
    """Joint ``j`` as a driven wheel touching the ground, or None."""
    if not spinning(j):
        return None
    axis_w, centre = _axle(tree, j)
    rollers = rollers_of(tree, j)
    radius = None
    if rollers:
        radius = _rolling_radius(tree, rollers, axis_w, centre)
        if radius is None:
            return None
    else:
        if any(c.movable for n in tree.subtree(j.child) for c in tree.children.get(n, [])):
            return None
        T = tree.T[j.child]
        axis_child = T[:3, :3].T @ axis_w
        lk = tree.m.link(j.child)
        for s in lk.collisions or lk.visuals:
            g = s.geometry
            if isinstance(g, Cylinder):
                zc = np.asarray(s.T_link_shape)[:3, 2]
                if abs(abs(zc @ axis_child) - 1) < 1e-3:
                    radius = g.radius
                    centre = (T @ np.append(np.asarray(s.T_link_shape)[:3, 3], 1.0))[:3]
                    break
        if radius is None:
            p = tree.points(tree.subtree(j.child))
            if len(p) < 4:
                return None
            c = p.mean(axis=0)
            along = (p - c) @ axis_w
            across = _radial(p, axis_w, c)
            r = float(across.max())
            thick = float(np.ptp(along))
            # a disc: thinner along the axle than across, and round across it
            if r <= 0 or thick > 1.5 * r or np.std(across[across > 0.8 * r]) > 0.1 * r:
                return None
            radius, centre = r, c
    low = centre[2] - radius * np.sqrt(max(0.0, 1 - axis_w[2] ** 2))
    if abs(axis_w[2]) > 0.2 or low > zmin + max(0.01 * height, 2e-3):
        return None  # axle not horizontal, or the wheel does not reach the ground
    return FoundWheel(j.name, float(radius), axis_w, np.asarray(centre, float), rollers)


def find_wheels(
    tree: TreeView, zmin: float, height: float, T_base: np.ndarray
) -> tuple[list[Wheel], set[str]]:
    """The driven wheels (profile :class:`Wheel` values in the base frame, with their
    rollers) and every link they turn (wheels and rollers)."""
    model = tree.m
    rollers: set[str] = set()
    found: list[FoundWheel] = []
    for j in model.joints:
        if not j.movable or j.mimic is not None or j.name in rollers:
            continue
        w = _wheel(tree, j, zmin, height)
        if w is not None:
            found.append(w)
            rollers.update(w.rollers)
    R_base = T_base[:3, :3]
    wheels, links = [], set()
    for w in found:
        if w.joint in rollers:
            continue
        contact_w = w.centre - [0, 0, w.radius]
        wheels.append(Wheel(w.joint, w.radius, tuple(float(x) for x in R_base.T @ w.axis),
                            tuple(float(x) for x in R_base.T @ (contact_w - T_base[:3, 3])),
                            w.rollers))  # fmt: skip
        links.update(tree.subtree(model.joint(w.joint).child))
    return wheels, links


def drive_matrix(wheels: list[Wheel]) -> np.ndarray:
    """``(n, 3)``: wheel speeds (rad/s) from ``[vx, vy, wz]``; see :class:`Drive`."""
    rows = []
    for w in wheels:
        a = np.asarray(w.axis)
        d = np.cross(a, [0.0, 0.0, 1.0])
        d = d / np.linalg.norm(d)
        p = np.asarray(w.position)
        rows.append([d[0], d[1], p[0] * d[1] - p[1] * d[0]])
    return np.array(rows) / np.array([[w.radius] for w in wheels])


def casters_below(tree: TreeView, wheel_links: set[str], axle_z: float) -> tuple[str, ...]:
    """The links a differential base rests on besides its wheels: those (not wheels)
    whose geometry comes within 1 mm of the lowest non-wheel point, if that point lies
    below the axles (world ``z`` at the zero pose)."""
    low = {}
    for n in tree.m.link_names:
        if n in wheel_links:
            continue
        p = tree.points([n])
        if len(p):
            low[n] = float(p[:, 2].min())
    if not low or min(low.values()) >= axle_z:
        return ()
    z = min(low.values())
    return tuple(n for n, v in low.items() if v <= z + 1e-3)


def drive_of_wheels(wheels: list[Wheel]) -> Drive | None:
    """Two parallel wheels: a differential drive; three or four with non-parallel axles
    (full rank): an omnidirectional one; else None."""
    if len(wheels) < 2:
        return None
    M = drive_matrix(wheels)
    axes = np.array([w.axis for w in wheels])
    parallel = np.all(np.abs(axes @ axes[0]) > 1 - 1e-6)
    names = tuple(w.joint for w in wheels)
    mat = tuple(tuple(float(x) for x in row) for row in M)
    if len(wheels) == 2 and parallel:
        track = float(abs((np.asarray(wheels[0].position) - wheels[1].position) @ axes[0]))
        if track > 0:
            return Drive("diff", names, mat, track)
    if len(wheels) in (3, 4) and not parallel and np.linalg.matrix_rank(M, tol=1e-9) == 3:
        return Drive("omni", names, mat)
    return None


def _hull_inertial(points: np.ndarray, mass: float) -> Inertial | None:
    """The inertia of the convex hull of ``points`` ``(n, 3)`` at ``mass`` (uniform
    density), or None for a flat or degenerate hull."""
    import trimesh

    try:
        hull = trimesh.convex.convex_hull(points)
    except Exception:  # qhull refuses flat or degenerate point sets
        return None
    if not hull.is_volume or hull.volume <= 0:
        return None
    scale = mass / float(hull.volume)
    I = np.asarray(hull.moment_inertia, dtype=float) * scale
    return Inertial(mass, np.asarray(hull.center_mass, dtype=float), (I + I.T) / 2.0)


def implausible_inertias(
    model: RobotModel, links: Iterable[str], points: dict[str, np.ndarray]
) -> dict[str, tuple[Inertial, str]]:
    """For each of ``links`` (wheels and rollers) whose inertial has a principal moment
    above ``PLAUSIBLE_FACTOR * m * d^2`` (``d``: how far its geometry ``points[link]``
    ``(n, 3)``, link frame, reaches from its centre of mass): the inertial of its
    geometry's convex hull at its mass, and a phrase with the numbers."""
    out = {}
    for name in links:
        ine = model.link(name).inertial
        p = points.get(name)
        if ine is None or ine.mass <= 0 or p is None or len(p) < 4:
            continue
        d = float(np.linalg.norm(p - np.asarray(ine.com), axis=1).max())
        top = float(np.linalg.eigvalsh(np.asarray(ine.inertia))[-1])
        bound = ine.mass * d * d
        if top <= PLAUSIBLE_FACTOR * bound:
            continue
        fixed = _hull_inertial(p, ine.mass)
        if fixed is None:
            continue
        out[name] = (fixed, f"{name!r} ({ine.mass:.3g} kg within {d:.3g} m: largest moment "
                            f"{top:.3g} kg m^2 > m d^2 = {bound:.3g})")  # fmt: skip
    return out


def wheel_inertia_fixes(
    model: RobotModel, wheels: Iterable[Wheel]
) -> dict[str, tuple[Inertial, str]]:
    """:func:`implausible_inertias` of the wheels' and their rollers' links: each link's
    geometry in its own frame (a wheel without shapes of its own: its rollers')."""
    T = model.fk_all(model.zero())
    idx = {n: i for i, n in enumerate(model.link_names)}
    children: dict[str, list[str]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j.child)

    def below(link: str) -> list[str]:
        out, stack = [], [link]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(children.get(n, []))
        return out

    points: dict[str, np.ndarray] = {}
    links: list[str] = []
    for w in wheels:
        for jn in (w.joint, *w.rollers):
            link = model.joint(jn).child
            links.append(link)
            p = link_points(model, link, np.eye(4))
            if len(p) == 0:  # a hub without shapes: its rollers', in its frame
                Ti = np.linalg.inv(T[idx[link]])
                pts = [link_points(model, n, Ti @ T[idx[n]]) for n in below(link)]
                p = np.vstack(pts) if pts else p
            points[link] = p
    return implausible_inertias(model, links, points)
