"""Which robots a physics world sets free, and where it sets them down.

A robot file describes a mechanism, not how it meets the world: most humanoid URDFs
have no floating joint (the torso is the root) and a wheeled base's URDF has none
either. Compiled as written, such a robot is welded to the world by its root: a
humanoid stands whatever its legs do. So every physics world gives a robot that
moves about on the ground a free-floating root, whatever its file says:

- *on legs*: its robot profile (inferred or from its profile file) has two or more
  legs with feet (:mod:`robotsim.profile`);
- *on wheels*: it has a wheel drive (metadata or profile,
  :func:`robotsim.physics.drives.drive_of`).

This happens in one place, :class:`robotsim.physics.scene.RobotPlacement` (its
``base="auto"``), so ``motion check --physics``, ``run``, ``serve`` and the studio all
simulate the same free robot. A freed robot is set down on the ground at its start
configuration: the lowest sole corner (legs) or wheel bottom (wheels) at ``z = 0``,
its x, y and orientation as placed.

A legged robot that cannot be freed is an error, not a verdict: its root is a massless
anchor hanging the body on movable joints (a planar walker's slides, a test stand), so
setting the root free would leave the body on those joints, still held.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from robotsim.errors import PhysicsError

__all__ = ["GroundContact", "free_robots", "ground_contact", "on_ground", "set_free"]

MIN_LEG_JOINTS = 6  # two legs of >= 3 joints each


@dataclass(frozen=True)
class GroundContact:
    """How a robot meets the ground: ``by`` (``"legs"`` or ``"wheels"``), the names of
    its legs or wheel joints, and ``points``: the contact points as ``(frame, (k, 3)
    points in that frame)`` pairs (sole polygon corners, or wheel bottoms at the zero
    pose); ``frames`` the model frames the sole frames need (added by the profile)."""

    by: str
    names: tuple[str, ...]
    points: tuple[tuple[str, tuple[tuple[float, float, float], ...]], ...]
    frames: tuple[Any, ...] = ()


_CONTACT: weakref.WeakKeyDictionary[Any, GroundContact | None] = weakref.WeakKeyDictionary()


def ground_contact(model: Any) -> GroundContact | None:
    """How ``model`` stands on the ground (legs with feet, or a wheel drive), from its
    profile; ``None`` for a robot that does neither (an arm). Cached per model."""
    try:
        return _CONTACT[model]
    except (KeyError, TypeError):
        pass
    out = _legs(model)
    if out is None:
        out = _wheels(model)
    try:
        _CONTACT[model] = out
    except TypeError:
        pass
    return out


def _legs(model: Any) -> GroundContact | None:
    from robotsim.profile.resolve import profile_file_for, resolve_profile, with_frames

    movable = sum(1 for j in model.joints if j.movable and j.mimic is None)
    if movable < MIN_LEG_JOINTS and profile_file_for(model) is None:
        return None  # too few joints for two legs: skip the inference
    prof = resolve_profile(model)
    if len(prof.legs) < 2 or not prof.feet:
        return None
    m = with_frames(model, prof)
    added = tuple(f for f in m.frames if f.name not in model.frame_names)
    points = tuple(
        (f.sole.name, tuple((float(x), float(y), 0.0) for x, y in f.polygon)) for f in prof.feet
    )
    return GroundContact("legs", tuple(lg.name for lg in prof.legs), points, added)


def _wheels(model: Any) -> GroundContact | None:
    from robotsim.physics.drives import drive_of

    drive = drive_of(model)
    if drive is None:
        return None
    pts = []
    T = model.fk_all(np.zeros(model.nq))
    idx = {n: i for i, n in enumerate(model.link_names)}
    for jn, r, c in zip(drive.wheel_joints, drive.radii, drive.centres):
        j = model.joint(jn)
        Tc = T[idx[j.child]]
        if c is None:
            post = np.asarray(j.post)
            c = -(post[:3, :3].T @ post[:3, 3])  # the joint anchor in the child frame
        centre_w = Tc[:3, :3] @ np.asarray(c, dtype=float) + Tc[:3, 3]
        bottom = centre_w - np.array([0.0, 0.0, r])  # at the zero pose, root upright
        pts.append(tuple(float(v) for v in bottom))
    return GroundContact("wheels", drive.wheel_joints, ((model.root, tuple(pts)),))


def set_free(model: Any, name: str | None = None) -> Any:
    """``model`` with a floating root if it stands on legs or wheels
    (:func:`ground_contact`) and its file welds it; the model itself otherwise.

    Raises :class:`PhysicsError` for a legged robot whose root cannot be set free (its
    root is a massless anchor and the body hangs from it on movable joints); ``name``:
    the robot's name in the scene, for that message."""
    contact = ground_contact(model)
    if contact is None or model.floating:
        return model
    anchor = _anchor_joints(model)
    if anchor:
        what = "legged" if contact.by == "legs" else "wheeled"
        label = f"robot {name!r} ({model.name})" if name else f"robot {model.name!r}"
        raise PhysicsError(
            f"{label}: {what} ({', '.join(contact.names)}) but "
            f"its root {model.root!r} is a massless anchor holding the body on the "
            f"movable joint(s) {', '.join(anchor)}: a physics world cannot set it free, "
            "so nothing it does would show whether it stands; give the body a floating "
            "root (a URDF 'floating' joint from the world, an MJCF <freejoint/>) instead"
        )
    if contact.by == "wheels":
        from robotsim.physics.drives import drivable

        out = drivable(model)  # keeps the drive it found for the floating copy
    else:
        out = dataclasses.replace(model, floating=True)
    try:
        _CONTACT[out] = contact
    except TypeError:
        pass
    return out


def _anchor_joints(model: Any) -> list[str]:
    """The movable joints that hang the body from a massless root with no shapes (a
    planar walker's slides and hinge, a stand), down to the first link with mass:
    empty when the root carries the body (its mass, or a massive link welded to it)."""
    children: dict[str, list[Any]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j)

    def massive(link: str) -> bool:
        lk = model.link(link)
        return (lk.inertial is not None and lk.inertial.mass > 0) or bool(lk.collisions)

    def welded(link: str) -> list[str]:
        out = [link]
        for j in children.get(link, []):
            if not j.movable:
                out += welded(j.child)
        return out

    held: list[str] = []
    body = welded(model.root)
    while not any(massive(n) for n in body):
        moving = [j for n in body for j in children.get(n, []) if j.movable]
        if not moving:
            return held
        held += [j.name for j in moving]
        body = [n for j in moving for n in welded(j.child)]
    return held


def on_ground(model: Any, T_world_base: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``T_world_base`` ``(4, 4)`` moved along world z so the robot's lowest contact
    point (sole corner or wheel bottom, :func:`ground_contact`) at configuration ``q``
    ``(nq,)`` lies on ``z = 0``; unchanged for a robot with no ground contact."""
    contact = ground_contact(model)
    T = np.array(T_world_base, dtype=np.float64)
    if contact is None:
        return T
    if contact.by == "wheels":  # wheel bottoms at the zero pose (they turn, not move)
        pts = np.array(contact.points[0][1], dtype=np.float64)
        low = float(np.min(pts @ T[2, :3] + T[2, 3]))
    else:
        m = dataclasses.replace(model, frames=(*model.frames, *contact.frames))
        low = math.inf
        Ts = m.tree.fk_frames(np.asarray(q, dtype=np.float64), [f for f, _ in contact.points])
        for Tf, (_, corners) in zip(Ts, contact.points):
            p = np.array(corners, dtype=np.float64) @ Tf[:3, :3].T + Tf[:3, 3]
            low = min(low, float(np.min(p @ T[2, :3] + T[2, 3])))
    T[2, 3] -= low
    return T


def free_robots(scene: Any) -> Any:
    """``scene`` with every ``base="auto"`` robot placement as it is simulated: set free
    (:func:`set_free`) and, when freed here, set down on the ground (:func:`on_ground`
    at its ``q0``). The scene itself when nothing changes."""
    from robotsim.errors import UnknownNameError

    robots = []
    changed = False
    for r in scene.robots:
        if r.base != "auto":
            robots.append(r)
            continue
        free = set_free(r.model, r.name)
        if free is r.model:
            robots.append(r)
            continue
        for jn in r.q0:
            if jn not in r.model.joint_names:
                raise UnknownNameError(f"joint of robot {r.name!r}", jn, r.model.joint_names)
        q = r.model.q_from(r.q0, base=np.zeros(r.model.nq))
        T = on_ground(free, r.T_world_base, q) if scene.ground is not None else r.T_world_base
        robots.append(dataclasses.replace(r, model=free, T_world_base=T))
        changed = True
    return dataclasses.replace(scene, robots=tuple(robots)) if changed else scene
