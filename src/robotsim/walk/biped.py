"""A biped as walking sees it: legs, soles and sizes read from the robot's profile.

Everything the walk is sized from comes from here, never from the robot's name: the
leg length (hip joint to sole, straight legs), the sole polygons, the distance between
the feet, the mass, the centre of mass height standing, and how far each foot can yaw
relative to the body (the leg joints whose axis is near vertical at the zero pose).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.model.robot import RobotModel

__all__ = ["Biped", "biped_of", "polygon_centroid"]


@dataclass(frozen=True, eq=False)
class Biped:
    """A robot ready to walk. Index 0 is the left leg (the +y side), 1 the right.

    Attributes:
        model: the robot with the profile's sole frames, its root free in the world.
        soles: sole frame names (z up out of the sole, x forward).
        legs: joint names per leg, hip to ankle.
        leg_cols: ``q`` columns of those joints.
        polygons: sole polygons ``(k, 2)`` in the sole frames (m, counter-clockwise).
        centres: the point of each polygon the ZMP aims at ``(2,)`` (its area centroid:
            the middle of a rectangle; for a tapered sole nearer the wide end, but not
            all the way to it as the largest inscribed circle's centre would be).
        mass: kg.
        leg_length: m, hip joint to sole along the vertical at the zero pose (mean).
        half_width: m, half the lateral distance between the soles at the zero pose.
        sole_height: m, root above the soles at the zero pose (standing tall).
        com_height: m, centre of mass above the soles at the zero pose.
        foot_length, foot_width: m, the smaller sole's extent along x and y.
        yaw_range: rad ``(lo, hi)``, how far a foot may yaw relative to the body
            (``(0, 0)``: the legs have no joint about the vertical: the robot cannot turn).
        rolls_soles: whether each leg can roll its sole about its length without moving
            it (two joints whose axes lie along the foot, a hip and an ankle roll); legs
            without (a Unitree H1's five joints) shift the weight by leaning, the soles
            rolling on their edges.
        q_rest: the posture the joints outside the legs hold (the ``stand`` pose or zero).
        R_root_upright: ``(3, 3)`` the root's orientation when the soles lie flat.
        leg_mass: kg, the mass a hip joint moves (every link below it; mean of the legs).
        leg_com_height: m, that mass's centre above the sole at the rest posture.
    """

    model: RobotModel
    soles: tuple[str, str]
    legs: tuple[tuple[str, ...], tuple[str, ...]]
    leg_cols: tuple[np.ndarray, np.ndarray]
    polygons: tuple[np.ndarray, np.ndarray]
    centres: tuple[np.ndarray, np.ndarray]
    mass: float
    leg_length: float
    half_width: float
    sole_height: float
    com_height: float
    foot_length: float
    foot_width: float
    yaw_range: tuple[float, float]
    rolls_soles: bool
    q_rest: np.ndarray
    R_root_upright: np.ndarray
    leg_mass: float = 0.0
    leg_com_height: float = 0.0

    @property
    def name(self) -> str:
        return self.model.name

    def describe(self) -> dict[str, object]:
        """The sizes, for reports (m, kg, deg)."""
        return {
            "robot": self.name,
            "mass_kg": self.mass,
            "leg_length_m": self.leg_length,
            "half_width_m": self.half_width,
            "com_height_m": self.com_height,
            "foot_length_m": self.foot_length,
            "foot_width_m": self.foot_width,
            "yaw_range_deg": [float(np.degrees(v)) for v in self.yaw_range],
            "rolls_soles": self.rolls_soles,
        }


def _path_joints(model: RobotModel, sole: str) -> list[tuple[object, float, float]]:
    """The movable joints from the root to the link carrying ``sole``, each with its
    range (rad): its own, or for a joint that mimics another (NAO's right hip yaw-pitch
    follows the left) the other's range mapped through the coupling."""
    tree = model.tree
    names = model.link_names
    by_child = {j.child: j for j in model.joints}
    out = []
    for i in tree.path(tree.frame(sole)[0]):
        j = by_child[names[i]]
        if not j.movable:
            continue
        if j.mimic is not None:
            src = model.joint(j.mimic.joint).limits
            m, o = j.mimic.multiplier, j.mimic.offset
            lo, hi = sorted((m * src.lower + o, m * src.upper + o))
        else:
            lo, hi = j.limits.lower, j.limits.upper
        lo = -np.pi if not np.isfinite(lo) else lo
        hi = np.pi if not np.isfinite(hi) else hi
        out.append((j, float(lo), float(hi)))
    return out


def _axis(model: RobotModel, j: object, T_all: np.ndarray) -> np.ndarray:
    """A joint's axis in the world at the pose of ``T_all`` (link poses)."""
    idx = {n: i for i, n in enumerate(model.link_names)}
    T = T_all[idx[j.child]]  # type: ignore[attr-defined]
    post = np.asarray(j.post)  # type: ignore[attr-defined]
    return T[:3, :3] @ (post[:3, :3].T @ np.asarray(j.axis))  # type: ignore[attr-defined]


def _along(model: RobotModel, sole: str, T_all: np.ndarray, d: np.ndarray) -> int:
    """How many joints on the way to ``sole`` have their axis (zero pose, world) within
    60 deg of the direction ``d``."""
    return sum(
        1 for j, _, _ in _path_joints(model, sole) if abs(float(_axis(model, j, T_all) @ d)) > 0.5
    )


def _yaw_range(model: RobotModel, sole: str, T_all: np.ndarray) -> tuple[float, float]:
    """How far the foot of one leg can yaw relative to the root (rad): the range of the
    joint on its way closest to vertical, scaled by how vertical it is (an oblique
    yaw-pitch hip turns the foot by its vertical component); ``(0, 0)`` with none above
    30 deg."""
    best = (0.0, 0.0, 0.0)
    for j, lo, hi in _path_joints(model, sole):
        vert = float(_axis(model, j, T_all)[2])
        if abs(vert) < 0.5 or abs(vert) <= abs(best[2]):
            continue
        a, b = sorted((lo * vert, hi * vert))
        best = (a, b, vert)
    return best[0], best[1]


def polygon_centroid(poly: np.ndarray) -> np.ndarray:
    """Area centroid ``(2,)`` of a simple polygon ``(k, 2)`` (shoelace formula)."""
    p = np.asarray(poly, dtype=np.float64)
    q = np.roll(p, -1, axis=0)
    cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
    a = cross.sum() / 2
    if abs(a) < 1e-15:
        return p.mean(axis=0)
    return np.array([((p[:, 0] + q[:, 0]) * cross).sum(), ((p[:, 1] + q[:, 1]) * cross).sum()]) / (
        6 * a
    )


def biped_of(model: RobotModel) -> Biped:
    """The :class:`Biped` of ``model`` (its profile must show two legs with feet); a
    one-line :class:`InputError` saying what the profile found otherwise."""
    from robotsim.motion.balance import com_world, convex_hull, total_mass
    from robotsim.motion.gait import walk_legs
    from robotsim.profile.resolve import resolve_profile

    try:
        m, soles, legs = walk_legs(model)
    except InputError as exc:
        raise InputError(str(exc).replace("a walk needs", "walking needs")) from None
    if not m.floating:
        m = dataclasses.replace(m, floating=True)
    prof = resolve_profile(model)
    sole_poly = {f.sole.name: np.asarray(f.polygon, dtype=np.float64) for f in prof.feet}
    polys = tuple(convex_hull(sole_poly[s]) for s in soles)
    for s, p in zip(soles, polys):
        if len(p) < 3:
            raise InputError(f"{model.name}: sole {s!r} has no polygon to stand on")
    q0 = m.zero()
    rest = m.poses.get("stand", {})
    q_rest = q0.copy()
    for n, v in rest.items():
        q_rest[m.joint_index(n)] = v
    q_rest = np.clip(q_rest, m.lower, m.upper)
    T_all = m.fk_all(q_rest)
    T_soles = [m.fk(q_rest, s) for s in soles]
    cols = tuple(np.array([m.joint_index(n) for n in lj], dtype=np.int64) for lj in legs)
    idx = {n: i for i, n in enumerate(m.link_names)}
    lengths = []
    for lj, Ts in zip(legs, T_soles):
        hip = T_all[idx[m.joint(lj[0]).child]]
        lengths.append(float(hip[2, 3] - Ts[2, 3]))
    leg_length = float(np.mean(lengths))
    if not leg_length > 0:
        raise InputError(f"{model.name}: the hips are not above the soles at the zero pose")
    R_up = T_soles[0][:3, :3].T  # root orientation that lays the left sole flat
    sole_z = float(np.mean([Ts[2, 3] for Ts in T_soles]))
    com = com_world(m, T_all)
    yaws = [_yaw_range(m, s, T_all) for s in soles]
    yaw = (max(yaws[0][0], yaws[1][0]), min(yaws[0][1], yaws[1][1]))
    if yaw[0] > 0 or yaw[1] < 0:
        yaw = (0.0, 0.0)
    centres = tuple(polygon_centroid(p) for p in polys)
    leg_mass, leg_h = _leg_masses(m, legs, T_all, T_soles, R_up)
    rolls = all(_along(m, s, T_all, Ts[:3, 0]) >= 2 for s, Ts in zip(soles, T_soles))
    return Biped(
        model=m,
        soles=soles,
        legs=(tuple(legs[0]), tuple(legs[1])),
        leg_cols=cols,
        polygons=polys,
        centres=centres,
        mass=total_mass(m),
        leg_length=leg_length,
        half_width=float(abs(T_soles[0][1, 3] - T_soles[1][1, 3]) / 2),
        sole_height=-sole_z,
        com_height=float((R_up @ com)[2] - (R_up @ T_soles[0][:3, 3])[2]),
        foot_length=float(min(np.ptp(p[:, 0]) for p in polys)),
        foot_width=float(min(np.ptp(p[:, 1]) for p in polys)),
        yaw_range=(float(yaw[0]), float(yaw[1])),
        rolls_soles=rolls,
        q_rest=q_rest,
        R_root_upright=R_up,
        leg_mass=leg_mass,
        leg_com_height=leg_h,
    )


def _leg_masses(
    m: RobotModel, legs: Any, T_all: np.ndarray, T_soles: list[np.ndarray], R_up: np.ndarray
) -> tuple[float, float]:
    """``(mass kg, centre height above the sole m)`` of what each hip joint moves (every
    link below its child link), the mean over the legs."""
    from robotsim.motion.balance import _mass_arrays

    mass, c = _mass_arrays(m)
    pts = (T_all @ c[:, :, None])[:, :3, 0] @ R_up.T  # link CoMs, upright
    names = list(m.link_names)
    parent = {}
    for i, lk in enumerate(names):
        j = m.parent_joint(lk)
        parent[i] = names.index(j.parent) if j is not None else -1
    out = []
    for lj, Ts in zip(legs, T_soles):
        top = names.index(m.joint(lj[0]).child)
        below = []
        for i in range(len(names)):
            k = i
            while k >= 0 and k != top:
                k = parent[k]
            if k == top:
                below.append(i)
        ml = float(mass[below].sum())
        sole_z = float((R_up @ Ts[:3, 3])[2])
        h = float(mass[below] @ pts[below, 2]) / ml - sole_z if ml > 0 else 0.0
        out.append((ml, h))
    return float(np.mean([o[0] for o in out])), float(np.mean([o[1] for o in out]))
