"""Degenerate inertias: kept as the file gives them in the model, made acceptable to
MuJoCo in physics, said in one warning line.

Robot files carry inertias no rigid body has but every engine copes with:
onshape-to-robot's frame links (mass 1e-9, zero tensor), massless links with a
placeholder tensor (the Panda's ``panda_link8``), the Robotics Toolbox's PUMA 560 link 1
(mass 0, ``diag(0, 0.35, 0)``: a lumped rotor inertia), point masses and thin rods.
The model keeps them exactly (kinematics and dynamics compute with them as pinocchio
does; :meth:`robotsim.model.robot.Inertial.problem` refuses only impossible ones).

MuJoCo refuses a *moving* body (one with a joint of its own) whose mass or smallest
principal moment is below ``mjMINVAL`` (1e-15), and any body whose moments break
``A + B >= C``. :func:`physics_inertials` says what the MJCF export writes instead, link
by link, changing as little as it can:

- a link on a fixed joint is part of its parent's rigid body (the dynamics compose it
  so, MuJoCo welds it): written as given, zero or singular tensors included; so is a
  moving link with links fixed below it that have mass and a full tensor (MuJoCo
  accepts the welded group);
- any other moving link MuJoCo would refuse is **merged** with the links fixed below it (their
  composite mass, centre of mass and inertia written on it, theirs written as zero, as
  MuJoCo's ``fusestatic`` does): the same rigid body, so the same motion;
- when even that composite is degenerate it is **bounded** as MuJoCo's
  ``boundmass``/``boundinertia`` do (mass at least :data:`BOUND_MASS`, each principal
  moment at least :data:`BOUND_INERTIA`), and moments that break the triangle
  inequality (a massless link's lumped tensor) are raised to meet it, the largest kept
  (PUMA link 1: ``diag(0.175, 0.35, 0.175)``, the same 0.35 about its joint axis);
- a link without any ``<inertial>`` is left to MuJoCo, which infers its mass from its
  collision shapes (``inertiafromgeom="auto"``, as its URDF import does), except on a
  fixed base, where it is written as mass 0 (static bodies carry no dynamics, and
  MuJoCo's masses then equal the model's: a KUKA iiwa's massless base got 5.69 kg).

:func:`degenerate_inertia_note` turns the same analysis into the one warning line
:func:`robotsim.model.load_robot` gives for a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from robotsim.model.robot import Inertial, Link, RobotModel

__all__ = [
    "BOUND_INERTIA",
    "BOUND_MASS",
    "MOVING_MIN",
    "PhysicsInertials",
    "degenerate_inertia_note",
    "physics_inertials",
]

#: what a bounded body gets at least (kg; kg m^2 per principal moment)
BOUND_MASS = 1e-6
BOUND_INERTIA = 1e-10
#: below this a moving body's mass (kg) or smallest moment (kg m^2) is degenerate:
#: ten times MuJoCo's ``mjMINVAL`` (1e-15), clear of the round-off of a decomposition
MOVING_MIN = 1e-14
#: a link with mass whose smallest principal moment is below this fraction of its
#: largest (or whose tensor is zero) has a singular tensor
SINGULAR_RTOL = 1e-12
_LIST = 8  # link names a warning lists before "and N more"


@dataclass(frozen=True)
class PhysicsInertials:
    """What the MJCF export writes for each link.

    Attributes:
        written: link name -> the ``<inertial>`` to write (mass may be 0, tensors zero
            or singular on fixed links), or None for no ``<inertial>`` (MuJoCo infers it
            from the link's collision shapes).
        merged: moving links that carry their fixed children's inertia (and those
            children), in model order.
        bounded: links whose given mass or moments were raised (see the module doc; a
            moving link without any inertial, nor one fixed below it, gets the bound
            too but is not listed: the file said nothing to change).
        singular: links with mass and a zero or singular tensor that are part of a
            rigid body with a full one (on a fixed joint, or with fixed links below that
            carry it): written as given.
    """

    written: Mapping[str, Inertial | None]
    merged: tuple[str, ...] = ()
    bounded: tuple[str, ...] = ()
    singular: tuple[str, ...] = ()


def _moments(links: tuple[Link, ...]) -> np.ndarray:
    """Sorted principal moments ``(L, 3)`` of every link's tensor (zeros without one),
    one batched ``eigvalsh``."""
    I = np.zeros((len(links), 3, 3))
    for i, lk in enumerate(links):
        if lk.inertial is not None:
            I[i] = lk.inertial.inertia
    scale = np.abs(I).max(axis=(1, 2))
    s = np.where(scale > 0, scale, 1.0)[:, None, None]
    ev = np.linalg.eigvalsh((I + np.swapaxes(I, 1, 2)) / (2.0 * s))
    return ev * s[:, :, 0]


def _breaks_triangle(ev: np.ndarray) -> bool:
    """Principal moments ``(3,)`` (sorted) MuJoCo refuses: ``A + B < C`` beyond the
    model's rounding tolerance (the exporter fixes round-off itself)."""
    return bool(ev[0] + ev[1] < ev[2] * (1.0 - 1e-9))


def _balanced(I: np.ndarray) -> np.ndarray:
    """``I`` with every principal moment at least :data:`BOUND_INERTIA` and the two
    smaller raised equally until they sum to the largest (which is kept)."""
    ev, R = np.linalg.eigh((I + I.T) / 2.0)
    ev = np.maximum(ev, BOUND_INERTIA)
    short = ev[2] - ev[0] - ev[1]
    if short > 0:
        ev[0] += short / 2.0
        ev[1] += short / 2.0
    return (R * ev) @ R.T


def _composite(parts: list[tuple[np.ndarray, Inertial]]) -> Inertial:
    """One rigid body of ``parts`` (pose of each part in the head link's frame, its
    inertial): total mass, centre of mass, inertia about it in the head's axes. Without
    mass the centre is the head's origin and the (lumped) tensors simply add."""
    m = sum(ine.mass for _, ine in parts)
    points = [T[:3, :3] @ ine.com + T[:3, 3] for T, ine in parts]
    c = sum(ine.mass * p for (_, ine), p in zip(parts, points)) / m if m > 0 else np.zeros(3)
    I = np.zeros((3, 3))
    for (T, ine), p in zip(parts, points):
        R = T[:3, :3]
        d = p - c
        I += R @ ine.inertia @ R.T + ine.mass * ((d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(float(m), np.asarray(c, dtype=float), (I + I.T) / 2.0)


def physics_inertials(model: RobotModel) -> PhysicsInertials:
    """What MuJoCo gets for each link (see the module doc)."""
    links = model.links
    index = {lk.name: i for i, lk in enumerate(links)}
    ev = _moments(links)
    parent_joint = {j.child: j for j in model.joints}
    children: dict[str, list[str]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j.child)
    written: dict[str, Inertial | None] = {lk.name: lk.inertial for lk in links}
    merged: list[str] = []
    bounded: list[str] = []
    singular: list[str] = []

    def welded_below(name: str) -> list[tuple[str, np.ndarray]]:
        """The links fixed below ``name`` (recursively), with their pose in its frame."""
        out = []
        stack = [(c, np.eye(4)) for c in reversed(children.get(name, []))]
        while stack:
            child, T_above = stack.pop()
            j = parent_joint[child]
            if j.movable:
                continue
            T = T_above @ np.asarray(j.origin) @ np.asarray(j.post)
            out.append((child, T))
            stack.extend((c, T) for c in reversed(children.get(child, [])))
        return out

    def carries(name: str) -> bool:
        """A fixed link MuJoCo lets carry a moving body above it: mass and a full-rank
        tensor, or collision shapes to infer them from."""
        k = index[name]
        given = written[name]
        if given is None:
            return bool(links[k].collisions)
        return given.mass > MOVING_MIN and ev[k, 0] > MOVING_MIN

    static_root = not model.floating
    for i, lk in enumerate(links):
        ine = lk.inertial
        j = parent_joint.get(lk.name)
        moving = (j is not None and j.movable) or (j is None and model.floating)
        static = j is None and static_root
        if static and ine is None and lk.name != "world":
            written[lk.name] = Inertial(0.0, np.zeros(3), np.zeros((3, 3)))
        if ine is None:
            continue
        if not moving:
            if ine.mass > 0 and ev[i, 0] <= SINGULAR_RTOL * max(ev[i, 2], 0.0) and not static:
                singular.append(lk.name)
            if _breaks_triangle(ev[i]):  # only a massless link's lumped tensor gets here
                written[lk.name] = Inertial(ine.mass, ine.com, _balanced(np.asarray(ine.inertia)))
                bounded.append(lk.name)
    # static links welded to a fixed root carry no dynamics: their masses as the model's
    if static_root:
        for name, _ in welded_below(model.root):
            if written[name] is None:
                written[name] = Inertial(0.0, np.zeros(3), np.zeros((3, 3)))

    for i, lk in enumerate(links):
        ine = lk.inertial
        j = parent_joint.get(lk.name)
        if not ((j is not None and j.movable) or (j is None and model.floating)):
            continue
        if ine is None and lk.collisions:
            continue  # MuJoCo infers a mass from the shapes
        if ine is not None and ine.mass > MOVING_MIN and ev[i, 0] > MOVING_MIN:
            continue  # acceptable as it is (the triangle holds: the model checked it)
        below = welded_below(lk.name)
        if any(carries(n) for n, _ in below):  # MuJoCo takes the welded body's mass
            if ine is not None and ine.mass > 0:
                singular.append(lk.name)
            continue
        parts = [(np.eye(4), ine)] if ine is not None else []
        parts += [(T, links[index[n]].inertial) for n, T in below
                  if links[index[n]].inertial is not None]  # fmt: skip
        comp = _composite(parts) if parts else Inertial(0.0, np.zeros(3), np.zeros((3, 3)))  # type: ignore[arg-type]
        cev = np.linalg.eigvalsh(np.asarray(comp.inertia))
        if comp.mass > MOVING_MIN and cev[0] > MOVING_MIN and not _breaks_triangle(cev):
            written[lk.name] = comp
            merged.append(lk.name)
        else:
            written[lk.name] = Inertial(max(comp.mass, BOUND_MASS), comp.com,
                                        _balanced(np.asarray(comp.inertia)))  # fmt: skip
            if parts:  # a bare frame on a joint (no inertial anywhere) is not news
                bounded.append(lk.name)
        for n, _ in below:
            if written[n] is not None and links[index[n]].inertial is not None:
                written[n] = Inertial(0.0, np.zeros(3), np.zeros((3, 3)))
                if len(parts) > 1:
                    merged.append(n)
                if n in bounded:
                    bounded.remove(n)
    order = {name: i for i, name in enumerate(index)}
    return PhysicsInertials(
        written,
        tuple(sorted(set(merged), key=order.__getitem__)),
        tuple(sorted(set(bounded) - set(merged), key=order.__getitem__)),
        tuple(n for n in singular if n not in merged),
    )


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(repr(n) for n in names[:_LIST])
    more = len(names) - _LIST
    return shown + (f" and {more} more" if more > 0 else "")


def degenerate_inertia_note(model: RobotModel, phys: PhysicsInertials | None = None) -> str | None:
    """One line saying which links have degenerate inertias and what physics does with
    them (None when there are none). Massless frames (mass 0, zero tensor) and massless
    links with a tensor MuJoCo accepts are ordinary and not named."""
    p = physics_inertials(model) if phys is None else phys
    parts = []
    if p.singular:
        parts.append(f"{_names(p.singular)} (a mass with a zero or singular tensor, rigidly "
                     "joined to a body with a full one)")  # fmt: skip
    if p.merged:
        parts.append(f"{_names(p.merged)} (merged into one body across fixed joints for "
                     "physics)")  # fmt: skip
    if p.bounded:
        parts.append(f"{_names(p.bounded)} (bounded for physics to mass >= {BOUND_MASS:g} kg "
                     f"and principal moments >= {BOUND_INERTIA:g} kg m^2 meeting A + B >= C, "
                     "as MuJoCo's boundmass/boundinertia/balanceinertia)")  # fmt: skip
    if not parts:
        return None
    where = f"{model.source}: " if model.source is not None else ""
    return (f"{where}robot {model.name!r}: degenerate inertias kept as given for dynamics: "
            + "; ".join(parts))  # fmt: skip
